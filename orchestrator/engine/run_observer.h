// What the engine tells the outside while it runs: the terminal's live line, plain log
// lines, and (later) Prometheus gauges implement this.
#pragma once

#include <cstdint>
#include <string>

#include "orchestrator/results/results.h"
#include "orchestrator/scenario/scenario.h"

namespace benchgate::engine {

struct WindowInfo {
  bool measured = false;
  uint32_t repetition = 0;  // 1-based among measured windows; 0 for warm-up
  uint32_t repetitions = 0;
  int64_t duration_ns = 0;
  // In a [compare] scenario the window's variant and the workload's own name (the workload an
  // observer is handed is named "NAME [VARIANT]" for display); both empty otherwise.
  std::string variant;
  std::string workload;
};

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void scenario_started(const scenario::Scenario&) {}
  virtual void workload_started(const scenario::Workload&) {}
  virtual void window_started(const scenario::Workload&, const WindowInfo&) {}
  // Live figures during a window: current operations per second over all workers, the p99
  // of this window so far, and the time since the window's start.
  virtual void progress(const scenario::Workload&, const WindowInfo&, double /*ops_per_second*/,
                        int64_t /*p99_ns*/, int64_t /*elapsed_ns*/) {}
  // One second of a measured window, once every worker has passed it (engine/timeline.h),
  // with the window's shared start instant: what the live page draws while the window runs.
  // The window's last seconds come only with window_finished's repetition.
  virtual void timeline_second(const scenario::Workload&, const WindowInfo&,
                               int64_t /*start_unix_ns*/, const results::TimelineSecond&) {}
  virtual void window_finished(const scenario::Workload&, const WindowInfo&,
                               const results::Repetition*) {}
  virtual void workload_finished(const results::WorkloadResult&) {}
  virtual void message(const std::string&) {}
};

}  // namespace benchgate::engine
