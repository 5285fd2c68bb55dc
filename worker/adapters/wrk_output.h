// Reads wrk's output (wrk 4.1, run with `--latency -s <kWrkSummaryScript>`) into the worker's
// terms. wrk's own summary rounds bytes ("3.15MB read") and latencies ("1.16ms"), so the
// adapter hands wrk a done() script that prints wrk's exact figures on two more lines:
//   benchgate-wrk: requests=N bytes=B connect=C read=R write=W status=S timeout=T
//   benchgate-wrk-latency-us: min= max= mean= stdev= p50= p75= p90= p99= p99.9=
// (the second only when a request completed; wrk records latency in microseconds).
// operations = requests (responses wrk completed), successes = requests - status (wrk counts
// a status >= 400 as a status error), errors: status, connect, timeout, and reset = read +
// write (wrk does not tell a reset from an early close). bytes_received = bytes (exact). The
// figures are checked against wrk's own "N requests in" and "Non-2xx or 3xx responses" lines.
#pragma once

#include <string_view>

#include "common/util/expected.h"
#include "worker/adapters/tool_figures.h"

namespace benchgate::worker::adapters {

// The Lua script passed with -s. It defines only done(), so wrk's request loop stays native.
extern const std::string_view kWrkSummaryScript;

Expected<ToolFigures> parse_wrk_output(std::string_view stdout_text);

}  // namespace benchgate::worker::adapters
