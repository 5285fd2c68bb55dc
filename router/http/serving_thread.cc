// A serving thread's accept loop and lifecycle (see serving_thread.h).
#include "router/http/serving_thread.h"

#include <sys/socket.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <sstream>

#include <boost/asio/post.hpp>
#include <boost/asio/socket_base.hpp>

#include "router/http2/connection.h"

namespace benchgate::router::http {
namespace {

namespace asio = boost::asio;
using ReusePort = asio::detail::socket_option::boolean<SOL_SOCKET, SO_REUSEPORT>;

std::string describe(const asio::ip::tcp::endpoint& endpoint) {
  std::ostringstream out;
  out << endpoint;  // Asio writes "[v6]:port" and "v4:port"
  return out.str();
}

}  // namespace

ServingThread::ServingThread(const ServerOptions& options)
    : options_(options),
      // The read holds and the deadlines are declared (and made) after the context: only
      // their addresses are taken here.
      context_(options, stats_, read_holds_, deadlines_),
      // One thread runs this io_context and every socket and timer of it is only touched from
      // that thread (other threads only post()), so Asio may drop its per-descriptor locks;
      // the scheduler lock that post() needs stays on.
      io_context_(BOOST_ASIO_CONCURRENCY_HINT_UNSAFE_IO),
      read_holds_(io_context_.get_executor(), options.read_buffer_hold_ns, stats_.read_buffers_held,
                  &Session<net::Stream>::release_held),
      deadlines_(io_context_.get_executor(),
                 DeadlineWheel::tick_for(SessionContext::check_interval_for(options)),
                 &SessionBase::on_due),
      acceptor_(io_context_),
      accept_loop_(acceptor_, "HTTP",
                   [this](net::Stream socket) { on_socket(std::move(socket)); }) {
  if (options.http_io == ServerOptions::Io::kEpoll && !options.tls_context) {
    context_.poller = &asio::use_service<::benchgate::net::ReadinessPoller>(io_context_);
  }
}

ServingThread::~ServingThread() {
  if (thread_.joinable()) {
    request_stop();
    join();
  }
}

Expected<void> ServingThread::listen(const asio::ip::tcp::endpoint& endpoint, bool reuse_port) {
  boost::system::error_code ec;
  const auto fail = [&](const char* what) {
    return Error{"cannot listen for HTTP on " + describe(endpoint) + ": " + what + ": " +
                 ec.message()};
  };
  acceptor_.open(endpoint.protocol(), ec);
  if (ec) return fail("open");
  acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (ec) return fail("SO_REUSEADDR");
  if (reuse_port) {
    acceptor_.set_option(ReusePort(true), ec);
    if (ec) return fail("SO_REUSEPORT");
  }
  acceptor_.bind(endpoint, ec);
  if (ec) return fail("bind");
  acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return fail("listen");
  return {};
}

uint16_t ServingThread::port() const {
  boost::system::error_code ec;
  return acceptor_.local_endpoint(ec).port();
}

void ServingThread::start() {
  accept_loop_.start();
  thread_ = std::thread([this] { io_context_.run(); });
}

void ServingThread::request_stop() {
  asio::post(io_context_, [this] {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    accept_loop_.stop();
    read_holds_.stop();
    // Every open session is in the wheel; closing one takes it out for good.
    const auto close = [](DeadlineEntry& entry) { static_cast<SessionBase&>(entry).close(); };
    deadlines_.drain(close);
    while (!context_.handed_over.empty()) {
      DeadlineEntry& entry = context_.handed_over.front();
      context_.handed_over.pop_front();
      static_cast<http2::ConnectionBase&>(entry).close();
    }
    deadlines_.stop();
    // Its wait would keep run() going; the sessions it reported are closed.
    if (context_.poller != nullptr) context_.poller->stop();
  });
}

void ServingThread::join() {
  if (thread_.joinable()) thread_.join();
}

void ServingThread::post(std::function<void(metrics::ThreadStats&)> fn) {
  asio::post(io_context_, [this, fn = std::move(fn)] { fn(stats_); });
}

void ServingThread::on_socket(net::Stream socket) {
  ++stats_.counters.connections_accepted;
  if (options_.tls_context) {
    auto session = std::make_shared<Session<net::TlsStream>>(
        net::TlsStream(std::move(socket), *options_.tls_context), context_);
    session->start(session);
    return;
  }
  auto session = std::make_shared<Session<net::Stream>>(std::move(socket), context_);
  session->start(session);
}

}  // namespace benchgate::router::http
