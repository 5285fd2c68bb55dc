// One serving thread: its own io_context, its own acceptor (SO_REUSEPORT when there are
// several, so the kernel spreads connections), its sessions and its metrics. Nothing here is
// shared with other threads; the control plane reaches the metrics by posting to run_on().
#pragma once

#include <cstdint>
#include <functional>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "common/util/expected.h"
#include "router/http/deadline_wheel.h"
#include "router/http/read_hold.h"
#include "router/http/server_options.h"
#include "router/http/session.h"
#include "router/metrics/thread_stats.h"
#include "router/net/accept_loop.h"

namespace benchgate::router::http {

class ServingThread {
 public:
  explicit ServingThread(const ServerOptions& options);
  ~ServingThread();
  ServingThread(const ServingThread&) = delete;
  ServingThread& operator=(const ServingThread&) = delete;

  // Opens, binds and listens. Call before start().
  Expected<void> listen(const boost::asio::ip::tcp::endpoint& endpoint, bool reuse_port);
  uint16_t port() const;

  // Starts accepting on a new thread.
  void start();
  // Stops accepting and closes every connection; the thread ends when they are gone.
  void request_stop();
  void join();

  // Runs `fn` with this thread's metrics, on this thread (or here, when it does not run).
  void post(std::function<void(metrics::ThreadStats&)> fn);
  // Direct access, only while the thread does not run.
  metrics::ThreadStats& stats_when_stopped() { return stats_; }

 private:
  void on_socket(net::Stream socket);

  const ServerOptions& options_;
  // Declared before the io_context: sessions still queued in it are destroyed with it and
  // update these on the way out.
  metrics::ThreadStats stats_;
  // What every session of the thread refers to (so also declared before the io_context); its
  // poller is set with --http-io epoll on a cleartext port (the thread's edge-triggered
  // readiness set, an io_context service).
  SessionContext context_;
  boost::asio::io_context io_context_;
  // The cleartext sessions holding their read buffer between requests (--read-buffer-hold).
  ReadHolds read_holds_;
  // Every session's deadlines, under one timer (router/http/deadline_wheel.h).
  DeadlineWheel deadlines_;
  boost::asio::ip::tcp::acceptor acceptor_;
  net::AcceptLoop accept_loop_;
  std::thread thread_;
};

}  // namespace benchgate::router::http
