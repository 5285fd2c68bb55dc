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

bool wildcard(const addrinfo& a) {
  if (a.ai_family == AF_INET) {
    return reinterpret_cast<const sockaddr_in*>(a.ai_addr)->sin_addr.s_addr == htonl(INADDR_ANY);
  }
  if (a.ai_family == AF_INET6) {
    return IN6_IS_ADDR_UNSPECIFIED(&reinterpret_cast<const sockaddr_in6*>(a.ai_addr)->sin6_addr);
  }
  return false;
}

bool same_address(const addrinfo& a, const addrinfo& b) {
  if (a.ai_family != b.ai_family) return false;
  if (a.ai_family == AF_INET) {
    return reinterpret_cast<const sockaddr_in*>(a.ai_addr)->sin_addr.s_addr ==
           reinterpret_cast<const sockaddr_in*>(b.ai_addr)->sin_addr.s_addr;
  }
  if (a.ai_family == AF_INET6) {
    const auto* x = reinterpret_cast<const sockaddr_in6*>(a.ai_addr);
    const auto* y = reinterpret_cast<const sockaddr_in6*>(b.ai_addr);
    return std::memcmp(&x->sin6_addr, &y->sin6_addr, sizeof x->sin6_addr) == 0 &&
           x->sin6_scope_id == y->sin6_scope_id;
  }
  return false;
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
      attempt.error = ::bind(fd, at->ai_addr, at->ai_addrlen) == 0 ? 0 : errno;
      ::close(fd);
    }
    trial.attempts.push_back(attempt);
  }
  return trial;
}

bool hosts_share_an_address(const std::string& a, const std::string& b) {
  // The port plays no part: both listeners name the same one.
  const Resolved in_a(a, "0");
  const Resolved in_b(b, "0");
  if (in_a.error() != 0 || in_b.error() != 0) {
    return a == b || a == "0.0.0.0" || a == "::" || b == "0.0.0.0" || b == "::";
  }
  for (const addrinfo* x = in_a.first(); x != nullptr; x = x->ai_next) {
    if (wildcard(*x)) return true;
    for (const addrinfo* y = in_b.first(); y != nullptr; y = y->ai_next) {
      if (wildcard(*y) || same_address(*x, *y)) return true;
    }
  }
  return false;
}

}  // namespace benchgate::net
