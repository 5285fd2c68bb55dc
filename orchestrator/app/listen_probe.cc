// See listen_probe.h.
#include "orchestrator/app/listen_probe.h"

#include <netdb.h>

#include <string>

#include "common/net/bind_trial.h"
#include "common/net/host_port.h"
#include "common/util/errno_text.h"

namespace benchgate::app {

std::optional<std::string> why_cannot_listen(const std::string& host_port) {
  if (host_port.starts_with("unix:")) return std::nullopt;
  // The split every benchgate address is read by (common/net/host_port.h): ":7700" (every
  // interface to getaddrinfo) and "::1:7700" (host "::1" to a split at the last ':') are
  // refused, as the worker's and the router's listen flags refuse them. A port past 65535,
  // which the kernel would bind modulo 65536 (99999 as 34463), too.
  const net::HostPortSplit split = net::split_host_port(host_port, net::kListenMinPort);
  if (!split.ok()) return listen_address_reason(split);
  // Bound as the servers bind (net::try_binding: SO_REUSEADDR, so a socket in TIME_WAIT does
  // not block; no SO_REUSEPORT, so a listening socket does). Free when every address the host
  // resolves to binds (localhost: 127.0.0.1 and ::1), as the HTTP listener listens on each,
  // passing over one this machine lacks (net::BindTrial::refusal): a port held on one of them
  // is in use, whichever comes first.
  const net::BindTrial trial = net::try_binding(split.host, split.port);
  if (trial.resolve_error != 0) return lowercase_first(::gai_strerror(trial.resolve_error));
  if (const int error = trial.refusal(); error != 0) return errno_text(error);
  return std::nullopt;
}

std::string listen_address_reason(const net::HostPortSplit& split, bool takes_ipv6) {
  if (split.problem != net::HostPortProblem::kEmptyHost) return split.reason;
  return split.reason + " (give 127.0.0.1:PORT for this machine only, " +
         (takes_ipv6 ? "0.0.0.0:PORT or [::]:PORT" : "0.0.0.0:PORT") + " for every interface)";
}

std::string cannot_listen_message(const std::string& flag, const std::string& host_port,
                                  const std::string& reason) {
  return flag + " " + host_port + ": cannot listen: " + reason;
}

std::optional<std::string> listeners_on_one_port(
    const std::vector<std::pair<const char*, std::string>>& listeners) {
  for (size_t later = 1; later < listeners.size(); ++later) {
    for (size_t earlier = 0; earlier < later; ++earlier) {
      const auto& [flag_a, address_a] = listeners[earlier];
      const auto& [flag_b, address_b] = listeners[later];
      const net::HostPortSplit a = net::split_host_port(address_a, net::kListenMinPort);
      const net::HostPortSplit b = net::split_host_port(address_b, net::kListenMinPort);
      if (!a.ok() || !b.ok() || a.port == 0 || a.port != b.port) continue;
      // By address, not as spelled: "localhost" and "127.0.0.1" are one.
      if (!net::hosts_share_an_address(a.host, b.host)) continue;
      return std::string(flag_b) + " " + address_b + ": the port of " + flag_a + " " + address_a +
             "; give each listener a port of its own";
    }
  }
  return std::nullopt;
}

}  // namespace benchgate::app
