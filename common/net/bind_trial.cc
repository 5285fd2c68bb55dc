// See bind_trial.h.
#include "common/net/bind_trial.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

Taken taken(const addrinfo& a) {
  if (a.ai_family == AF_INET) {
    return taken_ipv4(reinterpret_cast<const sockaddr_in*>(a.ai_addr)->sin_addr);
  }
  const auto* v6 = reinterpret_cast<const sockaddr_in6*>(a.ai_addr);
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

}  // namespace

BindTrial try_binding(const std::string& host, uint16_t port) {
  BindTrial trial;
  const Resolved resolved(host, std::to_string(port));
  trial.resolve_error = resolved.error();
  for (const addrinfo* at = resolved.first(); at != nullptr; at = at->ai_next) {
    BindTrial::Attempt attempt;
    const int fd = ::socket(at->ai_family, at->ai_socktype | SOCK_CLOEXEC, at->ai_protocol);
    attempt.socket_made = fd >= 0;
    if (fd < 0) {
      attempt.error = errno;
    } else {
      const int on = 1;
      ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
      if (at->ai_family == AF_INET6) {
        const int off = 0;  // dual stack, as the servers listen: see hosts_share_an_address
        ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
      }
      attempt.error = ::bind(fd, at->ai_addr, at->ai_addrlen) == 0 ? 0 : errno;
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
      if (clash(taken(*x), taken(*y))) return true;
    }
  }
  return false;
}

}  // namespace benchgate::net
