// Where the bundled router and worker are found, for every command that starts them (`run`,
// `calibrate`, `serve`, `worker-check`): one rule, so that each command starts the same binary.
// And which of them a run needs, checked before anything starts: a wrong path is a usage
// mistake (exit code 2), not a run that failed.
#pragma once

#include <string>
#include <vector>

#include "common/util/expected.h"
#include "orchestrator/engine/scenario_runner.h"
#include "orchestrator/scenario/scenario.h"
#include "orchestrator/store/records.h"

namespace benchgate::app {

// A binary to start and where its path came from, for a message that names both.
struct BinaryChoice {
  std::string path;
  // "--router-bin", "$BENCHGATE_ROUTER_BIN", "next to the orchestrator", or "PATH" (`path` is
  // then the bare name, looked up when it is spawned).
  std::string origin;
};

// `given` (the --NAME-bin flag) when not empty; else $`env_override`; else `name` next to the
// orchestrator's own executable (build/bin/ or an install prefix); else `name` itself, to be
// found on PATH.
BinaryChoice choose_bundled_binary(const std::string& given, const std::string& name,
                                   const char* env_override);

// choose_bundled_binary's path.
std::string bundled_binary(const std::string& given, const std::string& name,
                           const char* env_override);

// Whether `choice` can be started: an executable regular file (a name without a slash: one on
// PATH). The error names the path, where it came from, and what is wrong with it in the words
// of a command's program path (processes::program_file_problem: "does not exist", "is a
// folder, not a regular file", "is not executable", ...).
Expected<void> check_binary(const BinaryChoice& choice, const std::string& what);

// True when the worker executable is the bundled one, which takes --token-file: neither
// --worker-bin (`worker_bin_flag`) nor $BENCHGATE_WORKER_BIN chose another program.
bool spawns_bundled_worker(const std::string& worker_bin_flag);

// Which bundled binaries running `scenarios` starts: the router for a builtin system under
// test (also one [compare] router); the worker for workloads of the builtin worker that are
// not given remote workers (`workers_at`: --workers-at; or the scenario's [workers] at), and for
// an adapter ([worker_impls] adapter) whose tool is installed (without it nothing is started).
struct NeededBinaries {
  bool router = false;
  bool worker = false;
};
NeededBinaries needed_binaries(const std::vector<scenario::Scenario>& scenarios, bool workers_at);

// check_binary for each binary of needed_binaries, the router's first.
Expected<void> check_needed_binaries(const std::vector<scenario::Scenario>& scenarios,
                                     const std::string& router_flag, const std::string& worker_flag,
                                     bool workers_at);

// The binaries running `scenario` with `options` starts itself, each with its identity
// (store::identify_binary; docs/MEASUREMENT.md, "Measured binaries"), as the run stores them:
// "router" (needed_binaries' router), "worker" (its worker: spawned here, so not with
// options.worker_addresses or the scenario's [workers] at), and the program of a `command`
// system under test that resolves to a file ("command", or "command NAME" for a compared
// [routers.NAME]) and of a [worker_impls.NAME] `command` a workload uses ("worker NAME").
std::vector<store::MeasuredBinary> measured_binaries(const scenario::Scenario& scenario,
                                                     const engine::EngineOptions& options);

// The one-line warning `run` and `calibrate` print before the load, or "" (`serve` stores no
// folder's commit or branch, so it has none): `scenarios` start a router other than the
// bundled build (--router-bin, $BENCHGATE_ROUTER_BIN: `router_flag` or the variable) while the
// commit or the branch the runs store is the working folder's (`commit_given`, `branch_given`:
// --commit, --branch). It names the router and suggests the flags.
std::string foreign_router_warning(const std::vector<scenario::Scenario>& scenarios,
                                   const std::string& router_flag, bool workers_at,
                                   bool commit_given, bool branch_given);

}  // namespace benchgate::app
