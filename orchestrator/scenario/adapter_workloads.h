// What a [worker_impls] adapter cannot run, refused when the scenario loads: every workload a
// tool would run (its `worker`, or a variant of [compare] workers) is checked against the limits
// the adapter itself checks when the workload starts (common/workload/adapter_limits.h).
#pragma once

#include "orchestrator/scenario/scenario.h"
#include "orchestrator/scenario/table_reader.h"

namespace benchgate::scenario {

// After the workloads, [worker_impls] and [compare] are read: each refusal is at the key that
// asks for what the tool cannot do (in the workload, else in [defaults]; a swept value at the
// workload's `sweep`; the workload's table when the key is left at its default), naming the
// workload, the worker and its tool. Durations are quoted as the file writes them.
void check_adapter_workloads(TableReader& top, const Scenario& scenario);

}  // namespace benchgate::scenario
