// Merges the per-worker results of one window into one repetition: counters are summed,
// histograms merged exactly (decoded from HdrHistogram V2 and added bucket by bucket; a
// histogram of another layout is rejected), the data window spans the earliest first send to
// the latest last receive (an instant of 0 is not reported and spans nothing), and the flags
// are raised (docs/MEASUREMENT.md). Each worker's clock and start are recorded apart
// (start_sync.h record_starts).
#pragma once

#include <vector>

#include "benchgate/v1/worker.pb.h"
#include "common/util/expected.h"
#include "orchestrator/results/results.h"

namespace benchgate::engine {

// A load thread busy on the CPU for at least this share of the window flags
// `worker_saturated` (docs/MEASUREMENT.md "Flags").
inline constexpr double kSaturationThreshold = 0.9;
// A load thread that waited for a CPU (runnable, not running) for at least this share of the
// window flags `worker_cpu_starved`: the load generator was short of CPU, whatever its own
// use.
inline constexpr double kCpuStarvedThreshold = 0.05;
// An open-loop repetition in which more than this share of the schedule's requests were
// written more than 1 ms after their intended instants (`late_sends`), or more than this share
// were still unwritten at the window's end (`unsent`), flags `rate_not_kept`: the generator or
// the server fell behind the rate asked for (docs/MEASUREMENT.md "Flags").
inline constexpr double kRateNotKeptShare = 0.01;

// Whether an open-loop repetition fell behind its schedule of `scheduled` requests (the
// workload's rate x the window's length), by the rule of kRateNotKeptShare.
bool rate_not_kept(double scheduled, uint64_t late_sends, uint64_t unsent);

// `workers` holds each part's worker index in the pool (parts[i] came from worker workers[i]),
// which errors and each worker's share name: once a worker is lost (on_worker_loss =
// "continue") the parts are those of the workers left. Empty: part i is worker i. `rate`: the
// workload's rate in requests/s, open loop when > 0 (0: closed loop). `starts_on_worker`: the
// start instant each part's worker was sent on its own clock (Window.start_at_worker_ns, 0:
// none), which its started_worker_ns is judged by (workers/result_checks.h check_started);
// empty: none sent.
Expected<results::Repetition> merge_window(const std::vector<v1::WindowResult>& parts,
                                           uint32_t index, int64_t start_unix_ns,
                                           int64_t duration_ns,
                                           const std::vector<size_t>& workers = {}, double rate = 0,
                                           const std::vector<int64_t>& starts_on_worker = {});

}  // namespace benchgate::engine
