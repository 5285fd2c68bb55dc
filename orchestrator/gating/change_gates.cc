#include "orchestrator/gating/change_gates.h"

#include <cstdint>

#include "orchestrator/changes/change_gate.h"
#include "orchestrator/gates/gate_evaluator.h"
#include "orchestrator/store/store.h"

namespace benchgate::gating {
namespace {

using Values = std::function<std::optional<std::vector<double>>(const std::string&)>;
using Figure = std::function<std::optional<double>(const std::string&)>;

// One measurement of the workload against the history: its figure, the number its report
// prints and the store keeps as its history point.
gates::GateOutcome judge(const scenario::Gate& gate, const Values& values, const Figure& figure,
                         bool tool_latency, std::span<const changes::HistoryPoint> history) {
  std::optional<gates::RunValues> run;
  auto repetitions = values ? values(gate.metric) : std::nullopt;
  auto value = figure ? figure(gate.metric) : std::nullopt;
  if (repetitions && value) {
    run = gates::RunValues{
        *value, std::move(*repetitions), {}, tool_latency && gate.metric.rfind("latency.", 0) == 0};
  }
  return changes::evaluate_change_gate(gate, std::move(run), history);
}

// A failing first measurement and what its rerun says (docs/GATES.md, "Confirming rerun"):
// the verdict is the rerun's; the figures stay the first measurement's, the run's own.
gates::GateOutcome confirmed(gates::GateOutcome first, const scenario::Gate& gate,
                             const WorkloadValues& workload,
                             std::span<const changes::HistoryPoint> history) {
  if (!workload.rerun) {
    first.explanation += "; not confirmed: the workload was not measured again";
    return first;
  }
  if (!workload.rerun->error.empty()) {
    first.verdict = gates::Verdict::kError;
    first.confirmation = "failed";
    first.explanation += "; the confirming rerun measured nothing: " + workload.rerun->error;
    return first;
  }
  const gates::GateOutcome rerun =
      judge(gate, workload.rerun->values, workload.rerun->figure, workload.tool_latency, history);
  first.confirmation_observed = rerun.observed;
  first.confirmation_p_value = rerun.p_value;
  if (rerun.verdict == gates::Verdict::kFail) {
    first.confirmation = "confirmed";
    first.explanation += "; confirmed by the rerun: " + rerun.explanation;
  } else if (rerun.verdict == gates::Verdict::kError) {
    first.verdict = gates::Verdict::kError;
    first.confirmation = "failed";
    first.explanation += "; the confirming rerun could not be judged: " + rerun.explanation;
  } else {
    first.verdict = rerun.verdict;
    first.confirmation = "cleared";
    first.explanation += "; cleared by the rerun: " + rerun.explanation;
  }
  return first;
}

}  // namespace

gates::GateOutcome evaluate_change(const scenario::Gate& gate, const WorkloadValues& workload,
                                   const GateContext& context) {
  std::vector<changes::HistoryPoint> history;
  if (context.store) {
    store::ChangeSeriesKey key{context.scenario,    context.testbed_id,   workload.name,
                               workload.variant,    workload.params_hash, gate.metric,
                               context.submitted_by};
    // The runs before the one judged: `orchestrator gate RUN` re-judges a stored run against
    // the history it had.
    auto stored = context.store->change_gate_history(
        key, context.run_id > 0 ? context.run_id : INT64_MAX, changes::kChangeGateHistory);
    if (!stored) return gates::error_outcome(gate, "change gate history: " + stored.message());
    history = std::move(*stored);
  }
  gates::GateOutcome outcome =
      judge(gate, workload.values, workload.figure, workload.tool_latency, history);
  // As for the other gates: a worker that could not measure the metric says why.
  if (outcome.verdict == gates::Verdict::kError && !outcome.observed && workload.not_measured) {
    if (std::string why = workload.not_measured(gate.metric); !why.empty()) {
      outcome.explanation = why;
    }
  }
  if (gate.confirm && outcome.verdict == gates::Verdict::kFail) {
    return confirmed(std::move(outcome), gate, workload, history);
  }
  return outcome;
}

}  // namespace benchgate::gating
