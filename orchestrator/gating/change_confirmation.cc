// See change_confirmation.h.
#include "orchestrator/gating/change_confirmation.h"

#include "orchestrator/gates/gate_outcome.h"
#include "orchestrator/gating/change_gates.h"
#include "orchestrator/scenario/workload_glob.h"

namespace benchgate::gating {

std::string ChangeConfirmation::rerun_reason(const results::WorkloadResult& measured) {
  const WorkloadValues values = values_of(measured);
  if (!values.not_judged.empty()) return {};  // its gates are errors, not failures
  for (size_t i = 0; i < gates_.size(); ++i) {
    const scenario::Gate& gate = gates_[i];
    if (!gate.change || !gate.confirm) continue;
    if (!scenario::workload_matches(gate.workload, values.name)) continue;
    if (!scenario::workload_matches(gate.variant, values.variant)) continue;
    // Without a rerun attached, a failing first measurement stays `fail`.
    const gates::GateOutcome outcome = evaluate_change(gate, values, context_);
    if (outcome.verdict != gates::Verdict::kFail) continue;
    return "change gate #" + std::to_string(i + 1) + " (" + gate.metric +
           ") fails: " + outcome.explanation;
  }
  return {};
}

void ChangeConfirmation::rerun_finished(const results::WorkloadResult& measured,
                                        results::WorkloadResult rerun) {
  reruns_.insert_or_assign({measured.spec.name, measured.variant}, std::move(rerun));
}

void ChangeConfirmation::attach(std::vector<WorkloadValues>& values) const {
  for (WorkloadValues& v : values) {
    auto found = reruns_.find({v.name, v.variant});
    if (found == reruns_.end()) continue;
    const results::WorkloadResult& w = found->second;
    WorkloadValues::Rerun rerun;
    if (w.status != results::WorkloadStatus::kOk) {
      rerun.error = "workload " + std::string(results::status_name(w.status)) + ": " + w.error;
    } else {
      const WorkloadValues measured = values_of(w);
      if (!measured.not_judged.empty()) rerun.error = "not judged: " + measured.not_judged;
      rerun.figure = measured.figure;
      rerun.values = measured.values;
    }
    v.rerun = std::move(rerun);
  }
}

}  // namespace benchgate::gating
