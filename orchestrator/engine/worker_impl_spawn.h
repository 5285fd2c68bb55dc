// How the engine spawns a [worker_impls.NAME] implementation: its own program (`command`), or
// the bundled worker running a built-in adapter (`adapter = "h2load"` -> `worker --adapter
// h2load`). Either needs a program on PATH; when it is missing the implementation is
// not_configured, never a number. A command's program named by a path (with a '/') that is
// missing fails the workloads using it instead (processes::program_path_problem).
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "orchestrator/engine/scenario_runner.h"
#include "orchestrator/workers/worker_pool.h"

namespace benchgate::engine {

struct WorkerImplSpawn {
  workers::SpawnConfig config;
  // How long its workers may take to start: its startup_timeout, else the engine's deadline.
  std::chrono::nanoseconds startup_timeout{0};
  // Why it cannot run: of kind kNotConfigured when its program (or the adapter's tool) is not
  // on PATH ("not_configured: worker 'h2load': ..."), kFailed when its command names a path
  // that is missing, not a file or not executable ("worker 'py': the command's program
  // './w.py' (...) does not exist").
  std::optional<Error> cannot_run;
};

WorkerImplSpawn worker_impl_spawn(const std::string& name, const scenario::WorkerImpl& impl,
                                  const EngineOptions& options);

// Why the workers of implementation `name` did not start: "worker 'NAME' did not start within
// 2s (startup_timeout): ..." when `deadline` passed, else "worker 'NAME' did not start: ..."
// (start_failure: an interrupt is reported as the interrupt).
Error worker_impl_start_failure(const std::string& name, std::chrono::nanoseconds startup_timeout,
                                std::chrono::steady_clock::time_point deadline, Error why);

}  // namespace benchgate::engine
