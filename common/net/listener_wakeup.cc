// See listener_wakeup.h.
#include "common/net/listener_wakeup.h"

#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>

namespace benchgate::net {
namespace {

// The socket's port when it is a listening TCP socket of either family.
bool listening_port(int fd, uint16_t& port) {
  int listening = 0;
  socklen_t length = sizeof(listening);
  if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) != 0 || !listening) {
    return false;
  }
  sockaddr_storage address{};
  length = sizeof(address);
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return false;
  if (address.ss_family == AF_INET) {
    port = ntohs(reinterpret_cast<const sockaddr_in&>(address).sin_port);
    return true;
  }
  if (address.ss_family == AF_INET6) {
    port = ntohs(reinterpret_cast<const sockaddr_in6&>(address).sin6_port);
    return true;
  }
  return false;
}

// Calls visit(fd, socket) for each listening TCP socket among this process's descriptors.
template <typename Visit>
void for_each_listener(Visit visit) {
  DIR* fds = ::opendir("/proc/self/fd");
  if (fds == nullptr) return;
  const int own = ::dirfd(fds);
  while (const dirent* entry = ::readdir(fds)) {
    char* end = nullptr;
    const long number = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || number == own) continue;
    const int fd = static_cast<int>(number);
    struct stat status {};
    ListeningSocket socket;
    if (::fstat(fd, &status) != 0 || !S_ISSOCK(status.st_mode) ||
        !listening_port(fd, socket.port)) {
      continue;
    }
    socket.inode = status.st_ino;
    visit(fd, socket);
  }
  ::closedir(fds);
}

}  // namespace

std::vector<ListeningSocket> listening_sockets() {
  std::vector<ListeningSocket> out;
  for_each_listener([&](int, const ListeningSocket& socket) { out.push_back(socket); });
  return out;
}

std::vector<ino_t> opened_between(const std::vector<ListeningSocket>& before,
                                  const std::vector<ListeningSocket>& after,
                                  const std::vector<int>& ports) {
  std::vector<ino_t> out;
  for (const ListeningSocket& socket : after) {
    const bool old = std::any_of(before.begin(), before.end(),
                                 [&](const ListeningSocket& b) { return b.inode == socket.inode; });
    const bool on_port = std::find(ports.begin(), ports.end(), socket.port) != ports.end();
    if (!old && on_port) out.push_back(socket.inode);
  }
  return out;
}

int shut_down_listeners(const std::vector<ino_t>& inodes) {
  if (inodes.empty()) return 0;
  int shut = 0;
  for_each_listener([&](int fd, const ListeningSocket& socket) {
    if (std::find(inodes.begin(), inodes.end(), socket.inode) != inodes.end() &&
        ::shutdown(fd, SHUT_RDWR) == 0) {
      ++shut;
    }
  });
  return shut;
}

}  // namespace benchgate::net
