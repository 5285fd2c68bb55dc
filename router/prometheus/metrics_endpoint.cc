// See metrics_endpoint.h.
#include "router/prometheus/metrics_endpoint.h"

#include <utility>

#include "common/http_listener/http_listener.h"
#include "common/http_listener/metrics_page.h"
#include "router/prometheus/snapshot_families.h"

namespace benchgate::router::prometheus_export {

Expected<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::start(const std::string& host_port,
                                                                  SnapshotFn snapshot) {
  std::unique_ptr<MetricsEndpoint> endpoint(new MetricsEndpoint());
  endpoint->snapshot_ = std::move(snapshot);
  const SnapshotFn& taken = endpoint->snapshot_;
  auto listener = http_listener::HttpListener::start(
      "--metrics-listen", host_port, [&taken](const http_listener::Request& request) {
        return http_listener::metrics_page(request, [&taken] { return to_families(taken()); });
      });
  if (!listener) return listener.error();
  endpoint->listener_ = std::move(*listener);
  endpoint->port_ = endpoint->listener_->port();
  return endpoint;
}

MetricsEndpoint::~MetricsEndpoint() { listener_.reset(); }

}  // namespace benchgate::router::prometheus_export
