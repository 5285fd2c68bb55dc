// See bind_trial.h.
#include "common/net/bind_trial.h"

#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

namespace benchgate::net {
namespace {

// The addresses `host` and `port` resolve to for a TCP listener; freed with it.
class Resolved {
 public:
  Resolved(const std::string& host, const std::string& port) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    error_ = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found_);
    if (error_ != 0) found_ = nullptr;
  }
  ~Resolved() {
    if (found_ != nullptr) ::freeaddrinfo(found_);
  }
  Resolved(const Resolved&) = delete;
  Resolved& operator=(const Resolved&) = delete;

  int error() const { return error_; }
  const addrinfo* first() const { return found_; }

 private:
  addrinfo* found_ = nullptr;
  int error_ = 0;
};

// An address as a listener with IPV6_V6ONLY off takes it: an IPv4-mapped IPv6 address
// (::ffff:127.0.0.1) is the IPv4 address it maps, and the IPv6 wildcard (::) is dual stack.
struct Taken {
  enum Space { kIpv4, kIpv6, kEverything } space = kIpv4;
  bool wildcard = false;  // 0.0.0.0 (or ::ffff:0.0.0.0): every IPv4 address
  in6_addr address{};     // kIpv4: the address mapped into ::ffff:0:0/96
  uint32_t scope = 0;
};

// An IPv4 address as an IPv4-mapped IPv6 one.
Taken taken_ipv4(const in_addr& v4) {
  Taken out;
  out.wildcard = v4.s_addr == htonl(INADDR_ANY);
  out.address.s6_addr[10] = 0xff;
  out.address.s6_addr[11] = 0xff;
  std::memcpy(&out.address.s6_addr[12], &v4, sizeof v4);
  return out;
}

Taken taken(const sockaddr* a) {
  if (a->sa_family == AF_INET) {
    return taken_ipv4(reinterpret_cast<const sockaddr_in*>(a)->sin_addr);
  }
  const auto* v6 = reinterpret_cast<const sockaddr_in6*>(a);
  if (IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) {
    in_addr v4{};
    std::memcpy(&v4, &v6->sin6_addr.s6_addr[12], sizeof v4);
    return taken_ipv4(v4);
  }
  Taken out;
  out.space = IN6_IS_ADDR_UNSPECIFIED(&v6->sin6_addr) ? Taken::kEverything : Taken::kIpv6;
  out.address = v6->sin6_addr;
  out.scope = v6->sin6_scope_id;
  return out;
}

// Whether listeners on `x` and `y` (one port) would clash, as Linux binds them with
// IPV6_V6ONLY off: the IPv6 wildcard takes every address of both families; the IPv4 wildcard
// every IPv4 one (mapped ones too) but no IPv6 one (0.0.0.0:P and [::1]:P both listen);
// other addresses clash when they are one address.
bool clash(const Taken& x, const Taken& y) {
  if (x.space == Taken::kEverything || y.space == Taken::kEverything) return true;
  if (x.space != y.space) return false;
  if (x.wildcard || y.wildcard) return true;
  return std::memcmp(&x.address, &y.address, sizeof x.address) == 0 && x.scope == y.scope;
}

bool same_address(const Taken& x, const Taken& y) {
  return x.space == y.space && std::memcmp(&x.address, &y.address, sizeof x.address) == 0 &&
         x.scope == y.scope;
}

bool is_localhost(const std::string& host) { return ::strcasecmp(host.c_str(), "localhost") == 0; }

// The addresses a numeric host, or "localhost", takes; none for any other name (AI_NUMERICHOST:
// getaddrinfo parses the host and asks no resolver).
std::optional<std::vector<Taken>> taken_without_lookup(const std::string& host) {
  std::vector<Taken> out;
  if (is_localhost(host)) {
    in_addr v4{};
    v4.s_addr = htonl(INADDR_LOOPBACK);
    out.push_back(taken_ipv4(v4));
    Taken v6;
    v6.space = Taken::kIpv6;
    v6.address = in6addr_loopback;
    out.push_back(v6);
    return out;
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), "0", &hints, &found) != 0) return std::nullopt;
  for (const addrinfo* at = found; at != nullptr; at = at->ai_next) {
    if (at->ai_family == AF_INET || at->ai_family == AF_INET6) out.push_back(taken(at->ai_addr));
  }
  ::freeaddrinfo(found);
  return out;
}

bool loopback_or_wildcard(const Taken& t) {
  if (t.space == Taken::kEverything || t.wildcard) return true;
  if (t.space == Taken::kIpv4) return t.address.s6_addr[12] == 127;  // 127.0.0.0/8
  return IN6_IS_ADDR_LOOPBACK(&t.address);
}

}  // namespace

std::vector<ListenAddress> distinct_addresses(std::vector<ListenAddress> addresses) {
  std::vector<ListenAddress> distinct;
  std::vector<Taken> kept;
  for (const ListenAddress& address : addresses) {
    const Taken it = taken(address.get());
    if (std::any_of(kept.begin(), kept.end(),
                    [&it](const Taken& earlier) { return same_address(earlier, it); })) {
      continue;
    }
    kept.push_back(it);
    distinct.push_back(address);
  }
  return distinct;
}

ListenAddresses resolve_listen_addresses(const std::string& host, uint16_t port) {
  ListenAddresses out;
  const Resolved resolved(host, std::to_string(port));
  out.resolve_error = resolved.error();
  std::vector<ListenAddress> all;
  for (const addrinfo* at = resolved.first(); at != nullptr; at = at->ai_next) {
    if ((at->ai_family != AF_INET && at->ai_family != AF_INET6) ||
        at->ai_addrlen > sizeof(sockaddr_storage)) {
      continue;
    }
    ListenAddress address;
    std::memcpy(&address.storage, at->ai_addr, at->ai_addrlen);
    address.length = at->ai_addrlen;
    all.push_back(address);
  }
  out.addresses = distinct_addresses(std::move(all));
  return out;
}

BindTrial try_binding(const std::string& host, uint16_t port) {
  BindTrial trial;
  const ListenAddresses resolved = resolve_listen_addresses(host, port);
  trial.resolve_error = resolved.resolve_error;
  for (const ListenAddress& at : resolved.addresses) {
    BindTrial::Attempt attempt;
    const int fd = ::socket(at.family(), SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
    attempt.socket_made = fd >= 0;
    if (fd < 0) {
      attempt.error = errno;
    } else {
      const int on = 1;
      ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
      if (at.family() == AF_INET6) {
        const int off = 0;  // dual stack, as the servers listen: see hosts_share_an_address
        ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
      }
      attempt.error = ::bind(fd, at.get(), at.length) == 0 ? 0 : errno;
      ::close(fd);
    }
    trial.attempts.push_back(attempt);
  }
  return trial;
}

int BindTrial::refusal() const {
  bool listens = false;
  int passed_over = 0;
  for (const Attempt& attempt : attempts) {
    if (attempt.bound()) {
      listens = true;
    } else if (address_not_here(attempt.error)) {
      passed_over = attempt.error;
    } else {
      return attempt.error;
    }
  }
  return listens ? 0 : passed_over;
}

bool address_not_here(int error) { return error == EADDRNOTAVAIL || error == EAFNOSUPPORT; }

bool hosts_share_an_address(const std::string& a, const std::string& b) {
  // The port plays no part: both listeners name the same one.
  const Resolved in_a(a, "0");
  const Resolved in_b(b, "0");
  if (in_a.error() != 0 || in_b.error() != 0) {
    return a == b || a == "0.0.0.0" || a == "::" || b == "0.0.0.0" || b == "::";
  }
  for (const addrinfo* x = in_a.first(); x != nullptr; x = x->ai_next) {
    for (const addrinfo* y = in_b.first(); y != nullptr; y = y->ai_next) {
      if (clash(taken(x->ai_addr), taken(y->ai_addr))) return true;
    }
  }
  return false;
}

bool hosts_share_an_address_without_lookup(const std::string& a, const std::string& b) {
  if (::strcasecmp(a.c_str(), b.c_str()) == 0) return true;
  const std::optional<std::vector<Taken>> in_a = taken_without_lookup(a);
  const std::optional<std::vector<Taken>> in_b = taken_without_lookup(b);
  if (!in_a || !in_b) return false;
  for (const Taken& x : *in_a) {
    for (const Taken& y : *in_b) {
      if (clash(x, y)) return true;
    }
  }
  return false;
}

bool names_this_machine(const std::string& host) {
  const std::optional<std::vector<Taken>> addresses = taken_without_lookup(host);
  if (!addresses || addresses->empty()) return false;
  if (std::any_of(addresses->begin(), addresses->end(), loopback_or_wildcard)) return true;
  ifaddrs* interfaces = nullptr;
  if (::getifaddrs(&interfaces) != 0) return false;
  bool found = false;
  for (const ifaddrs* at = interfaces; at != nullptr && !found; at = at->ifa_next) {
    if (at->ifa_addr == nullptr ||
        (at->ifa_addr->sa_family != AF_INET && at->ifa_addr->sa_family != AF_INET6)) {
      continue;
    }
    const Taken mine = taken(at->ifa_addr);
    for (const Taken& t : *addresses) {
      // The scope plays no part: fe80::1 is this machine's on the interface that has it.
      found = found || (t.space == mine.space &&
                        std::memcmp(&t.address, &mine.address, sizeof t.address) == 0);
    }
  }
  ::freeifaddrs(interfaces);
  return found;
}

}  // namespace benchgate::net
