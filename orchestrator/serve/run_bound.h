// How long a submitted scenario may hold the service's single run slot, and how many processes
// its run may have running at once on the service's machine: the refusal of one that may hold
// the slot past the operator's --max-run-seconds or start more than its --max-processes
// (README "Clients of orchestrator serve"). What bounds a run's wall time is its waits, each cut
// off by a timeout of the scenario: a workload's `timeout` (from its workers' readiness through its
// last window), and the `startup_timeout` of each system under test and worker implementation it
// starts. The measured time (warmup + duration * repetitions) is inside the timeout (the loader
// requires it), so the timeouts are the bound that is checked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "orchestrator/scenario/scenario.h"

namespace benchgate::serve {

// The run's bound: every workload's timeout times the runs it makes (a comparison runs each
// variant's windows one at a time, each under the timeout; a workload a `confirm = 1` gate
// judges may be measured once more), plus every startup_timeout the scenario sets. A startup
// the scenario leaves at the engine's default is the operator's and not counted.
int64_t run_bound_ns(const scenario::Scenario& scenario);

// One "file:line:column: error: ..." line for each timeout longer than `max_ns` and one for a
// bound (run_bound_ns) past it; empty when the scenario fits.
std::string longer_than_allowed(const scenario::Scenario& scenario, int64_t max_ns);

// The most processes the run of `scenario` has running at once on this machine. Everything it
// starts runs from its start (or its first workload that uses it) to its end
// (engine/scenario_runner.cc, comparison_runner.cc), so the peak is the sum: one process for
// each router it starts ([router], or every compared [routers.NAME]; none for impl =
// "external"), and for each pool of workers it spawns, the largest `workers` of the workloads
// it runs: one pool per worker implementation the workloads name, or, comparing workers, one
// per compared worker, each running every workload. A [worker_impls] adapter's worker counts
// twice: the bundled worker and the tool it runs during a window. `remote_workers` (the
// service's --workers-at): the bundled worker's pool connects to those instead of spawning.
// A replaced worker is stopped before its replacement starts. What a command router or
// worker starts itself is its own (the operator allowed the program).
size_t processes_at_once(const scenario::Scenario& scenario, bool remote_workers);

// One "file:line:column: error: ..." line where the processes counted in start order (the
// routers, then each pool of workers, at the workload whose `workers` sizes it) pass
// `max_processes`, naming the peak and the bound; empty when the scenario fits.
std::string more_processes_than_allowed(const scenario::Scenario& scenario, bool remote_workers,
                                        size_t max_processes);

}  // namespace benchgate::serve
