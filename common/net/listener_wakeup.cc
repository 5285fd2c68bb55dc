// See listener_wakeup.h.
#include "common/net/listener_wakeup.h"

#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdlib>

namespace benchgate::net {
namespace {

bool is_listener_on(int fd, uint16_t port) {
  int listening = 0;
  socklen_t length = sizeof(listening);
  if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) != 0 || !listening) {
    return false;
  }
  sockaddr_storage address{};
  length = sizeof(address);
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return false;
  if (address.ss_family == AF_INET) {
    return ntohs(reinterpret_cast<const sockaddr_in&>(address).sin_port) == port;
  }
  if (address.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6&>(address).sin6_port) == port;
  }
  return false;
}

}  // namespace

int shut_down_listeners_on(uint16_t port) {
  if (port == 0) return 0;
  DIR* fds = ::opendir("/proc/self/fd");
  if (fds == nullptr) return 0;
  const int own = ::dirfd(fds);
  int shut = 0;
  while (const dirent* entry = ::readdir(fds)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd == own) continue;
    if (is_listener_on(static_cast<int>(fd), port) &&
        ::shutdown(static_cast<int>(fd), SHUT_RDWR) == 0) {
      ++shut;
    }
  }
  ::closedir(fds);
  return shut;
}

}  // namespace benchgate::net
