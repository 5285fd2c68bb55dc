// The window as one load thread's connections see it: the phase, the window's instants,
// the thread's statistics and the count of unanswered requests that decides when the drain
// is over. Owned by LoadThread and touched only on its thread.
#pragma once

#include <cstdint>
#include <functional>

#include "worker/engine/load_plan.h"
#include "worker/engine/thread_stats.h"

namespace benchgate::worker {

enum class Phase : uint8_t {
  kIdle,      // between windows: connections stay open, nothing is sent
  kWaiting,   // a window is scheduled; (re)connecting, waiting for its start instant
  kRunning,   // sending load
  kDraining,  // no new requests; waiting for the outstanding ones
};

struct ThreadState {
  explicit ThreadState(const LoadPlan& load_plan) : plan(load_plan) {}

  const LoadPlan& plan;
  ThreadStats stats;
  Phase phase = Phase::kIdle;
  int64_t start_ns = 0;  // steady clock
  int64_t end_ns = 0;    // steady clock
  uint32_t window_index = 0;
  // From begin_window until the engine took the window's statistics: late arrivals that
  // belong to the window (WAMP events) may still be counted.
  bool collecting = false;
  uint32_t outstanding = 0;
  std::function<void()> on_drained;  // runs when the last outstanding request of a draining
                                     // window finished

  void request_sent() { ++outstanding; }
  void request_finished() {
    --outstanding;
    if (outstanding == 0 && phase == Phase::kDraining) on_drained();
  }
};

}  // namespace benchgate::worker
