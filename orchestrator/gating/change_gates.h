// A change gate (`kind = "change"`, docs/GATES.md, "Change gates") of one workload: its series'
// history from the store, then the decision of changes::evaluate_change_gate.
#pragma once

#include "orchestrator/gates/gate_outcome.h"
#include "orchestrator/gating/run_gates.h"
#include "orchestrator/scenario/scenario.h"

namespace benchgate::gating {

gates::GateOutcome evaluate_change(const scenario::Gate& gate, const WorkloadValues& workload,
                                   const GateContext& context);

}  // namespace benchgate::gating
