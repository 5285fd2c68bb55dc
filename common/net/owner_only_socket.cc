// See owner_only_socket.h.
#include "common/net/owner_only_socket.h"

#include <sys/stat.h>

namespace benchgate::net {

OwnerOnlySocketUmask::OwnerOnlySocketUmask(const std::string& address)
    : unix_socket_(address.starts_with("unix:")) {
  if (unix_socket_) before_ = ::umask(077);
}

OwnerOnlySocketUmask::~OwnerOnlySocketUmask() {
  if (unix_socket_) ::umask(before_);
}

}  // namespace benchgate::net
