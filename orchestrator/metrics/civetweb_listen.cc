// See civetweb_listen.h.
#include "orchestrator/metrics/civetweb_listen.h"

#include <civetweb.h>

#include "common/net/host_port.h"
#include "orchestrator/app/listen_probe.h"

namespace benchgate::metrics {

std::vector<std::string> http_listener_options(const std::string& host_port) {
  return {"listening_ports",    host_port,
          "num_threads",        std::to_string(kHttpThreads),
          "request_timeout_ms", std::to_string(kHttpRequestTimeoutMs)};
}

bool http_listener_takes_ipv6() {
  // mg_check_feature's bit 8: built with USE_IPV6.
  return mg_check_feature(8) != 0;
}

std::optional<std::string> why_http_cannot_listen(const std::string& flag,
                                                  const std::string& host_port) {
  const net::HostPortSplit split = net::split_host_port(host_port, net::kListenMinPort);
  if (!split.ok()) {
    return app::cannot_listen_message(
        flag, host_port,
        host_port.starts_with("unix:")
            ? "a Unix socket is not taken here, only HOST:PORT"
            : app::listen_address_reason(split, http_listener_takes_ipv6()));
  }
  if (split.ipv6 && !http_listener_takes_ipv6()) {
    return app::cannot_listen_message(
        flag, host_port,
        "an IPv6 host is not taken here: the CivetWeb library it is served with was built "
        "without IPv6; use an IPv4 address such as 127.0.0.1");
  }
  // CivetWeb says only that it could not bind: the kernel is asked first, so the error names
  // the reason (a port in use) in one line.
  if (auto reason = app::why_cannot_listen(host_port)) {
    return app::cannot_listen_message(flag, host_port, *reason);
  }
  return std::nullopt;
}

}  // namespace benchgate::metrics
