// What a restarted `orchestrator serve` shows on /metrics before its next run: the verdicts
// of each scenario's latest run stored in its database (README "Prometheus and Grafana").
#pragma once

#include <cstddef>
#include <vector>

#include "common/util/expected.h"
#include "orchestrator/metrics/metrics_observer.h"
#include "orchestrator/report/scenario_report.h"
#include "orchestrator/store/store.h"

namespace benchgate::serve {

// The report MetricsObserver::restore_run takes for a stored run: its scenario, id, exit code
// and status, and its gates as `gates` holds them (the run's first evaluation, which its exit
// code follows). A gate whose stored verdict this build does not know is left out.
report::ScenarioReport stored_report(const store::RunSummary& run,
                                     const std::vector<store::GateRecord>& gates);

// For each of the `scenarios` scenarios (0: every one) whose latest ended runs
// (Store::latest_ended_runs) are newest: that run's gauges, as the service set them after it
// (MetricsObserver::restore_run), with the scenario's change points as stored now. Returns how
// many scenarios were restored; an error when the store could not be read (the gauges then
// hold what was restored before it).
Expected<size_t> restore_metrics(store::Store& db, metrics::MetricsObserver& metrics,
                                 size_t scenarios);

}  // namespace benchgate::serve
