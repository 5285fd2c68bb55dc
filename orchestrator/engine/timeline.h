// A measured window second by second, from the workers' progress intervals (proto Progress:
// what completed since a worker's previous event). Each worker's intervals are laid end to
// end on its own clock from the window's start; an interval belongs to the second it ends in
// (one ending at exactly 1.000 s to the first), an interval straddling the window's end to
// its last second, and one that starts after the end (the drain of requests in flight) to
// none. Per second: ops/s is the sum over workers of each worker's (operations - errors) over
// the length of its intervals in that second; errors are summed (results::saturated_sum);
// p50, p99 and max come from the workers' interval histograms merged, none where their
// samples pass INT64_MAX. A second is reduced to its figures as soon as every reporting
// worker's clock has passed it, so a long window holds few histograms.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "common/histogram/hdr_histogram.h"
#include "orchestrator/results/results.h"

namespace benchgate::engine {

// How often every worker sends its progress event (the spec's progress_interval_ns). A window
// shorter than this ends before any worker reports: it has no timeline point.
inline constexpr int64_t kProgressIntervalNs = 500'000'000;

class TimelineBuilder {
 public:
  // `workers`: how many workers report. A second is reduced only once every one of them has
  // passed it, including a worker that has sent nothing yet (stopped, or slow to start): its
  // intervals would otherwise land in a second already reduced and give it twice.
  explicit TimelineBuilder(int64_t duration_ns, size_t workers = 0) : duration_ns_(duration_ns) {
    for (size_t w = 0; w < workers; ++w) clock_[static_cast<uint32_t>(w)] = 0;
  }

  void add(uint32_t worker, int64_t interval_ns, uint64_t operations, uint64_t errors,
           const std::optional<HdrHistogram>& latency);
  // The seconds reduced so far, in order (those no worker can add to any more).
  const std::vector<results::TimelineSecond>& reduced() const { return done_; }
  // Every second, in order; the builder is empty afterwards.
  std::vector<results::TimelineSecond> finish();

 private:
  struct Second {
    std::map<uint32_t, std::pair<uint64_t, int64_t>> per_worker;  // successes, interval ns
    uint64_t errors = 0;
    std::optional<HdrHistogram> latency;
    bool latency_past_int64 = false;  // the samples summed past INT64_MAX: no percentiles
  };
  void reduce_through(int64_t second);

  int64_t duration_ns_;
  std::map<uint32_t, int64_t> clock_;  // each reporting worker's sum of interval lengths
  std::map<int64_t, Second> open_;
  std::vector<results::TimelineSecond> done_;
};

}  // namespace benchgate::engine
