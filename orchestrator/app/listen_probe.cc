// See listen_probe.h.
#include "orchestrator/app/listen_probe.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <string>

namespace benchgate::app {
namespace {

std::string lowercase_first(std::string text) {
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

}  // namespace

std::optional<std::string> why_cannot_listen(const std::string& host_port) {
  const auto colon = host_port.rfind(':');
  if (colon == std::string::npos || host_port.rfind("unix:", 0) == 0) return std::nullopt;
  std::string host = host_port.substr(0, colon);
  const std::string port = host_port.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  // getaddrinfo takes 99999 and the kernel binds it modulo 65536 (port 34463): refused here.
  if (port.empty() || port.find_first_not_of("0123456789") != std::string::npos ||
      port.size() > 5 || std::stoul(port) > 65535) {
    return "'" + port + "' is not a port number (0 to 65535)";
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &found);
      rc != 0) {
    return lowercase_first(::gai_strerror(rc));
  }
  std::optional<std::string> reason;
  // As the servers do: SO_REUSEADDR (a socket in TIME_WAIT does not block), no SO_REUSEPORT
  // (a listening socket does).
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      reason = lowercase_first(std::strerror(errno));
      continue;
    }
    const int on = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    const bool bound = ::bind(fd, a->ai_addr, a->ai_addrlen) == 0;
    if (!bound) reason = lowercase_first(std::strerror(errno));
    ::close(fd);
    if (bound) {
      reason.reset();
      break;
    }
  }
  ::freeaddrinfo(found);
  return reason;
}

std::string cannot_listen_message(const std::string& flag, const std::string& host_port,
                                  const std::string& reason) {
  return flag + " " + host_port + ": cannot listen: " + reason;
}

}  // namespace benchgate::app
