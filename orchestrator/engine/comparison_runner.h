// Runs a scenario with [compare] routers or [compare] workers. Every variant is started up
// front; comparing routers, the same workers drive every router (each workload's own
// `worker`, one pool per implementation, started at its first workload); comparing workers,
// every worker implementation loads the same router. Each workload runs one measured window per
// variant per repetition in alternating order (A B, B A, ...). Each variant's windows make one
// WorkloadResult with variant = the router's or worker implementation's name. A variant whose
// program is not installed is recorded not_configured; the others still run.
#pragma once

#include "orchestrator/engine/scenario_runner.h"

namespace benchgate::engine {

ScenarioResult run_comparison(const scenario::Scenario& scenario, const EngineOptions& options,
                              RunObserver& observer);

}  // namespace benchgate::engine
