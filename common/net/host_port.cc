// See host_port.h.
#include "common/net/host_port.h"

#include <arpa/inet.h>

#include <string>
#include <utility>

#include "common/util/shown_text.h"

namespace benchgate::net {
namespace {

// A character of a host name (letters, digits, '-', '_': the last in names such as
// containers' and SRV labels) or of an IPv4 address ('.', digits).
bool name_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '-' || c == '_';
}

HostPortSplit refused(HostPortProblem problem, std::string reason) {
  HostPortSplit out;
  out.problem = problem;
  out.reason = std::move(reason);
  return out;
}

// An IPv6 address with an optional zone after '%' (a zone is a name: "eth0", "3").
bool ipv6_literal(std::string_view inside) {
  const size_t percent = inside.find('%');
  if (percent != std::string_view::npos) {
    const std::string_view zone = inside.substr(percent + 1);
    if (zone.empty()) return false;
    for (char c : zone) {
      if (!name_character(c)) return false;
    }
  }
  const std::string address(inside.substr(0, percent));
  in6_addr ignored{};
  return ::inet_pton(AF_INET6, address.c_str(), &ignored) == 1;
}

}  // namespace

HostPortSplit split_host_port(std::string_view text, uint16_t min_port) {
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return refused(HostPortProblem::kNoPort, "it has no :PORT");
  const std::string_view host = text.substr(0, colon);
  const std::string_view port_text = text.substr(colon + 1);
  if (host.empty()) return refused(HostPortProblem::kEmptyHost, "its HOST is empty");
  for (char c : host) {
    if (!name_character(c) && c != ':' && c != '[' && c != ']' && c != '%') {
      return refused(HostPortProblem::kForeignCharacter,
                     "its host has a character no host name has ('" +
                         shown_text(std::string_view(&c, 1)) + "')");
    }
  }
  HostPortSplit out;
  if (host.front() == '[' || host.back() == ']') {
    if (host.size() < 3 || host.front() != '[' || host.back() != ']') {
      return refused(HostPortProblem::kHalfBracketed,
                     "its [IPv6] host is not bracketed on both sides");
    }
    const std::string_view inside = host.substr(1, host.size() - 2);
    if (!ipv6_literal(inside)) {
      return refused(HostPortProblem::kNotIpv6,
                     "'" + shown_text(inside) + "' in brackets is not an IPv6 address");
    }
    out.host = std::string(inside);
    out.ipv6 = true;
  } else {
    if (host.find_first_of(":[]") != std::string_view::npos) {
      return refused(HostPortProblem::kUnbracketedIpv6,
                     "an IPv6 host is written in brackets, as in \"[::1]:7700\"");
    }
    if (host.find('%') != std::string_view::npos) {
      return refused(HostPortProblem::kForeignCharacter,
                     "its host has a character no host name has ('%')");
    }
    out.host = std::string(host);
  }
  // Digits only: no sign, no blank, no more than "65535" needs (leading zeros aside).
  uint32_t port = 0;
  bool digits = !port_text.empty();
  for (char c : port_text) {
    if (c < '0' || c > '9') {
      digits = false;
      break;
    }
    port = port * 10 + static_cast<uint32_t>(c - '0');
    if (port > 65535) break;
  }
  if (!digits || port < min_port || port > 65535) {
    return refused(HostPortProblem::kBadPort, "its port '" + shown_text(port_text) +
                                                  "' is not a number from " +
                                                  std::to_string(min_port) + " to 65535");
  }
  out.port = static_cast<uint16_t>(port);
  return out;
}

HostPortSplit split_host_optional_port(std::string_view text, uint16_t default_port,
                                       uint16_t min_port) {
  // No ':' at all, or none after a bracketed host: no port written.
  if (text.find(':') == std::string_view::npos || text.ends_with(']')) {
    HostPortSplit out = split_host_port(std::string(text) + ":0", 0);
    if (out.ok()) out.port = default_port;
    return out;
  }
  return split_host_port(text, min_port);
}

std::string join_host_port(std::string_view host, uint16_t port) {
  const bool v6 = host.find(':') != std::string_view::npos;
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on chains of operator+.
  std::string out;
  if (v6) out.push_back('[');
  out.append(host);
  if (v6) out.push_back(']');
  out.push_back(':');
  out.append(std::to_string(port));
  return out;
}

}  // namespace benchgate::net
