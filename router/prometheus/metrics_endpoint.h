// The router's optional Prometheus endpoint (--metrics-listen): serves /metrics from a fresh
// snapshot on every scrape, for users who scrape the system under test directly. Served by
// benchgate's HTTP listener (common/http_listener/http_listener.h, one thread for every
// connection), as the orchestrator's /metrics is: connections held open leave every scrape
// answered. (prometheus-cpp's Exposer served it before, with CivetWeb's 2 threads: 2 idle
// connections kept every scrape waiting.)
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/util/expected.h"
#include "router/metrics/snapshot.h"

namespace benchgate::http_listener {
class HttpListener;
}  // namespace benchgate::http_listener

namespace benchgate::router::prometheus_export {

class MetricsEndpoint {
 public:
  using SnapshotFn = std::function<metrics::Snapshot()>;

  // HOST:PORT (port 0 picks one; an IPv6 host in brackets, "[::1]:0"). An error naming the
  // flag, the address and the reason when it cannot listen.
  static Expected<std::unique_ptr<MetricsEndpoint>> start(const std::string& host_port,
                                                          SnapshotFn snapshot);
  // Stops serving (the listener's thread joined) before the snapshot function goes.
  ~MetricsEndpoint();

  uint16_t port() const { return port_; }

 private:
  MetricsEndpoint() = default;
  SnapshotFn snapshot_;
  std::unique_ptr<http_listener::HttpListener> listener_;
  uint16_t port_ = 0;
};

}  // namespace benchgate::router::prometheus_export
