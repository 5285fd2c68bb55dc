// A listening socket on 127.0.0.1 at a port the kernel picked free (docs/CONTRIBUTING.md,
// rule 8), for tests that need something listening there: a canned server accepts on it, a
// port check finds it taken. Shared by the tests of orchestrator/sut and orchestrator/serve
// instead of a copy in each.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>

namespace benchgate::test_support {

class LoopbackListener {
 public:
  explicit LoopbackListener(int backlog = 8) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    bound_ = fd_ >= 0 && ::bind(fd_, reinterpret_cast<sockaddr*>(&address), size) == 0 &&
             ::listen(fd_, backlog) == 0 &&
             ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size) == 0;
    port_ = bound_ ? ntohs(address.sin_port) : 0;
  }
  ~LoopbackListener() {
    if (fd_ >= 0) ::close(fd_);
  }
  LoopbackListener(const LoopbackListener&) = delete;
  LoopbackListener& operator=(const LoopbackListener&) = delete;

  // Whether it listens; port() is 0 when not.
  bool bound() const { return bound_; }
  uint16_t port() const { return port_; }
  // For accept(), and shutdown() to wake a thread blocked in it; closed by the destructor.
  int fd() const { return fd_; }

 private:
  int fd_;
  bool bound_ = false;
  uint16_t port_ = 0;
};

// A loopback port nothing listens on: one picked free, then closed again.
inline uint16_t closed_loopback_port() {
  const LoopbackListener picked;
  return picked.port();
}

}  // namespace benchgate::test_support
