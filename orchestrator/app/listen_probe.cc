// See listen_probe.h.
#include "orchestrator/app/listen_probe.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "common/net/host_port.h"
#include "common/util/errno_text.h"

namespace benchgate::app {

std::optional<std::string> why_cannot_listen(const std::string& host_port) {
  if (host_port.starts_with("unix:")) return std::nullopt;
  // The split every benchgate address is read by (common/net/host_port.h): ":7700" (every
  // interface to getaddrinfo) and "::1:7700" (host "::1" to a split at the last ':') are
  // refused, as the worker's and the router's listen flags refuse them. A port past 65535,
  // which the kernel would bind modulo 65536 (99999 as 34463), too.
  const net::HostPortSplit split = net::split_host_port(host_port, net::kListenMinPort);
  if (!split.ok()) return listen_address_reason(split);
  const std::string& host = split.host;
  const std::string port = std::to_string(split.port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return lowercase_first(::gai_strerror(rc));
  }
  std::optional<std::string> reason;
  // As the servers do: SO_REUSEADDR (a socket in TIME_WAIT does not block), no SO_REUSEPORT
  // (a listening socket does).
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      reason = errno_text(errno);
      continue;
    }
    const int on = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    const bool bound = ::bind(fd, a->ai_addr, a->ai_addrlen) == 0;
    if (!bound) reason = errno_text(errno);
    ::close(fd);
    if (bound) {
      reason.reset();
      break;
    }
  }
  ::freeaddrinfo(found);
  return reason;
}

std::string listen_address_reason(const net::HostPortSplit& split, bool takes_ipv6) {
  if (split.problem != net::HostPortProblem::kEmptyHost) return split.reason;
  return split.reason + " (give 127.0.0.1:PORT for this machine only, " +
         (takes_ipv6 ? "0.0.0.0:PORT or [::]:PORT" : "0.0.0.0:PORT") + " for every interface)";
}

std::string cannot_listen_message(const std::string& flag, const std::string& host_port,
                                  const std::string& reason) {
  return flag + " " + host_port + ": cannot listen: " + reason;
}

}  // namespace benchgate::app
