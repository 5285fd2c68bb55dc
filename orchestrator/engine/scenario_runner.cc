#include "orchestrator/engine/scenario_runner.h"

#include <algorithm>

#include "orchestrator/app/interrupt.h"
#include "orchestrator/engine/workload_runner.h"
#include "orchestrator/sut/system_under_test.h"
#include "orchestrator/workers/worker_pool.h"

namespace benchgate::engine {

bool ScenarioResult::ok() const {
  if (!error.empty() || interrupted) return false;
  return std::all_of(workloads.begin(), workloads.end(),
                     [](const auto& w) { return w.status == results::WorkloadStatus::kOk; });
}

ScenarioResult run_scenario(const scenario::Scenario& scenario, const EngineOptions& options,
                            RunObserver& observer) {
  ScenarioResult result;
  result.scenario = scenario.name;
  observer.scenario_started(scenario);
  const auto startup_deadline =
      std::chrono::steady_clock::now() + std::chrono::nanoseconds(options.startup_timeout_ns);

  auto sut = sut::make_system_under_test(scenario.router, {options.router_binary, options.log_dir});
  result.system_description = sut->description();
  if (auto started = sut->start(startup_deadline); !started) {
    result.error = "system under test did not start: " + started.message();
    result.interrupted = app::interrupted();
    return result;  // destructors stop what was started
  }

  std::unique_ptr<workers::WorkerPool> pool;
  if (options.worker_addresses.empty()) {
    pool = workers::make_spawning_pool({options.worker_binary, {}, options.log_dir});
  } else {
    pool = workers::make_connecting_pool(options.worker_addresses);
  }
  size_t needed = 0;
  for (const auto& workload : scenario.workloads) {
    needed = std::max<size_t>(needed, workload.workers);
  }
  if (auto started = pool->start(needed, startup_deadline); !started) {
    result.error = "workers did not start: " + started.message();
    result.interrupted = app::interrupted();
    pool->stop();
    sut->stop();
    return result;
  }

  const bool bundled = scenario.router.impl == scenario::RouterImpl::kBuiltin;
  for (const auto& workload : scenario.workloads) {
    WorkloadEnvironment environment{*sut, *pool, bundled, observer};
    result.workloads.push_back(run_workload(workload, environment));
    if (app::interrupted()) {
      result.interrupted = true;
      break;
    }
    // Without a live system under test the remaining workloads cannot measure anything.
    std::string sut_failure = sut->failure();
    if (!sut_failure.empty()) {
      result.error = sut_failure;
      break;
    }
  }
  pool->stop();
  sut->stop();
  return result;
}

}  // namespace benchgate::engine
