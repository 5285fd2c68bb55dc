// Why an address cannot be listened on, asked of the kernel before a library tries: civetweb
// (Prometheus' /metrics) answers a port in use with "null context when constructing
// CivetServer", gRPC with a multi-line core log, neither naming the cause.
#pragma once

#include <optional>
#include <string>

#include "common/net/host_port.h"

namespace benchgate::app {

// Binds (and closes) a TCP socket on HOST:PORT ("127.0.0.1:9464", "[::1]:0", "localhost:7700")
// as a server would; the reason it failed ("address already in use", "no such host"), or
// nothing when it can be bound. A value that is not HOST:PORT by common/net/host_port.h (port
// 0 to 65535) is refused with that parser's reason ("its HOST is empty"); unix:PATH is left to
// the library.
std::optional<std::string> why_cannot_listen(const std::string& host_port);

// The parser's reason a listen address is not HOST:PORT, with a hint where the address is
// `:PORT`, which many servers read as every interface and which is named here instead ("give
// 127.0.0.1:PORT for this machine only, 0.0.0.0:PORT or [::]:PORT for every interface"; no
// [::] where the listener takes no IPv6).
std::string listen_address_reason(const net::HostPortSplit& split, bool takes_ipv6 = true);

// "--metrics-listen 127.0.0.1:9464: cannot listen: address already in use": one line.
std::string cannot_listen_message(const std::string& flag, const std::string& host_port,
                                  const std::string& reason);

}  // namespace benchgate::app
