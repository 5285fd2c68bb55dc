// A window second by second; see timeline.h.
#include "orchestrator/engine/timeline.h"

#include <algorithm>
#include <limits>

namespace benchgate::engine {
namespace {

constexpr int64_t kSecondNs = 1'000'000'000;

}  // namespace

// A worker's progress figures are any uint64 and int64 (interval_ns only not negative): each sum
// stops at its type's end (results::saturated_sum) rather than wrap round, where an interval
// ending past INT64_MAX would put the worker's next one back at the window's start, and a count
// would read as a few.
using results::saturated_sum;

void TimelineBuilder::add(uint32_t worker, int64_t interval_ns, uint64_t operations,
                          uint64_t errors, const std::optional<HdrHistogram>& latency) {
  if (interval_ns <= 0) return;
  int64_t& clock = clock_[worker];
  const int64_t start = clock;
  clock = saturated_sum(clock, interval_ns);
  if (start < duration_ns_) {
    const int64_t last = std::max<int64_t>(0, (duration_ns_ - 1) / kSecondNs);
    const int64_t k = std::clamp<int64_t>((clock - 1) / kSecondNs, 0, last);
    Second& s = open_[k];
    auto& [successes, ns] = s.per_worker[worker];
    successes = saturated_sum(successes, operations > errors ? operations - errors : 0);
    ns = saturated_sum(ns, interval_ns);
    s.errors = saturated_sum(s.errors, errors);
    // The workers' samples of a second past INT64_MAX have no histogram that holds them: the
    // second shows no percentiles rather than those of the workers that fitted, which would
    // pass for everyone's (a window's result with such sums fails, engine/window_merge.cc).
    if (latency && latency->total_count() > 0 && !s.latency_past_int64) {
      if (!s.latency) s.latency.emplace();
      if (!s.latency->add(*latency)) {
        s.latency.reset();
        s.latency_past_int64 = true;
      }
    }
  }
  int64_t slowest = std::numeric_limits<int64_t>::max();
  for (const auto& [w, c] : clock_) slowest = std::min(slowest, c);
  // Seconds that end at or before the slowest worker's clock can receive nothing more.
  reduce_through(slowest / kSecondNs - 1);
}

void TimelineBuilder::reduce_through(int64_t second) {
  while (!open_.empty() && open_.begin()->first <= second) {
    auto node = open_.extract(open_.begin());
    const Second& s = node.mapped();
    results::TimelineSecond out;
    out.second = static_cast<uint32_t>(node.key());
    for (const auto& [worker, figures] : s.per_worker) {
      if (figures.second > 0) {
        out.ops_per_second +=
            static_cast<double>(figures.first) * 1e9 / static_cast<double>(figures.second);
      }
    }
    out.errors = s.errors;
    if (s.latency) {
      out.p50_ns = s.latency->value_at_percentile(50);
      out.p99_ns = s.latency->value_at_percentile(99);
      out.max_ns = s.latency->max();
    }
    done_.push_back(out);
  }
}

std::vector<results::TimelineSecond> TimelineBuilder::finish() {
  reduce_through(std::numeric_limits<int64_t>::max());
  clock_.clear();
  return std::move(done_);
}

}  // namespace benchgate::engine
