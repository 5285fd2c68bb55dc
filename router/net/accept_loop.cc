// The router's accept loop (see accept_loop.h).
#include "router/net/accept_loop.h"

#include <sys/resource.h>

#include <cerrno>
#include <iostream>

namespace benchgate::router::net {
namespace {

namespace asio = boost::asio;

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

AcceptLoop::AcceptLoop(asio::ip::tcp::acceptor& acceptor, std::string what, OnSocket on_socket)
    : acceptor_(acceptor),
      what_(std::move(what)),
      on_socket_(std::move(on_socket)),
      retry_(acceptor.get_executor()) {}

void AcceptLoop::start() { do_accept(); }

void AcceptLoop::stop() { retry_.cancel(); }

void AcceptLoop::do_accept() {
  acceptor_.async_accept([this](const boost::system::error_code& ec, asio::ip::tcp::socket socket) {
    on_accept(ec, std::move(socket));
  });
}

void AcceptLoop::on_accept(const boost::system::error_code& ec, asio::ip::tcp::socket socket) {
  if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
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
    on_socket_(std::move(socket));
  }
  // Any other error (a connection reset while queued, ...) concerns that connection only.
  do_accept();
}

}  // namespace benchgate::router::net
