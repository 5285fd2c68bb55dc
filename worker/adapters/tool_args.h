// What a wrapped tool can express of a workload, and the command line that expresses it.
// Anything the tool cannot do as asked is refused up front (INVALID_ARGUMENT), never run
// approximately: the open loop, WAMP, request bodies and methods other than GET, echo checks,
// a status expectation outside 2xx, and window lengths the tool's duration flag cannot take
// (h2load -D: whole milliseconds; wrk -d: whole seconds). wrk also cannot pipeline
// (in_flight > 1) and is not wrapped for HTTP/2 or TLS. h2load runs http2 (-m streams, -w/-W
// window bits, -f frame size; h2c for http://, h2 by ALPN for https://) and TLS (https://,
// --ciphers, --npn-list for alpn, the URI's host as SNI with --connect-to the address), but
// only with tls.insecure = true (it never verifies a certificate), without tls.version (no
// flag limits it) and without tls.resumption; neither tool runs new_connection_per_request.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/util/expected.h"
#include "worker/adapters/tool.h"
#include "worker/engine/workload.h"

namespace benchgate::worker::adapters {

// Call after validate_workload (the checks every worker makes).
Expected<void> check_workload(ToolKind kind, const WorkloadSpec& spec);
// Call after validate_window.
Expected<void> check_window(ToolKind kind, const WindowCommand& window);

// Threads the tool runs: both tools refuse more threads than connections.
uint32_t tool_threads(const WorkloadSpec& spec);

// The argument vector of one window's run (argv[0] = tool.path). `wrk_script` is the path of
// the file holding kWrkSummaryScript (wrk only).
std::vector<std::string> tool_argv(const Tool& tool, const WorkloadSpec& spec, int64_t duration_ns,
                                   const std::string& wrk_script);

}  // namespace benchgate::worker::adapters
