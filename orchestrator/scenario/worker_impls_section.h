// [worker_impls.NAME] tables and the `worker = "NAME"` references of workloads.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "orchestrator/scenario/diagnostics.h"
#include "orchestrator/scenario/scenario.h"
#include "orchestrator/scenario/table_reader.h"

namespace benchgate::scenario {

// The [worker_impls] entries the loader refused, each reported once where it is written: a
// workload's `worker` or a [compare] workers entry naming one is not reported again as a worker
// no [worker_impls.NAME] defines, which would send the reader looking for a table that is there.
struct RefusedWorkerImpls {
  bool all = false;  // `worker_impls` is not a table at all
  std::set<std::string, std::less<>> names;

  bool covers(std::string_view name) const { return all || names.count(name) != 0; }
};

// Reads [worker_impls.NAME] tables into scenario.worker_impls; returns those it refused.
RefusedWorkerImpls read_worker_impls(TableReader& top, Scenario& scenario);

// Every workload's `worker` must be "builtin" or a name [worker_impls] defines (or one it
// refused, reported already); the error is at the `worker` value, with a "did you mean".
void check_workload_workers(const Scenario& scenario, const RefusedWorkerImpls& refused,
                            Diagnostics& diag);

}  // namespace benchgate::scenario
