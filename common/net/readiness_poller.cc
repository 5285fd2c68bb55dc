// The thread's edge-triggered readiness set (see readiness_poller.h).
#include "common/net/readiness_poller.h"

#include <unistd.h>

#include <boost/asio/error.hpp>
#include <cerrno>

namespace benchgate::net {

namespace asio = boost::asio;
using boost::system::error_code;

asio::io_context::id ReadinessPoller::id;

ReadinessPoller::ReadinessPoller(asio::io_context& io)
    : asio::io_context::service(io),
      // Made before this service if not yet there, so shut down after it.
      reactor_(asio::use_service<asio::detail::reactor>(io)) {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ >= 0 && reactor_.register_descriptor(epoll_fd_, reactor_data_) != 0) {
    ::close(epoll_fd_);
    epoll_fd_ = -1;
  }
}

ReadinessPoller::~ReadinessPoller() { stop(); }

void ReadinessPoller::shutdown() { stop(); }

// The queued wait completes with operation_aborted (or, with the io_context going away, is
// dropped by the scheduler), and the set is closed.
void ReadinessPoller::stop() {
  if (stopped_) return;
  stopped_ = true;
  if (epoll_fd_ < 0) return;
  reactor_.deregister_descriptor(epoll_fd_, reactor_data_, true);
  reactor_.cleanup_descriptor_data(reactor_data_);
  ::close(epoll_fd_);
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

void ReadinessPoller::remove(int fd) {
  if (epoll_fd_ < 0) return;
  epoll_event ignored{};
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, &ignored);
}

void ReadinessPoller::arm() {
  if (armed_ || stopped_) return;
  armed_ = true;
  wait_.reset();
  reactor_.start_op(asio::detail::reactor::read_op, epoll_fd_, reactor_data_, &wait_,
                    /*is_continuation=*/false, /*allow_speculative=*/true);
}

void ReadinessPoller::on_wake(const error_code& ec) {
  armed_ = false;
  if (ec || stopped_) return;
  dispatch();
  arm();
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

}  // namespace benchgate::net
