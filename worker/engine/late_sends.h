// Open loop: `late_sends` counts each of the schedule's requests once, at its first write
// (docs/MEASUREMENT.md "Closed loop and open loop"). A request a server never processed goes
// back to the schedule and is written again on a new connection (pipelined behind an HTTP/1.1
// "Connection: close", refused by an HTTP/2 GOAWAY): it was late, or not, when it was first
// written. The requests taken back are the last the connection took, so they are the next it
// writes: a count of them is enough, 2 bytes where a high-water mark of the schedule's index
// would take 8 of the HTTP/1.1 connection object, whose size is kept down to a malloc chunk
// (worker/http/connection.h). One per connection; tested through the engine.
#pragma once

#include <cstdint>

namespace benchgate::worker {

// A write later than this after its request's intended instant is late.
constexpr int64_t kLateSendNs = 1'000'000;

class LateSends {
 public:
  // The window begins: nothing of its schedule written yet.
  void begin_window() { taken_back_ = 0; }
  // `n` requests already written went back to the schedule: the next `n` written are theirs.
  void taken_back(uint32_t n) { taken_back_ = static_cast<uint16_t>(taken_back_ + n); }
  // A request meant for `intended_ns` is written at `now_ns` (closed loop: intended = now).
  // True when the write counts in `late_sends`: the request's first, and late.
  bool counts(int64_t intended_ns, int64_t now_ns) {
    if (taken_back_ > 0) {
      --taken_back_;
      return false;
    }
    return now_ns - intended_ns > kLateSendNs;
  }

 private:
  // Requests taken back and not yet written again: at most the connection's in_flight or
  // streams (both at most 4,096, worker/engine/validate.cc).
  uint16_t taken_back_ = 0;
};

}  // namespace benchgate::worker
