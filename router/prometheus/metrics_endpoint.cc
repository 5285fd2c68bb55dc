// See metrics_endpoint.h.
#include "router/prometheus/metrics_endpoint.h"

#include <prometheus/collectable.h>
#include <prometheus/exposer.h>

#include <exception>

#include "common/net/listener_wakeup.h"
#include "router/prometheus/snapshot_families.h"

namespace benchgate::router::prometheus_export {
namespace {

class SnapshotCollectable : public prometheus::Collectable {
 public:
  explicit SnapshotCollectable(MetricsEndpoint::SnapshotFn snapshot)
      : snapshot_(std::move(snapshot)) {}
  std::vector<prometheus::MetricFamily> Collect() const override {
    return to_families(snapshot_());
  }

 private:
  MetricsEndpoint::SnapshotFn snapshot_;
};

}  // namespace

Expected<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::start(const std::string& host_port,
                                                                  SnapshotFn snapshot) {
  std::unique_ptr<MetricsEndpoint> endpoint(new MetricsEndpoint());
  endpoint->collectable_ = std::make_shared<SnapshotCollectable>(std::move(snapshot));
  const auto before = net::listening_sockets();  // to tell the Exposer's listeners apart
  try {
    endpoint->exposer_ = std::make_unique<prometheus::Exposer>(host_port, 1);
  } catch (const std::exception& e) {
    return Error{"--metrics-listen " + host_port + ": cannot listen (" + e.what() + ")"};
  }
  endpoint->exposer_->RegisterCollectable(endpoint->collectable_);
  const auto ports = endpoint->exposer_->GetListeningPorts();
  endpoint->listeners_ = net::opened_between(before, net::listening_sockets(), ports);
  if (ports.empty()) return Error{"--metrics-listen " + host_port + ": no listening port"};
  endpoint->port_ = static_cast<uint16_t>(ports.front());
  return endpoint;
}

MetricsEndpoint::~MetricsEndpoint() {
  // CivetWeb looks at its stop flag between polls of up to 2 s: woken, it stops at once.
  net::shut_down_listeners(listeners_);
}

}  // namespace benchgate::router::prometheus_export
