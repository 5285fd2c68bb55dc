// The open-loop (fixed rate) send schedule of one connection, as wrk2 does it: the total
// rate is divided evenly over the connections, each connection sends at a fixed interval, and
// the connections are staggered so the requests of all of them together are evenly spaced.
// Request k of connection c is due at  c / rate + k * connections / rate  after the window
// start. Latency is measured from that instant, not from the actual send (coordinated
// omission correction). Pure arithmetic on offsets from the window start, so it is tested
// without clocks.
#pragma once

#include <cmath>
#include <cstdint>

namespace benchgate::worker {

class OpenLoopSchedule {
 public:
  OpenLoopSchedule() = default;
  // total_rate > 0 requests/s over `connections` connections; this is connection `index`.
  OpenLoopSchedule(double total_rate, uint32_t connections, uint32_t index)
      : interval_ns_(1e9 * connections / total_rate), offset_ns_(1e9 * index / total_rate) {}

  double interval_ns() const { return interval_ns_; }

  // Offset from the window start at which request k is due.
  int64_t due_offset_ns(uint64_t k) const {
    return std::llround(offset_ns_ + static_cast<double>(k) * interval_ns_);
  }

  // Number of requests due at or before `elapsed_ns` after the window start.
  uint64_t due_by(int64_t elapsed_ns) const {
    if (elapsed_ns < due_offset_ns(0)) return 0;
    // Estimate with floating point, then settle on the exact boundary of due_offset_ns.
    auto k = static_cast<uint64_t>(std::floor((elapsed_ns - offset_ns_) / interval_ns_));
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
