// See owner_only_socket.h.
#include "common/net/owner_only_socket.h"

#include <sys/stat.h>

#include <string_view>

namespace benchgate::net {

std::optional<std::string> unix_address_without_path(const std::string& address) {
  if (!address.starts_with("unix:")) return std::nullopt;
  // gRPC's two spellings: "unix:PATH" and "unix://ABSOLUTE_PATH" (listen_failure.cc reads it so).
  std::string_view path = std::string_view(address).substr(5);
  if (path.starts_with("//")) path.remove_prefix(2);
  if (!path.empty()) return std::nullopt;
  return "'" + address + "' names no PATH after unix:";
}

OwnerOnlySocketUmask::OwnerOnlySocketUmask(const std::string& address)
    : unix_socket_(address.starts_with("unix:")) {
  if (unix_socket_) before_ = ::umask(077);
}

OwnerOnlySocketUmask::~OwnerOnlySocketUmask() {
  if (unix_socket_) ::umask(before_);
}

}  // namespace benchgate::net
