// See dial_address.h.
#include "orchestrator/scenario/dial_address.h"

#include <arpa/inet.h>

#include <charconv>
#include <string>

#include "common/util/shown_text.h"

namespace benchgate::scenario {
namespace {

constexpr std::string_view kDns = "dns:";
constexpr std::string_view kUnix = "unix:";

// A character no host name, IPv4 address or port has: blanks and control characters, and
// what would make the address a URL or a list ("/", "@", "?", "#", ",").
bool foreign(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u <= 0x20 || u == 0x7f || std::string_view("/@?#,\\").find(c) != std::string_view::npos;
}

// Why `host` (of HOST:PORT; of dns:NAME:PORT when `name_only`) is not one, or "".
std::string host_problem(std::string_view host, bool name_only) {
  if (host.empty()) return name_only ? "its NAME is empty" : "its HOST is empty";
  for (char c : host) {
    if (foreign(c)) return "its host has a character no host name has";
  }
  const bool bracketed = host.front() == '[' || host.back() == ']';
  if (bracketed) {
    if (name_only) return "its NAME is a host name to resolve, not a bracketed address";
    if (host.size() < 3 || host.front() != '[' || host.back() != ']') {
      return "its [IPv6] host is not bracketed on both sides";
    }
    // An IPv6 address, with any zone after '%' ("[fe80::1%eth0]").
    const std::string_view inside = host.substr(1, host.size() - 2);
    const std::string address(inside.substr(0, inside.find('%')));
    in6_addr ignored{};
    if (::inet_pton(AF_INET6, address.c_str(), &ignored) != 1) {
      return "'" + shown_text(inside) + "' in brackets is not an IPv6 address";
    }
    return "";
  }
  if (host.find_first_of(":[]") != std::string_view::npos) {
    return name_only ? "its NAME has a ':'"
                     : "an IPv6 host is written in brackets, as in \"[::1]:7700\"";
  }
  return "";
}

// Why `port` is not a port of 1 to 65535, or "".
std::string port_problem(std::string_view port) {
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (!port.empty() && ec == std::errc() && end == port.data() + port.size() && value >= 1 &&
      value <= 65535) {
    return "";
  }
  return "its port '" + shown_text(port) + "' is not a number from 1 to 65535";
}

// Why `address` (without its dns: prefix when `name_only`) is not HOST:PORT, or "".
std::string host_port_problem(std::string_view address, bool name_only) {
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos) return "it has no :PORT";
  if (std::string problem = host_problem(address.substr(0, colon), name_only); !problem.empty()) {
    return problem;
  }
  return port_problem(address.substr(colon + 1));
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
