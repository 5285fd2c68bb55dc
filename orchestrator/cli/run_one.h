// One scenario's run with everything around it: the stored run, the engine, the gates, the
// promotion. Shared by `orchestrator run` and the jobs of `orchestrator serve`.
#pragma once

#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "common/util/expected.h"
#include "orchestrator/cli/run_command.h"
#include "orchestrator/engine/scenario_runner.h"
#include "orchestrator/report/scenario_report.h"
#include "orchestrator/report/terminal_report.h"
#include "orchestrator/store/store.h"

namespace benchgate::cli {

// What every run of `orchestrator run` and `orchestrator calibrate` starts from: the opened
// store (runs left by a dead orchestrator are noted on stderr), the run's commit, branch,
// labels and testbed, and how to start the router and the workers.
struct RunSetup {
  std::unique_ptr<store::Store> db;
  store::RunInfo info;
  engine::EngineOptions options;
};

// Opens the store before anything is spawned; the error names the path.
Expected<RunSetup> set_up_run(const RunFlags& flags,
                              const std::map<std::string, std::string>& labels,
                              const std::string& worker_token);

// Uses flags.baseline, flags.strict and flags.promote. `extra` (may be null) receives every
// engine event after the terminal and the store (metrics, a service's progress stream).
report::ScenarioReport run_one(const scenario::Scenario& scenario, const RunFlags& flags,
                               const engine::EngineOptions& options, store::Store& db,
                               const store::RunInfo& info_template,
                               report::TerminalReport& terminal, engine::RunObserver* extra);

// What follows a scenario's tables, on `out`: the gate table, comparison ratios and sweep
// models, then the RESULT|, COMPARE| and SWEEP| lines; the scenario's error on `err`. One
// function, so that a client of `serve` reads what a local run prints.
void print_scenario_end(const report::ScenarioReport& r, std::FILE* out, std::FILE* err);

}  // namespace benchgate::cli
