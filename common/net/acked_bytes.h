// How many bytes of a TCP socket's output its peer has acknowledged, for telling a slow reader
// from a stalled one: a peer whose application stops reading closes its receive window, and
// from then on nothing more is acknowledged however long a write waits.
#pragma once

#include <cstdint>
#include <optional>

namespace benchgate::net {

// TCP_INFO's bytes_acked (Linux 4.1 or later); nullopt where the socket cannot say.
std::optional<uint64_t> acked_bytes(int fd);

}  // namespace benchgate::net
