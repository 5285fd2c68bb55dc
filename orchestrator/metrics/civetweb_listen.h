// The orchestrator's HTTP listeners, /metrics (prometheus-cpp's Exposer, `run` and `serve`
// --metrics-listen) and serve's --http pages, are CivetWeb servers: each connection holds one
// of a fixed pool of worker threads from its first byte until it is answered, closed, or its
// request times out. With CivetWeb's defaults as they were (2 threads; 30 s for /metrics, 10 s
// for the pages), two idle connections (a port scan that sends half a request, a browser's
// speculative connection) kept every scrape waiting for 30 s. Both listeners take the same
// options from here, and the same checks of their address.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace benchgate::metrics {

// Worker threads of each listener: this many connections that send nothing (or too little to
// end their request) at the same moment leave the next request waiting, until one of them is
// dropped (kHttpRequestTimeoutMs); fewer block nothing.
inline constexpr int kHttpThreads = 32;
// How long a connection may take to send its request, and each answer to be sent: a client on
// this machine or a LAN takes milliseconds; an idle one is dropped after this.
inline constexpr int kHttpRequestTimeoutMs = 5000;

// CivetWeb's options for a listener on HOST:PORT (checked by why_http_cannot_listen first).
std::vector<std::string> http_listener_options(const std::string& host_port);

// Why `flag` ("--metrics-listen", "--http") cannot listen on `host_port`, as one line
// ("--http [::1]:0: cannot listen: ..."), or nothing: not HOST:PORT by the shared parser
// (common/net/host_port.h), a unix:PATH (CivetWeb takes none), an IPv6 host where the CivetWeb
// library was built without IPv6 (Debian 12's is: CivetWeb then said only that it could not
// bind), or what the kernel says of a bind there (app::why_cannot_listen: a port in use).
std::optional<std::string> why_http_cannot_listen(const std::string& flag,
                                                  const std::string& host_port);

// Whether the CivetWeb library this program runs with listens on IPv6 addresses.
bool http_listener_takes_ipv6();

}  // namespace benchgate::metrics
