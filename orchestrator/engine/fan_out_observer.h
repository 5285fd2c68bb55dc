// Passes every engine event to several observers in order (terminal, store, metrics).
#pragma once

#include <vector>

#include "orchestrator/engine/run_observer.h"

namespace benchgate::engine {

class FanOutObserver : public RunObserver {
 public:
  explicit FanOutObserver(std::vector<RunObserver*> observers) : observers_(std::move(observers)) {}

  void scenario_started(const scenario::Scenario& s) override {
    for (auto* o : observers_) o->scenario_started(s);
  }
  void workload_started(const scenario::Workload& w) override {
    for (auto* o : observers_) o->workload_started(w);
  }
  void window_started(const scenario::Workload& w, const WindowInfo& i) override {
    for (auto* o : observers_) o->window_started(w, i);
  }
  void progress(const scenario::Workload& w, const WindowInfo& i, double ops, int64_t p99,
                int64_t elapsed) override {
    for (auto* o : observers_) o->progress(w, i, ops, p99, elapsed);
  }
  void timeline_second(const scenario::Workload& w, const WindowInfo& i, int64_t start,
                       const results::TimelineSecond& s) override {
    for (auto* o : observers_) o->timeline_second(w, i, start, s);
  }
  void window_finished(const scenario::Workload& w, const WindowInfo& i,
                       const results::Repetition* r) override {
    for (auto* o : observers_) o->window_finished(w, i, r);
  }
  void workload_finished(const results::WorkloadResult& r) override {
    for (auto* o : observers_) o->workload_finished(r);
  }
  void message(const std::string& m) override {
    for (auto* o : observers_) o->message(m);
  }

 private:
  std::vector<RunObserver*> observers_;
};

}  // namespace benchgate::engine
