// The WAMP serving thread, its listeners and its control-plane view (see wamp_server.h).
#include "router/wamp/wamp_server.h"

#include <functional>
#include <latch>
#include <sstream>

#include <boost/asio/post.hpp>

#include "router/wamp/rawsocket_connection.h"
#include "router/wamp/websocket_connection.h"

namespace benchgate::router::wamp {
namespace {

namespace asio = boost::asio;

std::string describe(const asio::ip::tcp::endpoint& endpoint) {
  std::ostringstream out;
  out << endpoint;
  return out.str();
}

}  // namespace

WampServer::WampServer(const WampOptions& options)
    : options_(options),
      core_(options_, stats_),
      io_context_(1),
      websocket_acceptor_(io_context_),
      rawsocket_acceptor_(io_context_),
      websocket_accept_loop_(websocket_acceptor_, "WebSocket",
                             [this](net::Stream socket) {
                               on_socket(std::move(socket), metrics::WampTransport::websocket);
                             }),
      rawsocket_accept_loop_(rawsocket_acceptor_, "RawSocket", [this](net::Stream socket) {
        on_socket(std::move(socket), metrics::WampTransport::rawsocket);
      }) {
  core_.dealer().use_executor(io_context_.get_executor());
  core_.setup_deadlines().use_executor(io_context_.get_executor());
}

WampServer::~WampServer() { stop(); }

Expected<std::unique_ptr<WampServer>> WampServer::start(const WampOptions& options) {
  std::unique_ptr<WampServer> server(new WampServer(options));
  auto ws = server->listen(server->websocket_acceptor_, options.websocket, "WebSocket");
  if (!ws) return ws.error();
  auto raw = server->listen(server->rawsocket_acceptor_, options.rawsocket, "RawSocket");
  if (!raw) return raw.error();
  boost::system::error_code ec;
  server->websocket_port_ = server->websocket_acceptor_.local_endpoint(ec).port();
  server->rawsocket_port_ = server->rawsocket_acceptor_.local_endpoint(ec).port();
  server->websocket_accept_loop_.start();
  server->rawsocket_accept_loop_.start();
  WampServer* raw_server = server.get();
  server->thread_ = std::thread([raw_server] { raw_server->io_context_.run(); });
  return server;
}

Expected<void> WampServer::listen(asio::ip::tcp::acceptor& acceptor,
                                  const asio::ip::tcp::endpoint& endpoint, const char* what) {
  boost::system::error_code ec;
  const auto fail = [&](const char* step) {
    return Error{std::string("cannot listen for ") + what + " on " + describe(endpoint) + ": " +
                 step + ": " + ec.message()};
  };
  acceptor.open(endpoint.protocol(), ec);
  if (ec) return fail("open");
  acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (ec) return fail("SO_REUSEADDR");
  acceptor.bind(endpoint, ec);
  if (ec) return fail("bind");
  acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return fail("listen");
  return {};
}

void WampServer::on_socket(net::Stream socket, metrics::WampTransport transport) {
  ++stats_.counters.connections_accepted[static_cast<size_t>(transport)];
  boost::system::error_code ignored;
  socket.set_option(asio::ip::tcp::no_delay(true), ignored);
  std::shared_ptr<Connection> connection;
  const bool websocket = transport == metrics::WampTransport::websocket;
  const auto& tls = websocket ? options_.websocket_tls : options_.rawsocket_tls;
  if (tls && websocket) {
    connection = std::make_shared<WebSocketConnection<net::TlsStream>>(
        net::TlsStream(std::move(socket), *tls), core_);
  } else if (tls) {
    connection = std::make_shared<RawSocketConnection<net::TlsStream>>(
        net::TlsStream(std::move(socket), *tls), core_);
  } else if (websocket) {
    connection = std::make_shared<WebSocketConnection<net::Stream>>(std::move(socket), core_);
  } else {
    connection = std::make_shared<RawSocketConnection<net::Stream>>(std::move(socket), core_);
  }
  connections_.push_back(*connection);
  connection->start();
}

void WampServer::on_thread(const std::function<void()>& fn) {
  if (stopped_) return fn();
  std::latch done(1);
  asio::post(io_context_, [&] {
    fn();
    done.count_down();
  });
  done.wait();
}

void WampServer::add_metrics(metrics::Snapshot& snapshot) {
  std::lock_guard lock(control_mutex_);
  on_thread([&] {
    snapshot.wamp_present = true;
    snapshot.wamp = stats_.counters;
    snapshot.wamp_sessions = stats_.sessions;
    snapshot.wamp_connections_open = stats_.connections_open;
    snapshot.tls[static_cast<size_t>(metrics::TlsListener::websocket)].add(
        stats_.tls[static_cast<size_t>(metrics::WampTransport::websocket)]);
    snapshot.tls[static_cast<size_t>(metrics::TlsListener::rawsocket)].add(
        stats_.tls[static_cast<size_t>(metrics::WampTransport::rawsocket)]);
  });
}

size_t WampServer::call_deadlines_held() {
  std::lock_guard lock(control_mutex_);
  size_t held = 0;
  on_thread([&] { held = core_.dealer().call_deadlines_held(); });
  return held;
}

uint64_t WampServer::calls_pending() {
  std::lock_guard lock(control_mutex_);
  uint64_t pending = 0;
  on_thread([&] { pending = core_.dealer().calls_pending(); });
  return pending;
}

void WampServer::reset_metrics() {
  std::lock_guard lock(control_mutex_);
  on_thread([&] { stats_.reset(); });
}

void WampServer::stop() {
  std::lock_guard lock(control_mutex_);
  if (stopped_) return;
  stopped_ = true;
  asio::post(io_context_, [this] {
    boost::system::error_code ignored;
    websocket_acceptor_.close(ignored);
    rawsocket_acceptor_.close(ignored);
    websocket_accept_loop_.stop();
    rawsocket_accept_loop_.stop();
    for (Connection& connection : connections_) connection.shutdown();
    core_.dealer().stop_timers();
    core_.setup_deadlines().stop();
  });
  if (thread_.joinable()) thread_.join();
  core_.dealer().release_timers();
  core_.setup_deadlines().release();
}

}  // namespace benchgate::router::wamp
