// Reads h2load's summary (nghttp2 1.52's format, `h2load --h1 -D ...` on stdout) into the
// worker's terms:
//   requests: T total, S started, D done, K succeeded, F failed, E errored, O timeout
//   traffic: 5.02MB (5262888) total, ...
//   time for request:  min  max  mean  sd  +/- sd
// operations = done, successes = succeeded (2xx), errors: status = failed - errored (non-2xx
// answers), timeout = timeout, reset = errored - timeout (requests whose connection failed),
// bytes_received = the exact traffic total. Latency: min/max/mean/sd of "time for request" as
// printed (h2load rounds them to 3 significant digits), none when no request completed.
// Requests still outstanding when the duration ended (started - done) are dropped by h2load
// and counted nowhere. Output without these lines is an error, never a zero result. Over TLS,
// the version, cipher and application protocol it prints are what the server chose.
#pragma once

#include <string_view>

#include "common/util/expected.h"
#include "worker/adapters/tool_figures.h"

namespace benchgate::worker::adapters {

Expected<ToolFigures> parse_h2load_output(std::string_view stdout_text);

// "38us", "7.53ms", "1.02s" -> nanoseconds; nullopt for anything else.
std::optional<int64_t> parse_h2load_duration(std::string_view printed);

}  // namespace benchgate::worker::adapters
