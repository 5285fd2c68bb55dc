// Runs one scenario end to end: starts the system under test and the workers, runs every
// workload in order, and stops every child whatever happened.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/engine/run_observer.h"
#include "orchestrator/results/results.h"
#include "orchestrator/scenario/scenario.h"

namespace benchgate::engine {

class ConfirmationHook;
class Factories;  // factories.h

struct EngineOptions {
  // What the runners start the system under test and the workers with: the CLI gives
  // production_factories(), a unit test its fakes. Required.
  const Factories* factories = nullptr;
  std::string router_binary;  // the bundled router
  std::string worker_binary;  // the bundled worker
  // Where each came from (app::BinaryChoice::origin: "--router-bin", "next to the
  // orchestrator", ...), stored with the run's binaries (store::MeasuredBinary); empty: unknown.
  std::string router_origin;
  std::string worker_origin;
  std::vector<std::string> worker_addresses;  // connect to these instead of spawning
  std::string log_dir;                        // children's stderr logs
  // --workers N: how many remote workers (worker_addresses, else the scenario's [workers] at)
  // must answer Describe before the first workload; 0: the scenario's [workers] count, else as
  // many as the workloads use. Never fewer than the workloads use.
  size_t worker_count = 0;
  // --workers-wait: how long the run waits for them.
  int64_t workers_wait_ns = 60'000'000'000;
  // How long each start may take: the router's and each worker's READY line and first answer;
  // a system under test's own startup_timeout replaces it for that system.
  int64_t startup_timeout_ns = 30'000'000'000;
  // Sent on every call to the worker_addresses workers (--worker-token-file); empty: none.
  std::string worker_token;
  // worker_binary is the bundled worker, which takes --token-file: each spawned pool gets a
  // fresh random token (README "Security").
  bool authenticate_spawned_workers = false;
  // `orchestrator serve`: each adapter's tool ("h2load", "wrk" -> an absolute path) as the
  // service resolved it when it started, which an adapter's worker runs (`worker
  // --adapter-program`); a tool it did not find is absent (not_configured). Unset (a local run):
  // the worker looks its tool up on PATH.
  std::optional<std::map<std::string, std::string>> adapter_programs;
  // Asked after every workload whether to measure it again (change gates with confirm = 1,
  // confirmation.h); null: never.
  ConfirmationHook* confirmation = nullptr;
};

struct ScenarioResult {
  std::string scenario;
  std::string system_description;
  std::vector<results::WorkloadResult> workloads;
  // A comparison's variants (routers or worker implementations) in [compare] order; else empty.
  std::vector<std::string> variants;
  std::string error;  // a failure of the scenario as a whole (e.g. the router did not start)
  bool interrupted = false;

  bool ok() const;  // no error and every workload ok
};

// When the start of system under test `router` must be done: its startup_timeout from now, else
// the engine's startup deadline.
std::chrono::steady_clock::time_point sut_start_deadline(const scenario::RouterConfig& router,
                                                         const EngineOptions& options);

ScenarioResult run_scenario(const scenario::Scenario& scenario, const EngineOptions& options,
                            RunObserver& observer);

// A folder of its own for the logs of a part of the run, `log_dir`/`folder` (created), so that
// two parts' children never write the same file; `log_dir` itself where it cannot be created.
// `folder` is prefixed by the caller ("worker-impl-NAME"): a name alone may be "." or "..".
std::string own_log_folder(const std::string& log_dir, const std::string& folder);

// Why a start failed: "`what`: `why`" ("system under test is not reachable: nothing accepted
// ..."), or `why` alone when an interrupt ended the wait, which is nobody's failure
// ("interrupted while waiting for 127.0.0.1:1 to accept connections", README).
Error start_failure(const std::string& what, Error why);

}  // namespace benchgate::engine
