// TCP_INFO's bytes_acked (see acked_bytes.h). The kernel's own header: the C library's
// struct tcp_info stops before the field. It cannot share a file with <netinet/tcp.h>, which
// declares the same struct, so it lives alone here.
#include "common/net/acked_bytes.h"

#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>

namespace benchgate::net {

std::optional<uint64_t> acked_bytes(int fd) {
  tcp_info info{};
  socklen_t length = sizeof info;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return std::nullopt;
  // An older kernel fills less of the struct than this header declares.
  if (length < offsetof(tcp_info, tcpi_bytes_acked) + sizeof info.tcpi_bytes_acked) {
    return std::nullopt;
  }
  return info.tcpi_bytes_acked;
}

}  // namespace benchgate::net
