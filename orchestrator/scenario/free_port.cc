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

// Binds `addr` (an IPv6 one for IPv4 too: dual stack) and closes the socket: 0 when the bind
// succeeded, else the errno; `what` names the call that failed. `bound`, when given, gets the
// IPv4 port bound.
int try_bind(const sockaddr* addr, socklen_t len, uint16_t* bound, const char** what) {
  const int fd = ::socket(addr->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *what = "socket";
    return errno;
  }
  int error = 0;
  const int v6only = 0;
  if (addr->sa_family == AF_INET6 &&
      ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only) != 0) {
    *what = "setsockopt(IPV6_V6ONLY)";
    error = errno;
  } else if (::bind(fd, addr, len) != 0) {
    *what = "bind";
    error = errno;
  } else if (bound != nullptr) {
    sockaddr_in in{};
    socklen_t in_len = sizeof in;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&in), &in_len) != 0) {
      *what = "getsockname";
      error = errno;
    } else {
      *bound = ntohs(in.sin_port);
    }
  }
  ::close(fd);
  return error;
}

// 0 when nothing on the machine holds TCP port `port` on any address: the wildcard of both
// IPv4 and IPv6 binds only then (a listener on ::1, 0.0.0.0 or another local address would
// conflict with it), or of IPv4 alone where an IPv6 socket cannot be bound for another reason
// than the port (IPv6 off, or refused by the machine's policy). Else the errno of the failed
// call.
int port_is_free(uint16_t port, const char** what) {
  sockaddr_in6 any6{};
  any6.sin6_family = AF_INET6;
  any6.sin6_addr = in6addr_any;
  any6.sin6_port = htons(port);
  const int error = try_bind(reinterpret_cast<const sockaddr*>(&any6), sizeof any6, nullptr, what);
  if (error == 0 || error == EADDRINUSE || error == EACCES) return error;
  sockaddr_in any4{};
  any4.sin_family = AF_INET;
  any4.sin_addr.s_addr = htonl(INADDR_ANY);
  any4.sin_port = htons(port);
  return try_bind(reinterpret_cast<const sockaddr*>(&any4), sizeof any4, nullptr, what);
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
  const char* what = "bind";
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
        error = port_is_free(port, &what);
        if (error == 0) return port;
        if (error != EADDRINUSE && error != EACCES) break;  // no port can be checked here
      }
    }
  }
  // No room outside the range, none of 64 drawn free, or no port could be checked: the kernel's
  // choice on 127.0.0.1 (a failure of its own is the one reported).
  return kernel_port_free_everywhere([]() -> Expected<uint16_t> {
    sockaddr_in loopback{};
    loopback.sin_family = AF_INET;
    loopback.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    uint16_t port = 0;
    const char* what = "bind";
    const int error =
        try_bind(reinterpret_cast<const sockaddr*>(&loopback), sizeof loopback, &port, &what);
    if (error == 0) return port;
    return Error{std::string(what) + " for a port on 127.0.0.1: " + std::strerror(error)};
  });
}

Expected<uint16_t> kernel_port_free_everywhere(
    const std::function<Expected<uint16_t>()>& kernel_port) {
  // Free on 127.0.0.1 is not free on 127.0.0.53 or ::1, where a key may name the port and a
  // listener holds no port of 127.0.0.1's: checked on every address as a drawn port is.
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    auto port = kernel_port();
    if (!port) return port;
    const char* what = "bind";
    const int error = port_is_free(*port, &what);
    // Not EADDRINUSE or EACCES: no port can be checked here, and the kernel's choice stands.
    if (error != EADDRINUSE && error != EACCES) return port;
  }
  return Error{"none of " + std::to_string(kAttempts) +
               " ports the kernel chose free on 127.0.0.1 was free on every local address"};
}

}  // namespace benchgate::scenario
