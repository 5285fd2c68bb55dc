// Why an address cannot be listened on, asked of the kernel before a library tries: gRPC
// answers a port in use with a multi-line core log that does not name the cause (and CivetWeb,
// which served /metrics until the project's own HTTP listener did, said "null context when
// constructing CivetServer").
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/net/host_port.h"

namespace benchgate::app {

// Binds (and closes) a TCP socket on each address HOST:PORT ("127.0.0.1:9464", "[::1]:0",
// "localhost:7700") resolves to, as the HTTP listener listens on each; the reason one failed
// ("address already in use", "no such host"; an address this machine lacks, ::1 where IPv6
// is off, only where no other binds), or nothing when they can be bound. A value that is not
// HOST:PORT by common/net/host_port.h (port 0 to 65535) is refused with that parser's reason ("its
// HOST is empty"); unix:PATH is left to the library.
std::optional<std::string> why_cannot_listen(const std::string& host_port);

// The parser's reason a listen address is not HOST:PORT, with a hint where the address is
// `:PORT`, which many servers read as every interface and which is named here instead ("give
// 127.0.0.1:PORT for this machine only, 0.0.0.0:PORT or [::]:PORT for every interface"; no
// [::] where the listener takes no IPv6).
std::string listen_address_reason(const net::HostPortSplit& split, bool takes_ipv6 = true);

// "--metrics-listen 127.0.0.1:9464: cannot listen: address already in use": one line.
std::string cannot_listen_message(const std::string& flag, const std::string& host_port,
                                  const std::string& reason);

// "--metrics-listen 127.0.0.1:7700: the port of --listen 127.0.0.1:7700; give each listener
// a port of its own" when two of `listeners` (flag, HOST:PORT; "" or a unix:PATH is passed
// over) name one port (not 0) on hosts that share an address: the same address however it is
// spelled ("localhost" and "127.0.0.1", "[::1]" and "[0:0::1]", "[::ffff:127.0.0.1]" and
// "127.0.0.1"), or a wildcard host that takes the other's address: :: every address, 0.0.0.0
// every IPv4 one (net::hosts_share_an_address). Nothing otherwise.
// `serve` asks before anything listens: the second listener would fail with "address already
// in use", its taker unnamed.
std::optional<std::string> listeners_on_one_port(
    const std::vector<std::pair<const char*, std::string>>& listeners);

}  // namespace benchgate::app
