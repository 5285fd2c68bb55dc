// See listen_address.h.
#include "orchestrator/http_listener/listen_address.h"

#include "common/http_listener/listener_options.h"
#include "common/net/host_port.h"
#include "orchestrator/app/listen_probe.h"

namespace benchgate::http_listener {

std::optional<std::string> why_http_cannot_listen(const std::string& flag,
                                                  const std::string& host_port) {
  const net::HostPortSplit split = net::split_host_port(host_port, net::kListenMinPort);
  if (!split.ok()) {
    return app::cannot_listen_message(
        flag, host_port,
        host_port.starts_with("unix:") ? kUnixSocketRefused : app::listen_address_reason(split));
  }
  // The kernel is asked first, so that the error names the reason (a port in use) in one line.
  if (auto reason = app::why_cannot_listen(host_port)) {
    return app::cannot_listen_message(flag, host_port, *reason);
  }
  return std::nullopt;
}

}  // namespace benchgate::http_listener
