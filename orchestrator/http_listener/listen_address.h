// The address checks of the orchestrator's HTTP listeners (/metrics of `run` and `serve`
// --metrics-listen, serve's --http pages): made before anything starts, so that a bad address
// is one line naming the flag, the address and the reason.
#pragma once

#include <optional>
#include <string>

namespace benchgate::http_listener {

// Why `flag` ("--metrics-listen", "--http") cannot listen on `host_port`, as one line
// ("--http :0: cannot listen: its HOST is empty ..."), or nothing: not HOST:PORT by the shared
// parser (common/net/host_port.h; an IPv6 host in brackets, "[::1]:0"), a unix:PATH (only TCP
// is served), or what the kernel says of a bind there (app::why_cannot_listen: a port in use).
std::optional<std::string> why_http_cannot_listen(const std::string& flag,
                                                  const std::string& host_port);

}  // namespace benchgate::http_listener
