// HOST:PORT parsing and formatting (see host_port.h).
#include "router/app/host_port.h"

#include "common/net/host_port.h"
#include "common/util/shown_text.h"

namespace benchgate::router::app {

Expected<HostPort> parse_host_port(std::string_view text) {
  // The rule every address benchgate reads is split by: an IPv6 host in brackets ("::1:80" is
  // refused, not read as [::1]:80), a host of the characters of a name or an address.
  const net::HostPortSplit split = net::split_host_port(text, net::kListenMinPort);
  if (split.ok()) return HostPort{split.host, split.port};
  std::string why;
  switch (split.problem) {
    case net::HostPortProblem::kNoPort:
      why = "missing ':PORT'";
      break;
    case net::HostPortProblem::kEmptyHost:
      why = "empty host";
      break;
    case net::HostPortProblem::kBadPort:
      why = "port must be a number from 0 to 65535";
      break;
    default:
      why = split.reason;
  }
  std::string message = "'";
  message.append(shown_text(text)).append("' is not HOST:PORT: ").append(why);
  return Error{message};
}

std::string format_host_port(const std::string& host, uint16_t port) {
  return net::join_host_port(host, port);
}

}  // namespace benchgate::router::app
