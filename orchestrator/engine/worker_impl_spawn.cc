// See worker_impl_spawn.h.
#include "orchestrator/engine/worker_impl_spawn.h"

#include "orchestrator/processes/child_process.h"

namespace benchgate::engine {

WorkerImplSpawn worker_impl_spawn(const std::string& name, const scenario::WorkerImpl& impl,
                                  const EngineOptions& options) {
  WorkerImplSpawn out;
  out.config.log_dir = options.log_dir;
  // An adapter's worker starts but exits at once without its tool; checking here first says
  // which program is missing instead of reporting a worker that died.
  const std::string needed = impl.adapter.empty() ? impl.command.front() : impl.adapter;
  auto program = processes::find_executable(needed);
  if (!program) {
    out.not_configured = Error{"not_configured: worker '" + name + "': '" + needed +
                                   "' is not installed (not found on PATH)",
                               ErrorKind::kNotConfigured};
    return out;
  }
  if (impl.adapter.empty()) {
    out.config.worker_binary = program->string();
    out.config.extra_args.assign(impl.command.begin() + 1, impl.command.end());
  } else {
    out.config.worker_binary = options.worker_binary;
    out.config.extra_args = {"--adapter", impl.adapter};
    // The bundled worker, so it takes --token-file like the builtin pool's.
    out.config.authenticate = options.authenticate_spawned_workers;
  }
  return out;
}

}  // namespace benchgate::engine
