// One start across hosts (docs/MEASUREMENT.md "Clock offset and start skew"): the clock
// offset and round-trip time of a worker from an NTP-style exchange of timestamps over its Run
// stream, the shared start instant on each worker's own clock, and what each worker achieved.
// Pure arithmetic: the exchange itself is the workload runner's.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "benchgate/v1/worker.pb.h"
#include "common/util/expected.h"
#include "orchestrator/results/results.h"

namespace benchgate::engine {

// Rounds of the exchange before a window, and how long they may take: rounds stop once this
// much time has passed after the first (a slow link gets fewer samples, never a late window).
inline constexpr int kClockRounds = 8;
inline constexpr int64_t kClockExchangeBudgetNs = 1'000'000'000;
// Of the samples, the share with the lowest delay that the offset is taken from (at least 1).
inline constexpr int kClockKeepDivisor = 4;

// One probe and its reply: t1 sent and t4 received on the orchestrator's clock, t2 received
// and t3 sent on the worker's (both monotonic clocks, nanoseconds). A worker may send any
// int64, so both figures are worked out in 128 bits, where no difference overflows;
// estimate_clock() keeps only samples whose figures fit (kMaxClockOffsetNs).
struct ClockSample {
  int64_t t1 = 0;
  int64_t t2 = 0;
  int64_t t3 = 0;
  int64_t t4 = 0;
  // Time on the wire both ways: (t4 - t1) - (t3 - t2).
  __int128 wide_delay() const { return (__int128{t4} - t1) - (__int128{t3} - t2); }
  // Worker clock minus orchestrator clock, exact when both ways take as long:
  // ((t2 - t1) + (t3 - t4)) / 2.
  __int128 wide_offset() const { return ((__int128{t2} - t1) + (__int128{t3} - t4)) / 2; }
  int64_t delay() const { return static_cast<int64_t>(wide_delay()); }
  int64_t offset() const { return static_cast<int64_t>(wide_offset()); }
};

// The largest offset (either way) and delay a sample may give, 2^62 ns (146 years): far beyond
// any two clocks' disagreement, and small enough that an instant of ours plus the offset never
// overflows. A worker's reply beyond it is no clock reading and is dropped.
inline constexpr int64_t kMaxClockOffsetNs = int64_t{1} << 62;

struct ClockEstimate {
  int64_t offset_ns = 0;  // worker clock minus orchestrator clock
  int64_t rtt_ns = 0;     // the lowest delay of any sample
  uint32_t samples = 0;   // samples taken
  uint32_t kept = 0;      // samples the offset is the median of
};

// The `samples.size() / kClockKeepDivisor` samples (at least 1) of lowest delay are kept, and
// the offset is the median of theirs (the lower middle one of an even count); the RTT is the
// lowest delay. A sample whose worker times go backwards (t3 < t2), whose delay is negative,
// or whose delay or offset is beyond kMaxClockOffsetNs is dropped. nullopt: no usable sample.
std::optional<ClockEstimate> estimate_clock(std::vector<ClockSample> samples);

// An instant of the orchestrator's clock on the worker's clock, and back; nullopt where it lies
// outside int64 (an offset or a worker's instant near either end of the range: the instants a
// worker reports are any int64, and a ClockEstimate made elsewhere than estimate_clock() need
// not be bounded).
inline std::optional<int64_t> to_worker_clock(int64_t orchestrator_ns, int64_t offset_ns) {
  int64_t out = 0;
  if (__builtin_add_overflow(orchestrator_ns, offset_ns, &out)) return std::nullopt;
  return out;
}
inline std::optional<int64_t> to_orchestrator_clock(int64_t worker_ns, int64_t offset_ns) {
  int64_t out = 0;
  if (__builtin_sub_overflow(worker_ns, offset_ns, &out)) return std::nullopt;
  return out;
}

// The window command of one worker: the shared instant `start_steady_ns` (orchestrator's
// monotonic clock) on the worker's clock when its offset was measured; start_at_unix_ns alone
// (the worker's own conversion, exact on one host) when it was not. An error, naming the
// instant and the offset, where the instant on the worker's clock lies outside int64.
Expected<v1::Window> window_for_worker(const v1::Window& shared, int64_t start_steady_ns,
                                       const std::optional<ClockEstimate>& clock);

// The planned start of a window in both of the orchestrator's clocks.
struct PlannedStart {
  int64_t steady_ns = 0;
  int64_t unix_ns = 0;
};

// The largest start skew either way that record_starts() takes, 2^61 ns (73 years): no worker
// starts that far off, and a spread between two such skews still fits int64.
inline constexpr int64_t kMaxStartSkewNs = kMaxClockOffsetNs / 2;

// Records each worker's clock and start on `rep.workers` (same order as `parts`): offset and
// RTT when measured, start skew = its achieved start on the orchestrator's clock minus the
// planned instant (converted with its offset; a worker without one: its Unix start minus the
// Unix instant). rep.worker_start_skew_ns gets every worker's skew, or stays empty unless
// every worker reported its start; rep.start_spread_ns the span from the earliest to the
// latest of the planned instant and the achieved starts. Flags `start_skew` when that span
// exceeds `bound_ns`. A start whose skew is beyond kMaxStartSkewNs (a worker may report any
// int64) is a malformed result, "worker N sent a malformed result: in window W,
// started_worker_ns ...", N the worker's index of its rep.workers row.
Expected<void> record_starts(results::Repetition& rep, const std::vector<v1::WindowResult>& parts,
                             const std::vector<std::optional<ClockEstimate>>& clocks,
                             PlannedStart planned, int64_t bound_ns);

}  // namespace benchgate::engine
