// prometheus-cpp's pull (civetweb) and push (curl) libraries behind exposition.h.
#include "orchestrator/metrics/exposition.h"

#include <prometheus/exposer.h>
#include <prometheus/gateway.h>
#include <prometheus/registry.h>
#include <unistd.h>

#include <exception>

#include "common/net/host_port.h"
#include "common/net/listener_wakeup.h"
#include "common/util/shown_text.h"
#include "orchestrator/app/listen_probe.h"
#include "orchestrator/metrics/civetweb_listen.h"

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
  // civetweb says only "null context when constructing CivetServer" when it cannot bind: the
  // address is checked first (HOST:PORT by the shared parser, IPv6 where civetweb takes it, a
  // bind the kernel allows), so the error names the reason in one line.
  if (auto why = why_http_cannot_listen("--metrics-listen", host_port)) return Error{*why};
  const net::HostPortSplit split = net::split_host_port(host_port, net::kListenMinPort);
  const auto before = net::listening_sockets();  // to tell the Exposer's listeners apart
  try {
    // More threads and a shorter request timeout than the Exposer's own (2 threads, civetweb's
    // 30 s): two idle connections blocked every scrape for 30 s (civetweb_listen.h).
    endpoint->exposer_ = std::make_unique<prometheus::Exposer>(http_listener_options(host_port));
  } catch (const std::exception&) {
    // Taken between the check and civetweb's bind: ask again for the reason.
    return Error{app::cannot_listen_message(
        "--metrics-listen", host_port,
        app::why_cannot_listen(host_port).value_or("the address could not be bound"))};
  }
  endpoint->exposer_->RegisterCollectable(endpoint->registry_);
  const auto ports = endpoint->exposer_->GetListeningPorts();
  endpoint->listeners_ = net::opened_between(before, net::listening_sockets(), ports);
  if (ports.empty()) return Error{"--metrics-listen " + host_port + ": no listening port"};
  endpoint->port_ = static_cast<uint16_t>(ports.front());
  endpoint->address_ = net::join_host_port(split.host, endpoint->port_);
  endpoint->url_ = "http://" + endpoint->address_ + "/metrics";
  return endpoint;
}

MetricsEndpoint::~MetricsEndpoint() {
  // CivetWeb looks at its stop flag between polls of up to 2 s: woken, it stops at once.
  net::shut_down_listeners(listeners_);
}

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
