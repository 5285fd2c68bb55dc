// Getting the metrics out of the process: an HTTP endpoint Prometheus scrapes (/metrics) and
// a one-off push to a Prometheus Pushgateway.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/util/expected.h"

namespace prometheus {
class Registry;
}  // namespace prometheus

namespace benchgate::http_listener {
class HttpListener;
}  // namespace benchgate::http_listener

namespace benchgate::metrics {

// Serves a registry at http://HOST:PORT/metrics until destroyed (benchgate's HTTP
// listener, common/http_listener/http_listener.h).
class MetricsEndpoint {
 public:
  // HOST:PORT (port 0 picks a free one; an IPv6 host in brackets, [::1]:PORT). An error
  // naming --metrics-listen, the address and the reason when it cannot listen.
  static Expected<std::unique_ptr<MetricsEndpoint>> start(
      const std::string& host_port, std::shared_ptr<prometheus::Registry> registry);
  ~MetricsEndpoint();

  uint16_t port() const { return port_; }
  // "http://HOST:PORT/metrics", for log lines.
  const std::string& url() const { return url_; }
  // "HOST:PORT" with the port actually bound.
  const std::string& address() const { return address_; }

 private:
  MetricsEndpoint() = default;
  std::shared_ptr<prometheus::Registry> registry_;
  std::unique_ptr<http_listener::HttpListener> listener_;
  uint16_t port_ = 0;
  std::string url_;
  std::string address_;
};

// Replaces the group job="benchgate",instance=<hostname> on the Pushgateway at `url`
// (http://HOST:PORT) with the registry's current values.
Expected<void> push_to_gateway(const std::string& url,
                               const std::shared_ptr<prometheus::Registry>& registry);

// Checks a Pushgateway URL without contacting it (the run refuses a bad one before starting).
Expected<void> validate_gateway_url(const std::string& url);

}  // namespace benchgate::metrics
