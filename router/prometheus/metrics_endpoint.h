// The router's optional Prometheus endpoint (--metrics-listen): serves /metrics from a fresh
// snapshot on every scrape, for users who scrape the system under test directly.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/util/expected.h"
#include "router/metrics/snapshot.h"

namespace prometheus {
class Exposer;
class Collectable;
}  // namespace prometheus

namespace benchgate::router::prometheus_export {

class MetricsEndpoint {
 public:
  using SnapshotFn = std::function<metrics::Snapshot()>;

  // HOST:PORT (port 0 picks one). An error naming the flag when it cannot listen.
  static Expected<std::unique_ptr<MetricsEndpoint>> start(const std::string& host_port,
                                                          SnapshotFn snapshot);
  ~MetricsEndpoint();

  uint16_t port() const { return port_; }

 private:
  MetricsEndpoint() = default;
  std::shared_ptr<prometheus::Collectable> collectable_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  // The listening sockets the Exposer opened (common/net/listener_wakeup.h), shut down first
  // when it stops.
  std::vector<ino_t> listeners_;
  uint16_t port_ = 0;
};

}  // namespace benchgate::router::prometheus_export
