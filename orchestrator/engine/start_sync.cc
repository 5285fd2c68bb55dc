#include "orchestrator/engine/start_sync.h"

#include <algorithm>

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

v1::Window window_for_worker(const v1::Window& shared, int64_t start_steady_ns,
                             const std::optional<ClockEstimate>& clock) {
  v1::Window window = shared;
  if (clock) window.set_start_at_worker_ns(to_worker_clock(start_steady_ns, clock->offset_ns));
  return window;
}

void record_starts(results::Repetition& rep, const std::vector<v1::WindowResult>& parts,
                   const std::vector<std::optional<ClockEstimate>>& clocks, PlannedStart planned,
                   int64_t bound_ns) {
  rep.worker_start_skew_ns.clear();
  rep.start_spread_ns.reset();
  bool all_reported = !parts.empty();
  int64_t earliest = 0;  // relative to the planned instant, which the span includes
  int64_t latest = 0;
  for (size_t w = 0; w < parts.size(); ++w) {
    const auto& part = parts[w];
    const auto& clock = w < clocks.size() ? clocks[w] : std::nullopt;
    std::optional<int64_t> skew;
    if (clock && part.started_worker_ns() > 0) {
      skew = to_orchestrator_clock(part.started_worker_ns(), clock->offset_ns) - planned.steady_ns;
    } else if (part.started_unix_ns() > 0) {
      skew = part.started_unix_ns() - planned.unix_ns;
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
    return;
  }
  rep.start_spread_ns = latest - earliest;
  if (*rep.start_spread_ns > bound_ns) rep.flags.push_back("start_skew");
}

}  // namespace benchgate::engine
