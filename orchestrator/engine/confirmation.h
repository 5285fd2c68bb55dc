// The confirming rerun of change gates with `confirm = 1` (docs/GATES.md, "Confirming rerun"):
// a workload whose gate would fail is measured once more at once, on the same system under
// test and workers, before the next workload (interleaved in the run), and the gates judge the
// rerun. The engine knows nothing of gates: it asks a hook after each workload.
#pragma once

#include <chrono>
#include <string>

#include "orchestrator/engine/run_observer.h"
#include "orchestrator/engine/workload_runner.h"
#include "orchestrator/results/results.h"
#include "orchestrator/scenario/scenario.h"

namespace benchgate::engine {

class ConfirmationHook {
 public:
  virtual ~ConfirmationHook() = default;
  // Why `measured` (which finished ok) must be measured once more, for the log ("change gate
  // #1 hello latency.p50 fails: ..."), or "" when no gate asks for it.
  virtual std::string rerun_reason(const results::WorkloadResult& measured) = 0;
  // Where the rerun's windows are shown (the live line, log lines); not its workload start
  // and end, so that the rerun is neither stored nor tabled as a workload of its own.
  virtual RunObserver& rerun_observer() = 0;
  // The rerun's result, whatever its status.
  virtual void rerun_finished(const results::WorkloadResult& measured,
                              results::WorkloadResult rerun) = 0;
};

// Asks `hook` (may be null: nothing happens) about `measured`, the result of `workload` just
// run in `environment`, and measures the workload once more when it says so. Workers that
// died or were stopped since are replaced first (WorkerPool::recover) by `startup_deadline`.
// True when a rerun was tried and failed or lost a worker (its workers could not be replaced
// included): the pool is then as suspect as after a failed workload (RunPool::finished).
bool confirm_workload(ConfirmationHook* hook, const scenario::Workload& workload,
                      const results::WorkloadResult& measured, WorkloadEnvironment& environment,
                      std::chrono::steady_clock::time_point startup_deadline);

}  // namespace benchgate::engine
