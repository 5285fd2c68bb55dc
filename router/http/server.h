// The router's HTTP/1.1 server: N serving threads on one port, and the domain API the control
// plane uses (metrics snapshot, reset, stop). Knows nothing of gRPC.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "common/util/expected.h"
#include "router/http/server_options.h"
#include "router/http/serving_thread.h"
#include "router/metrics/snapshot.h"

namespace benchgate::router::http {

class HttpServer {
 public:
  // Binds every serving thread (port 0: the first picks a port, the others join it) and
  // starts serving. The error names the address and the reason (e.g. address in use).
  static Expected<std::unique_ptr<HttpServer>> start(const ServerOptions& options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  const boost::asio::ip::tcp::endpoint& endpoint() const { return endpoint_; }
  int threads() const { return static_cast<int>(threads_.size()); }

  // Every counter and the handling histogram summed over the threads (each read on its own
  // thread), with the buffered-bytes budget and the process's CPU time and RSS.
  metrics::Snapshot snapshot();
  // Zeroes every counter (the budget's refusals too) and the histogram; the gauges stay.
  void reset_metrics();
  // Stops accepting, closes every connection and joins the threads. Idempotent.
  void stop();

 private:
  explicit HttpServer(const ServerOptions& options);
  // Runs fn on every serving thread (or directly once stopped) and waits for all of them.
  void for_each_thread_stats(const std::function<void(metrics::ThreadStats&)>& fn);

  const ServerOptions options_;
  boost::asio::ip::tcp::endpoint endpoint_;
  std::vector<std::unique_ptr<ServingThread>> threads_;
  // Serialises snapshot, reset and stop, so that no work is posted to a finished thread.
  std::mutex control_mutex_;
  bool stopped_ = false;
};

}  // namespace benchgate::router::http
