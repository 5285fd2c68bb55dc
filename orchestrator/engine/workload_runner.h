// Runs one workload on a ready system under test with a ready worker pool: opens a Run
// stream per worker, waits until every worker is connected, then issues the warm-up window
// and each measured window at one shared start instant, collects and merges the results
// and the router's metric deltas per window. Any failure marks the workload failed with its
// cause; the repetitions that completed are kept. A workload whose every operation failed
// fails too, once its windows are measured (results/nothing_succeeded.h).
#pragma once

#include "orchestrator/engine/run_observer.h"
#include "orchestrator/results/results.h"
#include "orchestrator/sut/system_under_test.h"
#include "orchestrator/workers/worker_pool.h"

namespace benchgate::engine {

struct WorkloadEnvironment {
  sut::SystemUnderTest& sut;
  workers::WorkerPool& pool;
  bool bundled_router = true;
  RunObserver& observer;
  std::string scenario;  // for log lines: "[quickstart] ..."
  // A comparison runs each variant's windows as workloads of one repetition: the rule over
  // every repetition (results/nothing_succeeded.h) is then the comparison's to apply.
  bool one_window_of_many = false;
};

results::WorkloadResult run_workload(const scenario::Workload& workload,
                                     WorkloadEnvironment& environment);

}  // namespace benchgate::engine
