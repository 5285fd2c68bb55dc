// A TCP connection attempt with a bounded wait (connect_within.h).
#include "common/net/connect_within.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>

namespace benchgate::net {

int connect_within(const sockaddr* address, socklen_t length, std::chrono::milliseconds timeout) {
  const int fd = ::socket(address->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return errno;
  int error = 0;
  if (::connect(fd, address, length) != 0) {
    error = errno;
    if (error == EINPROGRESS) {
      pollfd waiting{fd, POLLOUT, 0};
      const int ready = ::poll(&waiting, 1, static_cast<int>(timeout.count()));
      socklen_t error_length = sizeof error;
      if (ready < 0) {
        error = errno;
      } else if (ready == 0) {
        error = ETIMEDOUT;
      } else if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &error_length) != 0) {
        error = errno;
      }
    }
  }
  ::close(fd);
  return error;
}

}  // namespace benchgate::net
