// HOST:PORT parsing and formatting (see host_port.h).
#include "router/app/host_port.h"

#include <charconv>

namespace benchgate::router::app {

Expected<HostPort> parse_host_port(std::string_view text) {
  const auto bad = [&](const char* why) {
    std::string message = "'";
    message.append(text).append("' is not HOST:PORT: ").append(why);
    return Error{message};
  };
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return bad("missing ':PORT'");
  std::string_view host = text.substr(0, colon);
  const std::string_view port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty()) return bad("empty host");
  unsigned port = 0;
  const auto [end, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() ||
      port > 65535) {
    return bad("port must be a number from 0 to 65535");
  }
  return HostPort{std::string(host), static_cast<uint16_t>(port)};
}

std::string format_host_port(const std::string& host, uint16_t port) {
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on chains of operator+.
  const bool v6 = host.find(':') != std::string::npos;
  std::string out;
  if (v6) out.push_back('[');
  out.append(host);
  if (v6) out.push_back(']');
  out.push_back(':');
  out.append(std::to_string(port));
  return out;
}

}  // namespace benchgate::router::app
