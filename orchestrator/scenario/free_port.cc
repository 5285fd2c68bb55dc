// Loopback port allocation outside the kernel's ephemeral range.
#include "orchestrator/scenario/free_port.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

namespace benchgate::scenario {
namespace {

constexpr uint32_t kLowest = 10000;  // below: the well-known ports of development servers
constexpr uint32_t kHighest = 65535;
constexpr int kAttempts = 64;

// Binds 127.0.0.1:`port` (0: the kernel chooses) and closes the socket. The bound port, or 0
// when it is taken; `error` says why the socket could not be made at all.
uint16_t try_bind(uint16_t port, int* error) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *error = errno;
    return 0;
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  socklen_t len = sizeof(addr);
  uint16_t bound = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    bound = ntohs(addr.sin_port);
  } else {
    *error = errno;
  }
  ::close(fd);
  return bound;
}

std::optional<std::pair<uint16_t, uint16_t>> ephemeral_range() {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  std::stringstream text;
  text << in.rdbuf();
  return parse_port_range(text.str());
}

}  // namespace

std::optional<std::pair<uint16_t, uint16_t>> parse_port_range(std::string_view text) {
  uint32_t ports[2] = {0, 0};
  const char* p = text.data();
  const char* end = text.data() + text.size();
  for (uint32_t& port : ports) {
    while (p < end && (*p == ' ' || *p == '\t')) ++p;
    auto [next, ec] = std::from_chars(p, end, port);
    if (ec != std::errc{} || port == 0 || port > kHighest) return std::nullopt;
    p = next;
  }
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n')) ++p;
  if (p != end || ports[0] > ports[1]) return std::nullopt;
  return std::pair<uint16_t, uint16_t>(static_cast<uint16_t>(ports[0]),
                                       static_cast<uint16_t>(ports[1]));
}

Expected<uint16_t> allocate_loopback_port() {
  int error = 0;
  if (auto range = ephemeral_range()) {
    // The ports of 10000-65535 outside [first, last], counted from 10000 with the range cut out.
    const uint32_t first = std::max<uint32_t>(range->first, kLowest);
    const uint32_t last = std::max<uint32_t>(range->second, kLowest - 1);
    const uint32_t below = first - kLowest;
    const uint32_t above = kHighest - last;
    if (below + above > 0) {
      std::mt19937 random{std::random_device{}()};
      std::uniform_int_distribution<uint32_t> pick(0, below + above - 1);
      for (int attempt = 0; attempt < kAttempts; ++attempt) {
        const uint32_t n = pick(random);
        const auto port = static_cast<uint16_t>(n < below ? kLowest + n : last + 1 + n - below);
        if (try_bind(port, &error) == port) return port;
        if (error != EADDRINUSE && error != EACCES) break;  // not a taken port: say why below
      }
    }
  }
  // No room outside the range, or none of it free: the kernel's choice.
  if (const uint16_t port = try_bind(0, &error)) return port;
  return Error{std::string("bind 127.0.0.1:0: ") + std::strerror(error)};
}

}  // namespace benchgate::scenario
