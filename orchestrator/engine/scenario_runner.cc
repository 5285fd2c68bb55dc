#include "orchestrator/engine/scenario_runner.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <system_error>

#include "orchestrator/app/interrupt.h"
#include "orchestrator/engine/comparison_runner.h"
#include "orchestrator/engine/confirmation.h"
#include "orchestrator/engine/factories.h"
#include "orchestrator/engine/remote_workers.h"
#include "orchestrator/engine/run_pool.h"
#include "orchestrator/engine/worker_impl_spawn.h"
#include "orchestrator/engine/workload_runner.h"
#include "orchestrator/sut/system_under_test.h"
#include "orchestrator/workers/worker_pool.h"

namespace benchgate::engine {
namespace {

using Clock = std::chrono::steady_clock;

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
    sut_ = options_.factories->system_under_test(
        scenario_.router, {options_.router_binary, options_.log_dir,
                           std::chrono::nanoseconds(options_.startup_timeout_ns)});
    result_.system_description = sut_->description();
    if (auto started = sut_->start(sut_start_deadline(scenario_.router, options_)); !started) {
      // An external system is only attached to: it is not reachable rather than not started.
      const bool attached = scenario_.router.impl == scenario::RouterImpl::kExternal;
      return give_up(start_failure(
          attached ? "system under test is not reachable" : "system under test did not start",
          started.error()));
    }
    const RemoteWorkerChoice remote =
        remote_workers(scenario_, options_, workers_needed("builtin"));
    pool_.emplace(bundled_worker_pool(remote, options_), startup_timeout());
    // The workers' own startup deadline: a slow system under test does not shorten it.
    if (auto started = pool_->start(remote.count, workers_deadline(remote, options_)); !started) {
      Error why = workers_start_failure(remote, started.error());
      if (why.kind == ErrorKind::kNotConfigured) return not_configured(why);
      return give_up(why);
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

  // The pool of a [worker_impls] implementation, spawned at its first workload; or why it
  // cannot run (of kind kNotConfigured when its program is not installed).
  Expected<RunPool*> impl_pool(const std::string& name) {
    if (auto it = impl_pools_.find(name); it != impl_pools_.end()) return &it->second;
    // A start that failed is not tried again for the next workload: it would wait its whole
    // startup_timeout again.
    if (auto it = impl_failures_.find(name); it != impl_failures_.end()) return it->second;
    WorkerImplSpawn spawn = worker_impl_spawn(name, scenario_.worker_impls.at(name), options_);
    if (spawn.cannot_run) return *spawn.cannot_run;
    RunPool pool(options_.factories->spawning_pool(spawn.config), spawn.startup_timeout);
    const Clock::time_point deadline = pool.startup_deadline();
    auto started = pool.start(workers_needed(name), deadline);
    if (!started) {
      pool.stop();
      Error why = worker_impl_start_failure(name, spawn.startup_timeout, deadline, started.error());
      if (why.kind != ErrorKind::kInterrupted) impl_failures_.emplace(name, why);
      return why;
    }
    return &impl_pools_.emplace(name, std::move(pool)).first->second;
  }

  void run_workloads() {
    const bool bundled = scenario_.router.impl == scenario::RouterImpl::kBuiltin;
    for (size_t i = 0; i < scenario_.workloads.size(); ++i) {
      const auto& workload = scenario_.workloads[i];
      RunPool* pool = &*pool_;
      if (workload.worker != "builtin") {
        auto found = impl_pool(workload.worker);
        if (!found) {
          // An interrupt while its workers start ends the run as one during a window does:
          // interrupted, and this workload, which never ran, is not listed.
          if (found.error().kind == ErrorKind::kInterrupted) {
            result_.interrupted = true;
            return;
          }
          record_unrun(i, found.error());
          continue;
        }
        pool = *found;
      }
      if (auto prepared = pool->prepare(pool->startup_deadline(), observer_, scenario_.name);
          !prepared) {
        if (prepared.error().kind == ErrorKind::kInterrupted) {
          result_.interrupted = true;
          return;
        }
        result_.error = prepared.message();
        record_not_run(i, prepared.error().headline());
        return;
      }
      WorkloadEnvironment environment{*sut_, pool->pool(), bundled, observer_, scenario_.name};
      result_.workloads.push_back(run_workload(workload, environment));
      const bool rerun_suspect =
          confirm_workload(options_.confirmation, workload, result_.workloads.back(), environment,
                           pool->startup_deadline());
      const bool failed = result_.workloads.back().status != results::WorkloadStatus::kOk;
      // A worker lost under on_worker_loss = "continue" makes the pool as suspect as a failure:
      // every worker answers Describe afresh before the next workload. The pool's last use is
      // the confirming rerun where there was one: its failure counts as the workload's would.
      pool->finished(failed || result_.workloads.back().degraded() || rerun_suspect);
      if (app::interrupted()) {
        // The run is recorded as aborted; what did not run is not listed.
        result_.interrupted = true;
        return;
      }
      // Without a live system under test the remaining workloads cannot measure anything.
      if (auto sut_failure = sut_->failure()) {
        result_.error = sut_failure->text();
        record_not_run(i + 1, "the system under test failed during workload '" + workload.name +
                                  "': " + sut_failure->headline());
        return;
      }
      if (failed && scenario_.fail_fast) {
        record_not_run(i + 1, "fail_fast is set and workload '" + workload.name + "' failed");
        return;
      }
    }
  }

  // Records workload i as failed or not_configured (by the error's kind) without running it:
  // its workers are unavailable.
  void record_unrun(size_t i, const Error& why) {
    results::WorkloadResult skipped;
    skipped.spec = scenario_.workloads[i];
    skipped.status = why.kind == ErrorKind::kNotConfigured ? results::WorkloadStatus::kNotConfigured
                                                           : results::WorkloadStatus::kFailed;
    skipped.error = why.text();
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

  // The remote workers the scenario asked for are not there: every workload is not_configured
  // (never measured with other workers instead), and the scenario has no error of its own.
  ScenarioResult not_configured(const Error& why) {
    observer_.message("[" + scenario_.name + "] " + why.headline());
    for (size_t i = 0; i < scenario_.workloads.size(); ++i) record_unrun(i, why);
    stop();
    return std::move(result_);
  }

  ScenarioResult give_up(const Error& why) {
    result_.error = why.text();
    result_.interrupted = why.kind == ErrorKind::kInterrupted || app::interrupted();
    if (!result_.interrupted) record_not_run(0, why.headline());
    stop();
    return std::move(result_);
  }

  void stop() {
    if (pool_) pool_->stop();
    for (auto& [name, pool] : impl_pools_) pool.stop();
    if (sut_) sut_->stop();
  }

  const scenario::Scenario& scenario_;
  const EngineOptions& options_;
  RunObserver& observer_;
  ScenarioResult result_;
  std::unique_ptr<sut::SystemUnderTest> sut_;
  std::optional<RunPool> pool_;                 // the bundled worker (or --workers-at)
  std::map<std::string, RunPool> impl_pools_;   // by [worker_impls] name
  std::map<std::string, Error> impl_failures_;  // by name: why its workers did not start
};

}  // namespace

bool ScenarioResult::ok() const {
  if (!error.empty() || interrupted) return false;
  return std::all_of(workloads.begin(), workloads.end(), [](const auto& w) {
    // A compared variant that is not installed fails nothing: it has no number.
    return w.status != results::WorkloadStatus::kFailed;
  });
}

std::chrono::steady_clock::time_point sut_start_deadline(const scenario::RouterConfig& router,
                                                         const EngineOptions& options) {
  const int64_t ns =
      router.startup_timeout_ns > 0 ? router.startup_timeout_ns : options.startup_timeout_ns;
  return Clock::now() + std::chrono::nanoseconds(ns);
}

std::string own_log_folder(const std::string& log_dir, const std::string& folder) {
  const std::string path = log_dir + "/" + folder;
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  return ec ? log_dir : path;
}

Error start_failure(const std::string& what, Error why) {
  if (why.kind == ErrorKind::kInterrupted || app::interrupted()) {
    why.kind = ErrorKind::kInterrupted;
    return why;
  }
  return Error::caused(what, std::move(why));
}

ScenarioResult run_scenario(const scenario::Scenario& scenario, const EngineOptions& options,
                            RunObserver& observer) {
  if (!options.factories) {
    ScenarioResult result;
    result.scenario = scenario.name;
    result.error = "internal error: the engine was started without its factories";
    return result;
  }
  if (!scenario.compare_routers.empty() || !scenario.compare_workers.empty()) {
    return run_comparison(scenario, options, observer);
  }
  return ScenarioRun(scenario, options, observer).run();
}

}  // namespace benchgate::engine
