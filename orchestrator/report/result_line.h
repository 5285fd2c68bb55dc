// The machine-readable summary line of one workload (docs/MEASUREMENT.md "RESULT lines"):
// RESULT|scenario=..|workload=..|variant=..|protocol=..|connections=..|workers=..|threads=..|
// rps=..|mbps=..|p50_us=..|p90_us=..|p99_us=..|p999_us=..|max_us=..|errors=..|reps=..|run=..|
// status=..|gbps=..|wire_bytes_per_s=..|payload_bytes_per_s=..|... (result_line.cc lists the rest)
// (protocol: http1, http2, wamp_rpc, wamp_pubsub, wamp_transfer; mbps: wire MB/s, gbps: the
// same in Gbit/s)
// Field names are stable; new fields are only ever appended.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "orchestrator/results/results.h"

namespace benchgate::report {

// A workload's errors, summed over its repetitions; none when no repetition was measured (a
// figure not measured is "-", never 0): the RESULT line's errors= and the Markdown summary's
// errors column.
std::optional<uint64_t> measured_errors(const results::WorkloadResult& workload);

// `run` is the stored run id, or "-" when the run is not stored.
std::string result_line(const std::string& scenario, const results::WorkloadResult& workload,
                        const std::string& run);

}  // namespace benchgate::report
