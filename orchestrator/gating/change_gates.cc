#include "orchestrator/gating/change_gates.h"

#include <cstdint>

#include "orchestrator/changes/change_gate.h"
#include "orchestrator/gates/gate_evaluator.h"
#include "orchestrator/store/store.h"

namespace benchgate::gating {

gates::GateOutcome evaluate_change(const scenario::Gate& gate, const WorkloadValues& workload,
                                   const GateContext& context) {
  std::vector<changes::HistoryPoint> history;
  if (context.store) {
    store::ChangeSeriesKey key{context.scenario, context.testbed_id,   workload.name,
                               workload.variant, workload.params_hash, gate.metric};
    // The runs before the one judged: `orchestrator gate RUN` re-judges a stored run against
    // the history it had.
    auto stored = context.store->change_gate_history(
        key, context.run_id > 0 ? context.run_id : INT64_MAX, changes::kChangeGateHistory);
    if (!stored) return gates::error_outcome(gate, "change gate history: " + stored.message());
    history = std::move(*stored);
  }
  // The run's figure, the number its report prints and the store keeps as its history point.
  std::optional<gates::RunValues> run;
  auto repetitions = workload.values(gate.metric);
  auto figure = workload.figure ? workload.figure(gate.metric) : std::nullopt;
  if (repetitions && figure) run = gates::RunValues{*figure, std::move(*repetitions)};
  gates::GateOutcome outcome = changes::evaluate_change_gate(gate, std::move(run), history);
  // As for the other gates: a worker that could not measure the metric says why.
  if (outcome.verdict == gates::Verdict::kError && !outcome.observed && workload.not_measured) {
    if (std::string why = workload.not_measured(gate.metric); !why.empty()) {
      outcome.explanation = why;
    }
  }
  return outcome;
}

}  // namespace benchgate::gating
