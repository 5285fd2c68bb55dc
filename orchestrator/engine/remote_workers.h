// Which workers a scenario's bundled-worker pool connects to instead of spawning, and how many
// it waits for: the command line's --workers-at and --workers, else the scenario's [workers] at
// and count (docs/SCENARIOS.md, "Remote workers"). Shared by the scenario and comparison runners.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/util/expected.h"
#include "orchestrator/engine/scenario_runner.h"
#include "orchestrator/workers/worker_pool.h"

namespace benchgate::engine {

struct RemoteWorkerChoice {
  std::vector<std::string> entries;  // empty: spawn the workers on this machine
  bool from_scenario = false;        // the entries are the scenario's [workers] at
  size_t count = 0;                  // how many must answer before the first workload
  // For messages: "--workers-at" or "[workers] at (FILE:LINE:COLUMN)".
  std::string source;
};

// `needed`: the most workers any workload of the pool uses (the count is at least that).
RemoteWorkerChoice remote_workers(const scenario::Scenario& scenario, const EngineOptions& options,
                                  size_t needed);

// The pool for the choice: a connecting pool when it has entries, else a spawning one.
std::unique_ptr<workers::WorkerPool> bundled_worker_pool(const RemoteWorkerChoice& choice,
                                                         const EngineOptions& options);

// When the pool's start must be done: --workers-wait for remote workers (they may still be
// coming up: pods scheduled, images pulled), the startup timeout for spawned ones.
std::chrono::steady_clock::time_point workers_deadline(const RemoteWorkerChoice& choice,
                                                       const EngineOptions& options);

// Why the pool could not start, for the scenario's error. Remote workers the scenario asked for
// and did not get are not_configured (ErrorKind::kNotConfigured): the run never falls back to
// local workers, and the scenario on a machine without them has nothing to measure; workers the
// command line named are a failure. An interrupt stays an interrupt.
Error workers_start_failure(const RemoteWorkerChoice& choice, Error why);

}  // namespace benchgate::engine
