// See dial_address.h.
#include "orchestrator/scenario/dial_address.h"

#include <string>

#include "common/net/host_port.h"
#include "common/util/shown_text.h"

namespace benchgate::scenario {
namespace {

constexpr std::string_view kDns = "dns:";
constexpr std::string_view kUnix = "unix:";

// Why `address` (without its dns: prefix when `name_only`) is not HOST:PORT, or "": the split
// every benchgate address is read by (common/net/host_port.h), in the words of a NAME for
// dns:NAME:PORT.
std::string host_port_problem(std::string_view address, bool name_only) {
  const net::HostPortSplit split = net::split_host_port(address, net::kDialMinPort);
  if (!name_only) return split.reason;
  switch (split.problem) {
    case net::HostPortProblem::kNone:
      return split.ipv6 ? "its NAME is a host name to resolve, not a bracketed address" : "";
    case net::HostPortProblem::kEmptyHost:
      return "its NAME is empty";
    case net::HostPortProblem::kHalfBracketed:
    case net::HostPortProblem::kNotIpv6:
      return "its NAME is a host name to resolve, not a bracketed address";
    case net::HostPortProblem::kUnbracketedIpv6:
      return "its NAME has a ':'";
    default:
      return split.reason;
  }
}

std::string forms_taken(DialForms forms) {
  std::string text = "HOST:PORT with a port of 1 to 65535 (\"127.0.0.1:7700\", \"[::1]:7700\")";
  if (forms.dns_name && forms.unix_path) return text + ", dns:NAME:PORT or unix:PATH";
  if (forms.dns_name) return text + " or dns:NAME:PORT";
  if (forms.unix_path) return text + " or unix:PATH";
  return text;
}

std::string problem_of(std::string_view address, DialForms forms) {
  if (address.empty()) return "it is empty";
  if (address.starts_with(kUnix)) {
    if (!forms.unix_path) return "a unix:PATH is not taken here (this connects over TCP)";
    return address.size() > kUnix.size() ? "" : "it names no PATH after unix:";
  }
  if (address.starts_with(kDns)) {
    if (!forms.dns_name) return "a dns:NAME:PORT is not taken here";
    return host_port_problem(address.substr(kDns.size()), true);
  }
  return host_port_problem(address, false);
}

}  // namespace

Expected<void> check_dial_address(std::string_view what, std::string_view address,
                                  DialForms forms) {
  const std::string problem = problem_of(address, forms);
  if (problem.empty()) return {};
  return Error{std::string(what) + " '" + shown_text(address) +
               "' is not an address to connect to: " + problem + "; expected " +
               forms_taken(forms)};
}

}  // namespace benchgate::scenario
