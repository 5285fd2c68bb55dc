// One scenario's run with everything around it: the stored run, the engine, the gates, the
// promotion. Shared by `orchestrator run` and the jobs of `orchestrator serve`.
#pragma once

#include "orchestrator/cli/run_command.h"
#include "orchestrator/engine/scenario_runner.h"
#include "orchestrator/report/scenario_report.h"
#include "orchestrator/report/terminal_report.h"
#include "orchestrator/store/store.h"

namespace benchgate::cli {

// Uses flags.baseline, flags.strict and flags.promote. `extra` (may be null) receives every
// engine event after the terminal and the store (metrics, a service's progress stream).
report::ScenarioReport run_one(const scenario::Scenario& scenario, const RunFlags& flags,
                               const engine::EngineOptions& options, store::Store& db,
                               const store::RunInfo& info_template,
                               report::TerminalReport& terminal, engine::RunObserver* extra);

}  // namespace benchgate::cli
