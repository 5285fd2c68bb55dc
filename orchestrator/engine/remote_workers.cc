// See remote_workers.h.
#include "orchestrator/engine/remote_workers.h"

#include <algorithm>

#include "orchestrator/app/interrupt.h"
#include "orchestrator/engine/factories.h"

namespace benchgate::engine {

RemoteWorkerChoice remote_workers(const scenario::Scenario& scenario, const EngineOptions& options,
                                  size_t needed) {
  RemoteWorkerChoice choice;
  if (!options.worker_addresses.empty()) {
    choice.entries = options.worker_addresses;
    choice.source = "--workers-at";
  } else if (!scenario.workers.at.empty()) {
    choice.entries = scenario.workers.at;
    choice.from_scenario = true;
    const auto& at = scenario.workers.at_where;
    choice.source = "[workers] at (" + at.file + ":" + std::to_string(at.line) + ":" +
                    std::to_string(at.column) + ")";
  }
  if (choice.entries.empty()) {
    choice.count = needed;
    return choice;
  }
  const size_t asked = options.worker_count > 0 ? options.worker_count : scenario.workers.count;
  choice.count = std::max(asked, needed);
  return choice;
}

std::unique_ptr<workers::WorkerPool> bundled_worker_pool(const RemoteWorkerChoice& choice,
                                                         const EngineOptions& options) {
  if (!choice.entries.empty()) {
    return options.factories->connecting_pool(choice.entries, options.worker_token);
  }
  return options.factories->spawning_pool(
      {options.worker_binary, {}, options.log_dir, options.authenticate_spawned_workers});
}

std::chrono::steady_clock::time_point workers_deadline(const RemoteWorkerChoice& choice,
                                                       const EngineOptions& options) {
  const int64_t ns = choice.entries.empty() ? options.startup_timeout_ns : options.workers_wait_ns;
  return std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
}

Error workers_start_failure(const RemoteWorkerChoice& choice, Error why) {
  if (why.kind == ErrorKind::kInterrupted || app::interrupted()) {
    why.kind = ErrorKind::kInterrupted;
    return why;
  }
  if (choice.entries.empty()) return Error::caused("workers did not start", std::move(why));
  if (!choice.from_scenario) {
    return Error::caused("workers given with --workers-at are not usable", std::move(why));
  }
  Error error = Error::caused("not_configured: the remote workers of " + choice.source +
                                  " are not there (the run never measures with local workers "
                                  "instead)",
                              std::move(why));
  error.kind = ErrorKind::kNotConfigured;
  return error;
}

}  // namespace benchgate::engine
