// See live_run.h.
#include "orchestrator/serve/live_run.h"

#include "orchestrator/scenario/scenario.h"

namespace benchgate::serve {

void LiveRun::scenario_started(const scenario::Scenario& s) {
  std::lock_guard lock(mutex_);
  state_ = LiveState();
  state_.running = true;
  state_.scenario = s.name;
  state_.workloads = s.workloads.size();
  state_.updates = 1;
}

void LiveRun::workload_started(const scenario::Workload& w) {
  std::lock_guard lock(mutex_);
  ++state_.workload;
  state_.workload_name = w.name;
  state_.in_window = false;
  state_.timeline = results::WorkloadResult();
  state_.timeline.spec.name = w.name;
  ++state_.updates;
}

void LiveRun::window_started(const scenario::Workload& w, const engine::WindowInfo& info) {
  std::lock_guard lock(mutex_);
  state_.workload_name = w.name;
  state_.in_window = true;
  state_.window = info;
  state_.ops_per_second = 0;
  state_.p99_ns = 0;
  state_.elapsed_ns = 0;
  ++state_.updates;
}

void LiveRun::progress(const scenario::Workload&, const engine::WindowInfo& info,
                       double ops_per_second, int64_t p99_ns, int64_t elapsed_ns) {
  std::lock_guard lock(mutex_);
  state_.window = info;
  state_.ops_per_second = ops_per_second;
  state_.p99_ns = p99_ns;
  state_.elapsed_ns = elapsed_ns;
  ++state_.updates;
}

results::Repetition& LiveRun::repetition(const scenario::Workload& w,
                                         const engine::WindowInfo& info) {
  if (state_.timeline.spec.name != w.name) {
    state_.timeline = results::WorkloadResult();
    state_.timeline.spec.name = w.name;
  }
  const uint32_t index = info.repetition - 1;
  auto& reps = state_.timeline.repetitions;
  for (auto& rep : reps) {
    if (rep.index == index) return rep;
  }
  results::Repetition& rep = reps.emplace_back();
  rep.index = index;
  rep.duration_ns = info.duration_ns;
  return rep;
}

void LiveRun::timeline_second(const scenario::Workload& w, const engine::WindowInfo& info,
                              int64_t start_unix_ns, const results::TimelineSecond& second) {
  if (!info.measured || info.repetition == 0) return;
  std::lock_guard lock(mutex_);
  results::Repetition& rep = repetition(w, info);
  rep.start_unix_ns = start_unix_ns;
  rep.timeline.push_back(second);
  ++state_.updates;
}

void LiveRun::window_finished(const scenario::Workload& w, const engine::WindowInfo& info,
                              const results::Repetition* finished) {
  std::lock_guard lock(mutex_);
  state_.in_window = false;
  ++state_.updates;
  if (!info.measured || info.repetition == 0 || finished == nullptr) return;
  // The finished window's every second (its last ones come only with the result).
  results::Repetition& rep = repetition(w, info);
  rep.start_unix_ns = finished->start_unix_ns;
  rep.duration_ns = finished->duration_ns;
  rep.timeline = finished->timeline;
}

void LiveRun::finished() {
  std::lock_guard lock(mutex_);
  const uint64_t updates = state_.updates;
  state_ = LiveState();
  state_.updates = updates + 1;
}

LiveState LiveRun::snapshot() const {
  std::lock_guard lock(mutex_);
  return state_;
}

}  // namespace benchgate::serve
