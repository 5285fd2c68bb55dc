// Everything one scenario's run produced, as the reports (terminal, JSON, JUnit, Markdown)
// consume it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "orchestrator/engine/scenario_runner.h"
#include "orchestrator/gating/run_gates.h"
#include "orchestrator/store/records.h"

namespace benchgate::report {

struct ScenarioReport {
  engine::ScenarioResult result;
  std::vector<gating::EvaluatedGate> gates;
  int64_t run_id = 0;  // 0: not stored
  int exit_code = 0;
  // Judged with --strict (a job's strict): inconclusive, no_baseline, not_configured and
  // underpowered critical gates fail the run, and every report names them.
  bool strict = false;
  // The run's status as stored (runs.status): ok, failed, aborted; for `gate`, the stored
  // run's (any runs.status).
  std::string status;
  // Why the run failed or exits 3, as the store holds it (runs.error): run_one's reason (the
  // scenario's error, what stopped it, its first failed workload or its first critical gate
  // that is an error), then each reason its exit code was raised for after. Empty where the run
  // exits 0, and in a report read back from the store, whose result.error is runs.error.
  std::string error;
  int64_t duration_ns = 0;  // how long the scenario ran; 0: not known (a re-evaluation)
  // The binaries the run measured, as the store holds them (docs/MEASUREMENT.md, "Measured
  // binaries"); empty for a run stored before they were recorded.
  std::vector<store::MeasuredBinary> binaries;
  // The change points of every series of the scenario after this run updated them (for the
  // Prometheus gauges); read only when changes_read.
  bool changes_read = false;
  std::vector<store::SeriesChanges> changes;

  // The run's error as every report says it (the --json `error`): `error`, else the result's.
  const std::string& run_error() const { return error.empty() ? result.error : error; }
  // A reason the exit code was raised for, added as Store::raise_exit_code adds it.
  void add_error(const std::string& why) { error += (error.empty() ? "" : "; ") + why; }
};

}  // namespace benchgate::report
