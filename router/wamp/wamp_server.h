// The WAMP router: one serving thread with its own io_context, a WebSocket listener and a
// RawSocket listener, and the routing state (WampCore) every session on them shares. One
// thread, because routing state shared by all sessions then needs no locks; the HTTP server's
// --threads do not apply here. Knows nothing of gRPC: the control plane reads metrics through
// add_metrics() and reset_metrics().
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "common/util/expected.h"
#include "router/metrics/snapshot.h"
#include "router/metrics/wamp_counters.h"
#include "router/net/accept_loop.h"
#include "router/wamp/connection.h"
#include "router/wamp/core.h"
#include "router/wamp/options.h"

namespace benchgate::router::wamp {

class WampServer {
 public:
  // Binds both listeners and starts serving. The error names the transport, the address and
  // the reason (e.g. address in use).
  static Expected<std::unique_ptr<WampServer>> start(const WampOptions& options);
  ~WampServer();
  WampServer(const WampServer&) = delete;
  WampServer& operator=(const WampServer&) = delete;

  uint16_t websocket_port() const { return websocket_port_; }
  uint16_t rawsocket_port() const { return rawsocket_port_; }

  // Copies the WAMP counters and gauges into `snapshot` (read on the serving thread).
  void add_metrics(metrics::Snapshot& snapshot);
  // The dealer's call deadlines now (read on the serving thread; router/wamp/dealer.h): for
  // tests that check ended calls leave none behind.
  size_t call_deadlines_held();
  // The calls pending in the dealer now, as --max-pending-calls counts them (read on the
  // serving thread): for tests that check ended calls give their place back.
  uint64_t calls_pending();
  // Zeroes the WAMP counters; the gauges stay.
  void reset_metrics();
  // Stops accepting, closes every connection and joins the thread. Idempotent.
  void stop();

 private:
  explicit WampServer(const WampOptions& options);
  Expected<void> listen(boost::asio::ip::tcp::acceptor& acceptor,
                        const boost::asio::ip::tcp::endpoint& endpoint, const char* what);
  void on_socket(net::Stream socket, metrics::WampTransport transport);
  // Runs fn on the serving thread (or here once stopped) and waits for it.
  void on_thread(const std::function<void()>& fn);

  const WampOptions options_;
  // Declared before the io_context: connections still queued in it are destroyed with it and
  // leave their realms (core) and update the gauges (stats) on the way out.
  metrics::WampStats stats_;
  WampCore core_;
  ConnectionList connections_;
  boost::asio::io_context io_context_;
  boost::asio::ip::tcp::acceptor websocket_acceptor_;
  boost::asio::ip::tcp::acceptor rawsocket_acceptor_;
  net::AcceptLoop websocket_accept_loop_;
  net::AcceptLoop rawsocket_accept_loop_;
  uint16_t websocket_port_ = 0;
  uint16_t rawsocket_port_ = 0;
  std::thread thread_;
  std::mutex control_mutex_;
  bool stopped_ = false;
};

}  // namespace benchgate::router::wamp
