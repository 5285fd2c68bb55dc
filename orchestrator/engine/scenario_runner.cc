#include "orchestrator/engine/scenario_runner.h"

#include <algorithm>
#include <map>
#include <set>

#include "orchestrator/app/interrupt.h"
#include "orchestrator/engine/comparison_runner.h"
#include "orchestrator/engine/worker_impl_spawn.h"
#include "orchestrator/engine/workload_runner.h"
#include "orchestrator/processes/child_process.h"
#include "orchestrator/sut/system_under_test.h"
#include "orchestrator/workers/worker_pool.h"

namespace benchgate::engine {
namespace {

using Clock = std::chrono::steady_clock;

// The first line of a child's failure, without the stderr tail it may carry: the full text
// is already in the scenario error or the workload that saw it.
std::string headline(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  const std::string tail_intro = "; its stderr ends with:";
  if (auto at = line.find(tail_intro); at != std::string::npos) line.erase(at);
  return line;
}

// Runs the workloads in order and records every one of them: measured, failed, or "not run"
// with the reason, so a report or a gate never silently misses a workload.
class ScenarioRun {
 public:
  ScenarioRun(const scenario::Scenario& scenario, const EngineOptions& options,
              RunObserver& observer)
      : scenario_(scenario), options_(options), observer_(observer) {
    result_.scenario = scenario.name;
  }

  ScenarioResult run() {
    observer_.scenario_started(scenario_);
    sut_ =
        sut::make_system_under_test(scenario_.router, {options_.router_binary, options_.log_dir});
    result_.system_description = sut_->description();
    if (auto started = sut_->start(Clock::now() + startup_timeout()); !started) {
      // An external system is only attached to: it is not reachable rather than not started.
      const bool attached = scenario_.router.impl == scenario::RouterImpl::kExternal;
      return give_up(start_failure(
          attached ? "system under test is not reachable" : "system under test did not start",
          started.message()));
    }
    if (options_.worker_addresses.empty()) {
      pool_ = workers::make_spawning_pool(
          {options_.worker_binary, {}, options_.log_dir, options_.authenticate_spawned_workers});
    } else {
      pool_ = workers::make_connecting_pool(options_.worker_addresses, options_.worker_token);
    }
    const size_t needed = workers_needed("builtin");
    // The workers' own startup deadline: a slow system under test does not shorten it.
    if (auto started = pool_->start(needed, Clock::now() + startup_timeout()); !started) {
      return give_up(start_failure(options_.worker_addresses.empty()
                                       ? "workers did not start"
                                       : "workers given with --workers-at are not usable",
                                   started.message()));
    }
    run_workloads();
    stop();
    return std::move(result_);
  }

 private:
  std::chrono::nanoseconds startup_timeout() const {
    return std::chrono::nanoseconds(options_.startup_timeout_ns);
  }

  // The most worker processes any workload of this implementation uses.
  size_t workers_needed(const std::string& impl) const {
    size_t needed = 0;
    for (const auto& workload : scenario_.workloads) {
      if (workload.worker == impl) needed = std::max<size_t>(needed, workload.workers);
    }
    return needed;
  }

  // The pool of a [worker_impls] implementation, spawned at its first workload; nullptr with
  // `why` (and `status`) when its program is not installed or it did not start.
  workers::WorkerPool* impl_pool(const std::string& name, std::string& why,
                                 results::WorkloadStatus& status) {
    auto& pool = impl_pools_[name];
    if (pool) return pool.get();
    WorkerImplSpawn spawn = worker_impl_spawn(name, scenario_.worker_impls.at(name), options_);
    if (!spawn.not_configured.empty()) {
      why = spawn.not_configured;
      status = results::WorkloadStatus::kNotConfigured;
      impl_pools_.erase(name);
      return nullptr;
    }
    pool = workers::make_spawning_pool(spawn.config);
    auto started = pool->start(workers_needed(name), Clock::now() + startup_timeout());
    if (!started) {
      why = start_failure("worker '" + name + "' did not start", started.message());
      status = results::WorkloadStatus::kFailed;
      pool->stop();
      impl_pools_.erase(name);
      return nullptr;
    }
    return pool.get();
  }

  void run_workloads() {
    const bool bundled = scenario_.router.impl == scenario::RouterImpl::kBuiltin;
    bool after_failure = false;
    workers::WorkerPool* previous = nullptr;
    for (size_t i = 0; i < scenario_.workloads.size(); ++i) {
      const auto& workload = scenario_.workloads[i];
      workers::WorkerPool* pool = pool_.get();
      if (workload.worker != "builtin") {
        std::string why;
        results::WorkloadStatus status = results::WorkloadStatus::kFailed;
        pool = impl_pool(workload.worker, why, status);
        if (!pool) {
          record_unrun(i, status, why);
          continue;
        }
      }
      if (used_.count(pool)) {
        // Only a failure of this pool's own previous workload makes its workers suspect.
        auto recovered =
            pool->recover(after_failure && previous == pool, Clock::now() + startup_timeout());
        if (!recovered) {
          if (app::interrupted()) {
            result_.interrupted = true;
            return;
          }
          result_.error = "workers could not be replaced: " + recovered.message();
          record_not_run(i, headline(result_.error));
          return;
        }
        if (!recovered->empty()) observer_.message("[" + scenario_.name + "] " + *recovered);
      }
      used_.insert(pool);
      previous = pool;
      WorkloadEnvironment environment{*sut_, *pool, bundled, observer_, scenario_.name};
      result_.workloads.push_back(run_workload(workload, environment));
      if (app::interrupted()) {
        // The run is recorded as aborted; what did not run is not listed.
        result_.interrupted = true;
        return;
      }
      // Without a live system under test the remaining workloads cannot measure anything.
      if (std::string sut_failure = sut_->failure(); !sut_failure.empty()) {
        result_.error = sut_failure;
        record_not_run(i + 1, "the system under test failed during workload '" + workload.name +
                                  "': " + headline(sut_failure));
        return;
      }
      after_failure = result_.workloads.back().status != results::WorkloadStatus::kOk;
      if (after_failure && scenario_.fail_fast) {
        record_not_run(i + 1, "fail_fast is set and workload '" + workload.name + "' failed");
        return;
      }
    }
  }

  // Records workload i as failed or not_configured without running it (its workers are
  // unavailable).
  void record_unrun(size_t i, results::WorkloadStatus status, const std::string& why) {
    results::WorkloadResult skipped;
    skipped.spec = scenario_.workloads[i];
    skipped.status = status;
    skipped.error = why;
    observer_.workload_started(skipped.spec);
    observer_.workload_finished(skipped);
    result_.workloads.push_back(std::move(skipped));
  }

  // Records workloads [from, end) as failed without running them.
  void record_not_run(size_t from, const std::string& why) {
    for (size_t i = from; i < scenario_.workloads.size(); ++i) {
      results::WorkloadResult skipped;
      skipped.spec = scenario_.workloads[i];
      skipped.status = results::WorkloadStatus::kFailed;
      skipped.error = "not run: " + why;
      observer_.workload_finished(skipped);
      result_.workloads.push_back(std::move(skipped));
    }
  }

  ScenarioResult give_up(const std::string& why) {
    result_.error = why;
    result_.interrupted = app::interrupted();
    if (!result_.interrupted) record_not_run(0, headline(why));
    stop();
    return std::move(result_);
  }

  void stop() {
    if (pool_) pool_->stop();
    for (auto& [name, pool] : impl_pools_) pool->stop();
    if (sut_) sut_->stop();
  }

  const scenario::Scenario& scenario_;
  const EngineOptions& options_;
  RunObserver& observer_;
  ScenarioResult result_;
  std::unique_ptr<sut::SystemUnderTest> sut_;
  std::unique_ptr<workers::WorkerPool> pool_;  // the bundled worker (or --workers-at)
  std::map<std::string, std::unique_ptr<workers::WorkerPool>> impl_pools_;  // by [worker_impls]
  std::set<workers::WorkerPool*> used_;  // pools that ran a workload (to recover before the next)
};

}  // namespace

bool ScenarioResult::ok() const {
  if (!error.empty() || interrupted) return false;
  return std::all_of(workloads.begin(), workloads.end(), [](const auto& w) {
    // A compared variant that is not installed fails nothing: it has no number.
    return w.status != results::WorkloadStatus::kFailed;
  });
}

std::string start_failure(const std::string& what, const std::string& why) {
  return app::interrupted() ? why : what + ": " + why;
}

ScenarioResult run_scenario(const scenario::Scenario& scenario, const EngineOptions& options,
                            RunObserver& observer) {
  if (!scenario.compare_routers.empty() || !scenario.compare_workers.empty()) {
    return run_comparison(scenario, options, observer);
  }
  return ScenarioRun(scenario, options, observer).run();
}

}  // namespace benchgate::engine
