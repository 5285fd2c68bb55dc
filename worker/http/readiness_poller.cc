#include "worker/http/readiness_poller.h"

#include <unistd.h>

#include <boost/asio/bind_allocator.hpp>
#include <cerrno>

namespace benchgate::worker::http {

namespace asio = boost::asio;
using boost::system::error_code;

asio::io_context::id ReadinessPoller::id;

ReadinessPoller::ReadinessPoller(asio::io_context& io)
    : asio::io_context::service(io), waiter_(io) {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ >= 0) {
    error_code ignored;
    waiter_.assign(epoll_fd_, ignored);
  }
}

ReadinessPoller::~ReadinessPoller() { shutdown(); }

// The io_context is going away: the pending wait is cancelled (its operation is destroyed
// while this service still exists, so its memory slot is still there).
void ReadinessPoller::shutdown() {
  if (stopped_) return;
  stopped_ = true;
  error_code ignored;
  waiter_.close(ignored);  // closes epoll_fd_ too
  epoll_fd_ = -1;
}

error_code ReadinessPoller::add(int fd, Readable& target) {
  if (epoll_fd_ < 0 || stopped_) return asio::error::bad_descriptor;
  epoll_event event{};
  event.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
  event.data.ptr = &target;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &event) != 0) {
    return error_code(errno, asio::error::get_system_category());
  }
  arm();
  return {};
}

// Asio re-arms the set's descriptor (one epoll_ctl) and reports it when any socket in it
// became readable.
void ReadinessPoller::arm() {
  if (armed_ || stopped_) return;
  armed_ = true;
  waiter_.async_wait(
      asio::posix::descriptor_base::wait_read,
      asio::bind_allocator(HandlerAllocator<char>(&wait_memory_), [this](const error_code& ec) {
        armed_ = false;
        if (ec || stopped_) return;
        dispatch();
        arm();
      }));
}

// Every connection reported readable reads what it got; a full batch may have more behind it.
void ReadinessPoller::dispatch() {
  for (;;) {
    const int n = ::epoll_wait(epoll_fd_, events_, kBatch, 0);
    if (n < 0 && errno == EINTR) continue;
    for (int i = 0; i < n; ++i) static_cast<Readable*>(events_[i].data.ptr)->on_readable();
    if (n < kBatch || stopped_) return;
  }
}

}  // namespace benchgate::worker::http
