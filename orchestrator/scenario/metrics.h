// The metrics a gate can name (docs/SCENARIOS.md, "[[gates]]") and the unit a bound on
// each is written in. The gate engine and the loader share this one list.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "orchestrator/scenario/scenario.h"

namespace benchgate::scenario {

enum class MetricKind {
  kDuration,  // latency.*, router.cpu_per_request: bound written "5ms", stored in seconds
  kNumber,    // throughput.rps, errors.count: a plain number
  kBytes,     // throughput.bytes_per_s, router.rss_bytes: "64MiB" or an integer of bytes
  kRatio,     // errors.rate, worker.cpu_utilization: 0.01 or "1%", stored as a ratio
};

// Every metric name, in the order docs/SCENARIOS.md lists them.
const std::vector<std::string_view>& metric_names();

// The kind of a metric, or nothing when the name is not a metric.
std::optional<MetricKind> metric_kind(std::string_view name);

// Whether a larger value is worse (latency, errors, CPU, memory) rather than better (throughput).
// Relative gates sign their effect with it (docs/GATES.md).
bool metric_higher_is_worse(std::string_view name);

// Why no run of `workload` can ever measure `metric`, whatever its workers (docs/GATES.md,
// "What a gate judges"), or "" when one can: tls_handshake.p99 of a cleartext workload,
// session_setup.p99 of an HTTP one, handshakes.rate of one that keeps its connections. A gate
// on it would measure everything and then be an error, so the loader refuses it.
std::string unmeasurable_reason(std::string_view metric, const Workload& workload);

// Why the bundled worker (worker = "builtin") can never measure `metric` for `workload`, though
// a worker program might, or "": connect.p99, tls_handshake.p99 and ttfb.p99 of a WAMP
// workload, whose sessions it times only as a whole (session_setup.p99). The reason ends
// saying which workloads measure the metric.
std::string bundled_worker_unmeasurable_reason(std::string_view metric, const Workload& workload);

// Why the bundled worker around `adapter` ("wrk", "h2load"; worker_impls_section.cc), named
// `worker` in [worker_impls], can never measure `metric`, or "": connection setup and
// handshakes.rate (neither tool reports them), a latency percentile the tool does not print (wrk:
// p50, p75, p90, p99, p99.9; h2load: none). The reason ends saying which workers measure the
// metric.
std::string adapter_unmeasurable_reason(std::string_view metric, std::string_view adapter,
                                        std::string_view worker);

// Why a gate on errors.count or errors.rate of a workload run by the bundled worker around
// `adapter`, named `worker`, would judge a lower bound, or "": the error kinds the tool cannot
// detect (adapter_limits::unmeasured_error_kinds: h2load's failed connects; the body length of
// an answer whose length is checked, `body_length_checked`).
std::string adapter_error_count_reason(std::string_view metric, std::string_view adapter,
                                       std::string_view worker, bool body_length_checked);

// Why a system under test of [router] (or [routers.NAME], `section`) impl = "external" can
// never give `metric`, or "": router.cpu_per_request and router.rss_bytes, as benchgate samples
// the CPU and memory only of a process it started.
std::string external_router_unmeasurable_reason(std::string_view metric, std::string_view section);

}  // namespace benchgate::scenario
