// A worker pool as a run uses it: started once, then made usable again before every workload
// but its first (WorkerPool::recover). It keeps what that needs to know: whether the pool ran
// a workload before, and whether that workload failed, which makes every one of its workers
// suspect. The scenario runner and the comparison runner share it, one per pool they own.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "common/util/expected.h"
#include "orchestrator/engine/run_observer.h"
#include "orchestrator/workers/worker_pool.h"

namespace benchgate::engine {

class RunPool {
 public:
  // `startup_timeout`: how long a start or a replacement of its workers may take (the engine's
  // startup deadline, or a [worker_impls.NAME] startup_timeout).
  RunPool(std::unique_ptr<workers::WorkerPool> pool, std::chrono::nanoseconds startup_timeout)
      : pool_(std::move(pool)), startup_timeout_(startup_timeout) {}

  workers::WorkerPool& pool() { return *pool_; }
  std::chrono::nanoseconds startup_timeout() const { return startup_timeout_; }
  // When a start or a replacement begun now must be done.
  std::chrono::steady_clock::time_point startup_deadline() const {
    return std::chrono::steady_clock::now() + startup_timeout_;
  }
  Expected<void> start(size_t count, std::chrono::steady_clock::time_point deadline) {
    return pool_->start(count, deadline);
  }
  // Before a workload: a pool that ran one before is recovered by the deadline, and what
  // that did is logged ("[SCENARIO] replaced worker 0 (...)"). The error is "workers could not
  // be replaced: ...", of kind kInterrupted when an interrupt ended the wait.
  Expected<void> prepare(std::chrono::steady_clock::time_point deadline, RunObserver& observer,
                         const std::string& scenario);
  // After a workload of this pool, with whether it failed.
  void finished(bool failed) { last_failed_ = failed; }
  void stop() { pool_->stop(); }

 private:
  std::unique_ptr<workers::WorkerPool> pool_;
  std::chrono::nanoseconds startup_timeout_;
  bool used_ = false;
  bool last_failed_ = false;
};

}  // namespace benchgate::engine
