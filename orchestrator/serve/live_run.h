// What the service's running job is doing now, for the web UI's live page: the scenario's
// progress (workload k of N, repetition, the window's elapsed time, the latest ops/s and p99)
// and the seconds of the running workload's measured windows so far (engine/timeline.h), the
// finished windows' and the one in progress, so the page draws the report's timelines as they
// grow. An engine observer (RunExecutor adds it to every job); the web pages read a copy.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "orchestrator/engine/run_observer.h"
#include "orchestrator/results/results.h"

namespace benchgate::serve {

struct LiveState {
  bool running = false;  // a scenario is running
  std::string scenario;
  size_t workloads = 0;  // in the scenario
  size_t workload = 0;   // 1-based: the one running
  std::string workload_name;
  bool in_window = false;
  engine::WindowInfo window;
  double ops_per_second = 0;  // over all workers, the latest progress event
  int64_t p99_ns = 0;         // of the window so far
  int64_t elapsed_ns = 0;     // since the window's start
  // The running workload's measured windows: each repetition with its start, length and the
  // seconds received so far (a finished one has all of its seconds).
  results::WorkloadResult timeline;
  uint64_t updates = 0;  // events received; grows with every change
};

class LiveRun : public engine::RunObserver {
 public:
  void scenario_started(const scenario::Scenario&) override;
  void workload_started(const scenario::Workload&) override;
  void window_started(const scenario::Workload&, const engine::WindowInfo&) override;
  void progress(const scenario::Workload&, const engine::WindowInfo&, double ops_per_second,
                int64_t p99_ns, int64_t elapsed_ns) override;
  void timeline_second(const scenario::Workload&, const engine::WindowInfo&, int64_t start_unix_ns,
                       const results::TimelineSecond&) override;
  void window_finished(const scenario::Workload&, const engine::WindowInfo&,
                       const results::Repetition*) override;
  // The job is over: nothing is running.
  void finished();

  LiveState snapshot() const;

 private:
  // The repetition of the running workload a measured window fills (created when first seen);
  // a window of another workload (a compared variant) starts that workload's timeline afresh.
  results::Repetition& repetition(const scenario::Workload&, const engine::WindowInfo&);

  mutable std::mutex mutex_;
  LiveState state_;
};

}  // namespace benchgate::serve
