// See restored_metrics.h.
#include "orchestrator/serve/restored_metrics.h"

#include <optional>
#include <string>

#include "orchestrator/gates/gate_outcome.h"

namespace benchgate::serve {
namespace {

std::optional<gates::Verdict> verdict_of(const std::string& text) {
  for (gates::Verdict verdict : gates::kVerdicts) {
    if (gates::to_string(verdict) == text) return verdict;
  }
  return std::nullopt;
}

}  // namespace

report::ScenarioReport stored_report(const store::RunSummary& run,
                                     const std::vector<store::GateRecord>& gates) {
  report::ScenarioReport r;
  r.result.scenario = run.scenario;
  r.run_id = run.id;
  r.exit_code = run.exit_code.value_or(0);
  r.status = run.status;
  r.error = run.error;
  for (const store::GateRecord& record : gates) {
    const std::optional<gates::Verdict> verdict = verdict_of(record.verdict);
    if (!verdict) continue;
    gating::EvaluatedGate gate;
    gate.gate_index = record.gate_index;
    gate.workload = record.workload;
    gate.variant = record.variant;
    gate.baseline = record.baseline;
    gate.change = record.kind == "change";
    gate.outcome.metric = record.metric;
    gate.outcome.verdict = *verdict;
    gate.outcome.severity = record.severity == "critical" ? scenario::GateSeverity::kCritical
                                                          : scenario::GateSeverity::kWarning;
    // Stored only where the gate was compared against its baseline; false otherwise, as the
    // outcome of a gate that was not compared says.
    gate.outcome.underpowered = record.underpowered.value_or(false);
    gate.outcome.confirmation = record.confirmation.value_or("");
    r.gates.push_back(std::move(gate));
  }
  return r;
}

Expected<size_t> restore_metrics(store::Store& db, metrics::MetricsObserver& metrics,
                                 size_t scenarios) {
  // The operator's runs only: a client's never set the verdict gauges (client_run_finished).
  auto runs = db.latest_ended_runs(static_cast<int>(scenarios), std::string(store::kOperatorRuns));
  if (!runs) return runs.error();
  // The scenario run longest ago first: the most recent is the last kept (--metrics-scenarios).
  for (auto it = runs->rbegin(); it != runs->rend(); ++it) {
    const store::RunSummary& run = *it;
    auto gates = db.gate_results(run.id, store::Store::Evaluation::kFirst);
    if (!gates) return Error{"run " + std::to_string(run.id) + ": " + gates.message()};
    report::ScenarioReport r = stored_report(run, *gates);
    store::ChangeSeriesFilter filter;
    filter.scenario = run.scenario;
    filter.submitted_by = store::kOperatorRuns;  // as run_one sets the gauges
    auto changes = db.change_points(filter, store::Store::stored_change_options());
    if (!changes) return Error{"change points of " + run.scenario + ": " + changes.message()};
    r.changes = std::move(*changes);
    r.changes_read = true;
    metrics.restore_run(r, run.commit, static_cast<double>(*run.finished_at_ns) / 1e9);
  }
  return runs->size();
}

}  // namespace benchgate::serve
