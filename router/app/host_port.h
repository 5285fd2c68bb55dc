// "HOST:PORT" addresses as the router's flags, READY line and Health endpoints write them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/util/expected.h"

namespace benchgate::router::app {

struct HostPort {
  std::string host;  // without brackets for IPv6
  uint16_t port = 0;
};

// "127.0.0.1:8080", "[::1]:0", "localhost:0". The port is required (0: pick one).
Expected<HostPort> parse_host_port(std::string_view text);
// The inverse: brackets around an IPv6 host (net::join_host_port, the one writer).
std::string format_host_port(const std::string& host, uint16_t port);

}  // namespace benchgate::router::app
