// /metrics on the orchestrator's HTTP listener, and prometheus-cpp's push (curl) library,
// behind exposition.h.
#include "orchestrator/metrics/exposition.h"

#include <prometheus/gateway.h>
#include <prometheus/registry.h>
#include <unistd.h>

#include <exception>

#include "common/http_listener/http_listener.h"
#include "common/http_listener/metrics_page.h"
#include "common/net/host_port.h"
#include "common/util/shown_text.h"
#include "orchestrator/http_listener/listen_address.h"

namespace benchgate::metrics {
namespace {

struct GatewayAddress {
  std::string scheme_and_host;  // "http://HOST"
  std::string port;
};

Expected<GatewayAddress> parse_gateway_url(const std::string& url) {
  const std::string bad = "--pushgateway '" + shown_text(url) + "': expected http://HOST:PORT";
  std::string rest;
  std::string scheme;
  for (const char* s : {"http://", "https://"}) {
    if (url.rfind(s, 0) == 0) {
      scheme = s;
      rest = url.substr(scheme.size());
    }
  }
  if (scheme.empty()) return Error{bad};
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  // HOST:PORT by the rule every benchgate address is split by (common/net/host_port.h): a port
  // of 1 to 65535, an IPv6 host in brackets, no path (the gateway's is the library's).
  const net::HostPortSplit split = net::split_host_port(rest, net::kDialMinPort);
  if (!split.ok()) return Error{bad + ": " + split.reason};
  return GatewayAddress{scheme + (split.ipv6 ? "[" + split.host + "]" : split.host),
                        std::to_string(split.port)};
}

}  // namespace

Expected<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::start(
    const std::string& host_port, std::shared_ptr<prometheus::Registry> registry) {
  std::unique_ptr<MetricsEndpoint> endpoint(new MetricsEndpoint());
  endpoint->registry_ = std::move(registry);
  // The address is checked first (HOST:PORT by the shared parser, a bind the kernel allows),
  // so that the error names the reason in one line.
  if (auto why = http_listener::why_http_cannot_listen("--metrics-listen", host_port)) {
    return Error{*why};
  }
  prometheus::Registry& served = *endpoint->registry_;
  auto listener = http_listener::HttpListener::start(
      "--metrics-listen", host_port, [&served](const http_listener::Request& request) {
        return http_listener::metrics_page(request, [&served] { return served.Collect(); });
      });
  if (!listener) return listener.error();
  endpoint->listener_ = std::move(*listener);
  endpoint->port_ = endpoint->listener_->port();
  endpoint->address_ = endpoint->listener_->address();
  endpoint->url_ = "http://" + endpoint->address_ + "/metrics";
  return endpoint;
}

// The listener stops (its thread joined) before the registry it serves goes.
MetricsEndpoint::~MetricsEndpoint() { listener_.reset(); }

Expected<void> validate_gateway_url(const std::string& url) {
  auto address = parse_gateway_url(url);
  if (!address) return address.error();
  return {};
}

Expected<void> push_to_gateway(const std::string& url,
                               const std::shared_ptr<prometheus::Registry>& registry) {
  auto address = parse_gateway_url(url);
  if (!address) return address.error();
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  try {
    prometheus::Gateway gateway(address->scheme_and_host, address->port, "benchgate",
                                prometheus::Gateway::GetInstanceLabel(host));
    gateway.RegisterCollectable(registry);
    const int status = gateway.Push();
    if (status < 200 || status >= 300) {
      return Error{"pushing metrics to " + url + " failed" +
                   (status < 0 ? std::string(" (no connection)")
                               : " (HTTP " + std::to_string(status) + ")")};
    }
  } catch (const std::exception& e) {
    return Error{"pushing metrics to " + url + " failed: " + e.what()};
  }
  return {};
}

}  // namespace benchgate::metrics
