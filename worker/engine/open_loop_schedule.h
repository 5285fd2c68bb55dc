// The open-loop (fixed rate) send schedule of one connection, as wrk2 does it: the total
// rate is divided evenly over the connections, each connection sends at a fixed interval, and
// the connections are staggered so the requests of all of them together are evenly spaced.
// With several workers the stagger spans every worker's connections: this worker's
// connections are numbers first .. first + connections - 1 of `total` connections of the
// workload (WorkloadSpec.schedule_first / schedule_connections), so request k of connection g
// of the workload is due at  (g + k * total) / total_rate  after the window start, where
// total_rate = rate * total / connections. Latency is measured from that instant, not from
// the actual send (coordinated omission correction). Pure arithmetic on offsets from the
// window start, so it is tested without clocks.
#pragma once

#include <cmath>
#include <cstdint>

namespace benchgate::worker {

class OpenLoopSchedule {
 public:
  OpenLoopSchedule() = default;
  // rate > 0 requests/s over this worker's `connections` connections; this is connection
  // `index` of them. `first` / `total`: this worker's place among all of the workload's
  // connections (total 0: this worker alone).
  OpenLoopSchedule(double rate, uint32_t connections, uint32_t index, uint32_t first = 0,
                   uint32_t total = 0)
      : interval_ns_(1e9 * connections / rate),
        offset_ns_(interval_ns_ * (first + index) / (total > 0 ? total : connections)) {}

  double interval_ns() const { return interval_ns_; }

  // Offset from the window start at which request k is due.
  int64_t due_offset_ns(uint64_t k) const {
    return std::llround(offset_ns_ + static_cast<double>(k) * interval_ns_);
  }

  // Number of requests due at or before `elapsed_ns` after the window start.
  uint64_t due_by(int64_t elapsed_ns) const {
    if (elapsed_ns < due_offset_ns(0)) return 0;
    // Estimate with floating point, then settle on the exact boundary of due_offset_ns. The
    // first instant is rounded, so elapsed may lie just below offset_ns_: the estimate is
    // kept at 0 rather than converting a negative floor to unsigned.
    const double estimate =
        std::floor((static_cast<double>(elapsed_ns) - offset_ns_) / interval_ns_);
    auto k = estimate > 0 ? static_cast<uint64_t>(estimate) : uint64_t{0};
    while (k > 0 && due_offset_ns(k) > elapsed_ns) --k;
    while (due_offset_ns(k + 1) <= elapsed_ns) ++k;
    return k + 1;
  }

  // Number of requests due inside a window of `duration_ns`: offsets in [0, duration).
  uint64_t due_in_window(int64_t duration_ns) const {
    return duration_ns <= 0 ? 0 : due_by(duration_ns - 1);
  }

 private:
  double interval_ns_ = 0;
  double offset_ns_ = 0;
};

}  // namespace benchgate::worker
