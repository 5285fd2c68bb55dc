// How the engine spawns a [worker_impls.NAME] implementation: its own program (`command`), or
// the bundled worker running a built-in adapter (`adapter = "h2load"` -> `worker --adapter
// h2load`). Either needs a program on PATH; when it is missing the implementation is
// not_configured, never a number.
#pragma once

#include <optional>
#include <string>

#include "orchestrator/engine/scenario_runner.h"
#include "orchestrator/workers/worker_pool.h"

namespace benchgate::engine {

struct WorkerImplSpawn {
  workers::SpawnConfig config;
  // Of kind kNotConfigured when it cannot run ("not_configured: worker 'h2load': ...").
  std::optional<Error> not_configured;
};

WorkerImplSpawn worker_impl_spawn(const std::string& name, const scenario::WorkerImpl& impl,
                                  const EngineOptions& options);

}  // namespace benchgate::engine
