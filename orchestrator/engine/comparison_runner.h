// Runs a scenario with [compare] routers: every router variant is started up front, the same
// workers drive all of them, and each workload runs one measured window per variant per
// repetition in alternating order (A B, B A, ...). Each variant's windows make one
// WorkloadResult with variant = the router's name. A variant whose program is not installed
// is recorded not_configured; the others still run.
#pragma once

#include "orchestrator/engine/scenario_runner.h"

namespace benchgate::engine {

ScenarioResult run_comparison(const scenario::Scenario& scenario, const EngineOptions& options,
                              RunObserver& observer);

}  // namespace benchgate::engine
