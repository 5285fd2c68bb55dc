#include "orchestrator/engine/start_sync.h"

#include <algorithm>
#include <string>

namespace benchgate::engine {

std::optional<ClockEstimate> estimate_clock(std::vector<ClockSample> samples) {
  const size_t taken = samples.size();
  std::erase_if(samples, [](const ClockSample& s) {
    return s.t3 < s.t2 || s.wide_delay() < 0 || s.wide_delay() > kMaxClockOffsetNs ||
           s.wide_offset() > kMaxClockOffsetNs || s.wide_offset() < -kMaxClockOffsetNs;
  });
  if (samples.empty()) return std::nullopt;
  std::stable_sort(samples.begin(), samples.end(), [](const ClockSample& a, const ClockSample& b) {
    return a.delay() < b.delay();
  });
  const size_t keep = std::max<size_t>(1, samples.size() / kClockKeepDivisor);
  std::vector<int64_t> offsets;
  offsets.reserve(keep);
  for (size_t i = 0; i < keep; ++i) offsets.push_back(samples[i].offset());
  std::sort(offsets.begin(), offsets.end());
  ClockEstimate out;
  out.offset_ns = offsets[(keep - 1) / 2];
  out.rtt_ns = samples.front().delay();
  out.samples = static_cast<uint32_t>(taken);
  out.kept = static_cast<uint32_t>(keep);
  return out;
}

Expected<v1::Window> window_for_worker(const v1::Window& shared, int64_t start_steady_ns,
                                       const std::optional<ClockEstimate>& clock) {
  v1::Window window = shared;
  if (!clock) return window;
  const auto on_worker = to_worker_clock(start_steady_ns, clock->offset_ns);
  if (!on_worker) {
    return Error{"window " + std::to_string(shared.index()) + ": the start instant " +
                 std::to_string(start_steady_ns) + " ns plus the worker's clock offset " +
                 std::to_string(clock->offset_ns) +
                 " ns lies outside int64: no instant of the worker's clock"};
  }
  window.set_start_at_worker_ns(*on_worker);
  return window;
}

namespace {

// A skew worked out in 128 bits (a worker's instant is any int64, and so may an offset be):
// nullopt unless within kMaxStartSkewNs either way.
std::optional<int64_t> skew_of(__int128 wide) {
  if (wide > kMaxStartSkewNs || wide < -kMaxStartSkewNs) return std::nullopt;
  return static_cast<int64_t>(wide);
}

}  // namespace

Expected<void> record_starts(results::Repetition& rep, const std::vector<v1::WindowResult>& parts,
                             const std::vector<std::optional<ClockEstimate>>& clocks,
                             PlannedStart planned, int64_t bound_ns) {
  rep.worker_start_skew_ns.clear();
  rep.start_spread_ns.reset();
  bool all_reported = !parts.empty();
  int64_t earliest = 0;  // relative to the planned instant, which the span includes
  int64_t latest = 0;
  for (size_t w = 0; w < parts.size(); ++w) {
    const auto& part = parts[w];
    const auto& clock = w < clocks.size() ? clocks[w] : std::nullopt;
    // The worker's own words, as merge_window names its malformed results.
    auto malformed = [&](const char* field, int64_t value, const std::string& how) {
      const size_t worker = w < rep.workers.size() ? rep.workers[w].worker : w;
      return Error{"worker " + std::to_string(worker) + " sent a malformed result: in window " +
                   std::to_string(part.window()) + ", " + field + " " + std::to_string(value) +
                   how + " is more than 2^61 ns (73 years) from the planned start"};
    };
    std::optional<int64_t> skew;
    if (clock && part.started_worker_ns() > 0) {
      // On the orchestrator's clock (to_orchestrator_clock), then against the planned start.
      skew = skew_of(__int128{part.started_worker_ns()} - clock->offset_ns - planned.steady_ns);
      if (!skew) {
        return malformed(
            "started_worker_ns", part.started_worker_ns(),
            " (the worker's clock, offset " + std::to_string(clock->offset_ns) + " ns)");
      }
    } else if (part.started_unix_ns() > 0) {
      skew = skew_of(__int128{part.started_unix_ns()} - planned.unix_ns);
      if (!skew) return malformed("started_unix_ns", part.started_unix_ns(), "");
    }
    if (w < rep.workers.size()) {
      auto& share = rep.workers[w];
      if (clock) {
        share.clock_offset_ns = clock->offset_ns;
        share.rtt_ns = clock->rtt_ns;
      }
      share.start_skew_ns = skew;
    }
    if (!skew) {
      all_reported = false;
      continue;
    }
    rep.worker_start_skew_ns.push_back(*skew);
    earliest = std::min(earliest, *skew);
    latest = std::max(latest, *skew);
  }
  if (!all_reported) {
    rep.worker_start_skew_ns.clear();
    return {};
  }
  // At most 2 x kMaxStartSkewNs: fits.
  rep.start_spread_ns = latest - earliest;
  if (*rep.start_spread_ns > bound_ns) rep.flags.push_back("start_skew");
  return {};
}

}  // namespace benchgate::engine
