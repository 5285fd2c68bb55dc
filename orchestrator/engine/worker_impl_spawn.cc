// See worker_impl_spawn.h.
#include "orchestrator/engine/worker_impl_spawn.h"

#include <optional>
#include <string>

#include "common/units/units.h"
#include "orchestrator/processes/child_process.h"

namespace benchgate::engine {

namespace {

// The bundled worker running `adapter` for implementation `name`: its log folder is the
// implementation's own, as a command's is, and it takes --token-file like the builtin pool's.
// `tool`: the adapter's program the service resolved as it started (--adapter-program); without
// it the worker looks the tool up on PATH.
workers::SpawnConfig adapter_worker_config(const std::string& name, const std::string& adapter,
                                           const EngineOptions& options,
                                           const std::optional<std::string>& tool) {
  workers::SpawnConfig config;
  config.log_dir = own_log_folder(options.log_dir, "worker-impl-" + name);
  config.worker_binary = options.worker_binary;
  config.extra_args = {"--adapter", adapter};
  if (tool) config.extra_args.insert(config.extra_args.end(), {"--adapter-program", *tool});
  config.authenticate = options.authenticate_spawned_workers;
  return config;
}

// The bundled worker around an adapter whose tool the service resolved as it started
// (EngineOptions::adapter_programs): that file, never looked up again. One the service did not
// find is not installed; one that is gone or no longer executable since fails the workloads, as
// a command's program given by its path does.
WorkerImplSpawn pinned_adapter_spawn(const std::string& name, const scenario::WorkerImpl& impl,
                                     const EngineOptions& options, WorkerImplSpawn out) {
  const auto found = options.adapter_programs->find(impl.adapter);
  if (found == options.adapter_programs->end()) {
    out.cannot_run = Error{"not_configured: worker '" + name + "': '" + impl.adapter +
                               "' is not installed (not found on PATH when the service started)",
                           ErrorKind::kNotConfigured};
    return out;
  }
  if (auto problem = processes::program_file_problem(found->second)) {
    out.cannot_run = Error{"worker '" + name + "': the adapter's tool '" + found->second +
                               "' (found when the service started) " + *problem,
                           ErrorKind::kFailed};
    return out;
  }
  out.config = adapter_worker_config(name, impl.adapter, options, found->second);
  return out;
}

}  // namespace

WorkerImplSpawn worker_impl_spawn(const std::string& name, const scenario::WorkerImpl& impl,
                                  const EngineOptions& options) {
  WorkerImplSpawn out;
  out.startup_timeout = std::chrono::nanoseconds(
      impl.startup_timeout_ns > 0 ? impl.startup_timeout_ns : options.startup_timeout_ns);
  // An adapter's worker starts but exits at once without its tool; checking here first says
  // which program is missing instead of reporting a worker that died.
  if (!impl.adapter.empty() && options.adapter_programs) {
    return pinned_adapter_spawn(name, impl, options, std::move(out));
  }
  const std::string needed = impl.adapter.empty() ? impl.command.front() : impl.adapter;
  // A program named by a path is a file the scenario names, not a program that may be
  // uninstalled: one that is missing fails the workloads using it (as a [router] command's
  // does, one definition), never not_configured, which would let a typo in its path pass.
  if (auto problem = processes::program_path_problem(needed)) {
    out.cannot_run = Error{"worker '" + name + "': " + *problem, ErrorKind::kFailed};
    return out;
  }
  auto program = processes::find_executable(needed);
  if (!program) {
    out.cannot_run = Error{"not_configured: worker '" + name + "': '" + needed +
                               "' is not installed (not found on PATH)",
                           ErrorKind::kNotConfigured};
    return out;
  }
  if (!impl.adapter.empty()) {
    out.config = adapter_worker_config(name, impl.adapter, options, std::nullopt);
    return out;
  }
  // Each implementation logs into a folder of its own: its worker 0 and the bundled pool's
  // would write the same worker-0.stderr.log.
  out.config.log_dir = own_log_folder(options.log_dir, "worker-impl-" + name);
  out.config.worker_binary = program->string();
  out.config.extra_args.assign(impl.command.begin() + 1, impl.command.end());
  return out;
}

Error worker_impl_start_failure(const std::string& name, std::chrono::nanoseconds startup_timeout,
                                std::chrono::steady_clock::time_point deadline, Error why) {
  std::string what = "worker '" + name + "' did not start";
  if (std::chrono::steady_clock::now() >= deadline) {
    what += " within " + format_duration_ns(static_cast<double>(startup_timeout.count())) +
            " (startup_timeout)";
  }
  return start_failure(what, std::move(why));
}

}  // namespace benchgate::engine
