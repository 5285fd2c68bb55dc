// [worker_impls.NAME] tables and the `worker = "NAME"` references of workloads.
#pragma once

#include "orchestrator/scenario/diagnostics.h"
#include "orchestrator/scenario/scenario.h"
#include "orchestrator/scenario/table_reader.h"

namespace benchgate::scenario {

// Reads [worker_impls.NAME] tables into scenario.worker_impls.
void read_worker_impls(TableReader& top, Scenario& scenario);

// Every workload's `worker` must be "builtin" or a name [worker_impls] defines.
void check_workload_workers(const Scenario& scenario, Diagnostics& diag);

}  // namespace benchgate::scenario
