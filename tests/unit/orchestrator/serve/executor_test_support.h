// A service's job executor as `orchestrator serve` wires it (serve/run_executor.h behind a
// serve/job_queue.h), with a store in a temporary folder and the engine's fakes
// (tests/unit/orchestrator/engine/engine_fakes.h) in place of the router and the workers: a
// job runs in this process in a few milliseconds.
#pragma once

#include <gtest/gtest.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "orchestrator/app/interrupt.h"
#include "orchestrator/metrics/metrics_observer.h"
#include "orchestrator/serve/job_queue.h"
#include "orchestrator/serve/run_executor.h"
#include "orchestrator/store/store.h"
#include "tests/unit/orchestrator/engine/engine_fakes.h"
#include "tests/unit/orchestrator/store/store_test_support.h"

namespace benchgate::serve::testing {

// One workload of one short measured window, no gate: a run that goes well exits 0.
inline scenario::Scenario short_scenario() {
  scenario::Scenario s;
  s.name = "fakes";
  scenario::Workload w;
  w.name = "w";
  w.warmup_ns = 0;
  w.duration_ns = 10'000'000;
  w.repetitions = 1;
  w.workers = 1;
  w.connections = 1;
  s.workloads.push_back(w);
  return s;
}

// What a job ended with, and what it wrote to its client's stderr.
struct Ended {
  JobStatus status;
  std::string err;
};

class ExecutorBench {
 public:
  // `scenario_folders`: the --scenarios folder's spellings (client_paths.h), taken out of what
  // a job shows.
  explicit ExecutorBench(std::vector<std::string> scenario_folders = {}) {
    auto opened = store::Store::open(dir_.file("bench.db"));
    EXPECT_TRUE(opened) << opened.message();
    if (opened) db_ = std::move(*opened);
    options_.factories = &factories_;
    options_.log_dir = dir_.file("logs");
    executor_ = std::make_unique<RunExecutor>(*db_, options_, store::RunInfo{}, metrics_,
                                              std::move(scenario_folders));
    // One run's system under test and worker pool, used only by a job that starts.
    factories_.suts = {engine::testing::FakeSut::Script{}};
    factories_.pools = {engine::testing::FakePool::Script{}};
  }
  ~ExecutorBench() {
    queue_.reset();
    app::set_run_cancelled(false);
  }

  RunExecutor& executor() { return *executor_; }
  // The queue's limits, before the first job is submitted (queue() makes the queue with them).
  void set_queue_limits(JobQueueLimits limits) { limits_ = limits; }
  JobQueue& queue() {
    if (!queue_) queue_ = std::make_unique<JobQueue>(*executor_, limits_);
    return *queue_;
  }
  store::Store& db() { return *db_; }
  // The store's file, for a second Store on it (what a restarted service opens).
  std::string db_path() const { return dir_.file("bench.db"); }
  engine::testing::FakeFactories& factories() { return factories_; }

  // The service's folder of the jobs' logs.
  const std::string& log_dir() const { return options_.log_dir; }

  std::shared_ptr<Job> submit(scenario::Scenario s, const std::string& origin = "client",
                              JobOptions options = {}) {
    uint32_t position = 0;
    bool full = false;
    auto job = queue().submit(std::move(s), std::move(options), origin, position, full);
    EXPECT_TRUE(job) << job.message();
    return job ? *job : nullptr;
  }

  // Waits for the job's end (the test's timeout bounds a job that never ends).
  static Ended wait_end(const Job& job) {
    Ended out;
    uint64_t next = 0;
    bool ended = false;
    while (!ended) {
      for (const JobEvent& event : job.events_since(next, std::chrono::seconds(1), ended)) {
        if (const auto* o = std::get_if<JobOutput>(&event); o && o->to_stderr) out.err += o->text;
      }
    }
    out.status = job.status();
    return out;
  }

  std::string scrape() const {
    prometheus::TextSerializer serializer;
    return serializer.Serialize(metrics_.registry()->Collect());
  }

 private:
  store::testing::TempDir dir_;
  std::unique_ptr<store::Store> db_;
  metrics::MetricsObserver metrics_;
  engine::testing::FakeFactories factories_;
  engine::EngineOptions options_;
  std::unique_ptr<RunExecutor> executor_;
  JobQueueLimits limits_;
  std::unique_ptr<JobQueue> queue_;
};

}  // namespace benchgate::serve::testing
