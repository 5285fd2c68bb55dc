// The router's accept loop (see accept_loop.h).
#include "router/net/accept_loop.h"

#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>
#include <stdexcept>
#include <utility>

#include <boost/asio/detail/reactor_op.hpp>

#include "common/net/asio_access.h"

namespace benchgate::router::net {
namespace {

namespace asio = boost::asio;
namespace asio_access = ::benchgate::net::asio_access;

bool is_resource_shortage(const boost::system::error_code& ec) {
  return ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space ||
         ec == asio::error::no_memory || ec.value() == ENFILE;
}

}  // namespace

std::string describe_accept_error(const boost::system::error_code& ec) {
  std::string text = ec.message();
  if (ec == asio::error::no_descriptors) {
    rlimit limit{};
    text += " (EMFILE";
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
      text += "; RLIMIT_NOFILE is " + std::to_string(limit.rlim_cur);
    }
    text += ")";
  } else if (ec.value() == ENFILE) {
    text += " (ENFILE: the system-wide limit)";
  }
  return text;
}

// One accept4 on the listening socket, as an operation of the reactor: perform() is called at
// once when the reactor may try (Asio's speculative attempt) and then on each edge of the
// listening socket; "not done" (EAGAIN) keeps it queued without re-arming the descriptor.
class AcceptLoop::AcceptOp final : public asio::detail::reactor_op {
 public:
  explicit AcceptOp(AcceptLoop* loop)
      : reactor_op(boost::system::error_code(), &AcceptOp::perform, &AcceptOp::complete),
        loop_(loop) {}

  AcceptLoop* loop_;  // null once the loop is gone
  int listen_fd_ = -1;
  int fd_ = -1;
  bool queued_ = false;

 private:
  static status perform(reactor_op* base) {
    auto* op = static_cast<AcceptOp*>(base);
    for (;;) {
      const int fd = ::accept4(op->listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd >= 0) {
        op->fd_ = fd;
        return done;
      }
      const int error = errno;
      if (error == EAGAIN || error == EWOULDBLOCK) return not_done;
      // A connection reset while queued, or interrupted: try the next one.
      if (error == EINTR || error == ECONNABORTED || error == EPROTO) continue;
      op->ec_ = boost::system::error_code(error, asio::error::get_system_category());
      return done;
    }
  }

  static void complete(void* owner, asio::detail::operation* base, const boost::system::error_code&,
                       std::size_t) {
    auto* op = static_cast<AcceptOp*>(base);
    op->queued_ = false;
    const int fd = std::exchange(op->fd_, -1);
    if (op->loop_ == nullptr || owner == nullptr) {
      // The loop is gone (it left the operation to free itself), or the io_context is being
      // destroyed with the operation queued (the loop frees it).
      if (fd >= 0) ::close(fd);
      if (op->loop_ == nullptr) delete op;
      return;
    }
    op->loop_->on_accept(op->ec_, fd);
  }
};

namespace {

asio::io_context::executor_type io_executor_of(asio::ip::tcp::acceptor& acceptor) {
  const auto* executor = acceptor.get_executor().target<asio::io_context::executor_type>();
  if (executor == nullptr) throw std::invalid_argument("AcceptLoop: not an io_context's acceptor");
  return *executor;
}

}  // namespace

AcceptLoop::AcceptLoop(asio::ip::tcp::acceptor& acceptor, std::string what, OnSocket on_socket)
    : acceptor_(acceptor),
      executor_(io_executor_of(acceptor)),
      what_(std::move(what)),
      on_socket_(std::move(on_socket)),
      retry_(acceptor.get_executor()),
      op_(new AcceptOp(this)) {}

AcceptLoop::~AcceptLoop() {
  if (op_->queued_) {
    op_->loop_ = nullptr;
  } else {
    delete op_;
  }
}

void AcceptLoop::start() {
  // accept4 on the listening socket must not block (Asio's async_accept does the same once).
  boost::system::error_code ignored;
  acceptor_.non_blocking(true, ignored);
  do_accept();
}

void AcceptLoop::stop() { retry_.cancel(); }

void AcceptLoop::do_accept() {
  asio_access::Implementation& listener = asio_access::implementation(acceptor_);
  op_->ec_ = {};
  op_->fd_ = -1;
  op_->listen_fd_ = listener.socket_;
  op_->queued_ = true;
  asio_access::reactor(acceptor_).start_op(asio::detail::reactor::read_op, listener.socket_,
                                           listener.reactor_data_, op_,
                                           /*is_continuation=*/false, /*allow_speculative=*/true);
}

void AcceptLoop::on_accept(const boost::system::error_code& ec, int fd) {
  if (ec == asio::error::operation_aborted || !acceptor_.is_open()) {
    if (fd >= 0) ::close(fd);
    return;
  }
  if (ec && is_resource_shortage(ec)) {
    ++backoffs_;
    if (!failing_) {
      std::cerr << "router: accept (" << what_ << "): " << describe_accept_error(ec) << "; waiting "
                << kAcceptRetryDelay.count()
                << " ms between tries, the connections wait in the listen queue\n";
      failing_ = true;
    }
    retry_.expires_after(kAcceptRetryDelay);
    retry_.async_wait([this](const boost::system::error_code& wait_ec) {
      if (!wait_ec && acceptor_.is_open()) do_accept();
    });
    return;
  }
  if (!ec) {
    if (failing_) {
      std::cerr << "router: accept (" << what_ << "): accepting again\n";
      failing_ = false;
    }
    Stream socket(executor_);
    boost::system::error_code assign_ec;
    socket.assign(asio_access::implementation(acceptor_).protocol_, fd, assign_ec);
    if (assign_ec) {
      ::close(fd);  // the reactor could not take it (no memory): that connection only
    } else {
      asio_access::mark_accepted_non_blocking(socket);
      on_socket_(std::move(socket));
    }
  }
  // Any other error (a connection reset while queued, ...) concerns that connection only.
  do_accept();
}

}  // namespace benchgate::router::net
