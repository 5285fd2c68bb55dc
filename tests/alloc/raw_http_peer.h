// An HTTP/1.1 server for the allocation tests made of system calls only (epoll, accept, recv,
// send; fixed arrays, no heap): it answers every request (each "\r\n\r\n" seen; the worker's
// GETs have no body) with an empty 200, on one thread of its own, so that the live heap
// bytes of the process are the worker's alone. 127.0.0.1, a port the kernel picks. It can be
// made slow (set_delay: it sleeps that long before each answer) and counts its answers.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string_view>
#include <thread>

namespace benchgate::alloc_test {

class RawHttpPeer {
 public:
  RawHttpPeer() {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(listen_fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address));
    ::listen(listen_fd_, 4096);
    socklen_t length = sizeof(address);
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
    stop_fd_ = ::eventfd(0, EFD_CLOEXEC);
    add(listen_fd_);
    add(stop_fd_);
    thread_ = std::thread([this] { serve(); });
  }
  ~RawHttpPeer() {
    const uint64_t one = 1;
    (void)!::write(stop_fd_, &one, sizeof(one));
    thread_.join();
    for (size_t fd = 0; fd < matched_.size(); ++fd) {
      if (open_[fd]) ::close(static_cast<int>(fd));
    }
    ::close(listen_fd_);
    ::close(epoll_fd_);
    ::close(stop_fd_);
  }
  RawHttpPeer(const RawHttpPeer&) = delete;
  RawHttpPeer& operator=(const RawHttpPeer&) = delete;

  uint16_t port() const { return port_; }
  // From the next answer on, each is sent `delay` after the request was read (0: at once).
  void set_delay(std::chrono::microseconds delay) { delay_us_ = delay.count(); }
  // Requests answered so far.
  uint64_t answered() const { return answered_.load(); }

 private:
  static constexpr size_t kMaxFd = 8192;

  void add(int fd) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = fd;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &event);
  }

  void serve() {
    static constexpr std::string_view kResponse = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
    std::array<epoll_event, 256> events;
    char buffer[16384];
    for (;;) {
      const int n = ::epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), -1);
      for (int i = 0; i < n; ++i) {
        const int fd = events[i].data.fd;
        if (fd == stop_fd_) return;
        if (fd == listen_fd_) {
          for (int client; (client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC)) >= 0;) {
            if (static_cast<size_t>(client) >= kMaxFd) {
              ::close(client);
              continue;
            }
            open_[client] = true;
            matched_[client] = 0;
            add(client);
          }
          continue;
        }
        const ssize_t got = ::recv(fd, buffer, sizeof(buffer), 0);
        if (got <= 0) {
          ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
          ::close(fd);
          open_[fd] = false;
          continue;
        }
        // Counts the ends of request headers, across reads.
        int requests = 0;
        for (ssize_t k = 0; k < got; ++k) {
          const char want = "\r\n\r\n"[matched_[fd]];
          matched_[fd] = buffer[k] == want ? matched_[fd] + 1 : (buffer[k] == '\r' ? 1 : 0);
          if (matched_[fd] == 4) {
            matched_[fd] = 0;
            ++requests;
          }
        }
        for (int r = 0; r < requests; ++r) {
          if (const int64_t delay = delay_us_.load(); delay > 0) {
            std::this_thread::sleep_for(std::chrono::microseconds(delay));
          }
          if (::send(fd, kResponse.data(), kResponse.size(), MSG_NOSIGNAL) < 0) break;
          answered_.fetch_add(1);
        }
      }
    }
  }

  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  int stop_fd_ = -1;
  uint16_t port_ = 0;
  std::array<uint8_t, kMaxFd> matched_{};
  std::array<bool, kMaxFd> open_{};
  std::atomic<int64_t> delay_us_{0};
  std::atomic<uint64_t> answered_{0};
  std::thread thread_;
};

}  // namespace benchgate::alloc_test
