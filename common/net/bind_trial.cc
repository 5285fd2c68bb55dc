// See bind_trial.h.
#include "common/net/bind_trial.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

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

}  // namespace benchgate::net
