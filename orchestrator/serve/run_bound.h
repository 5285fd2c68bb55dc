// How long a submitted scenario may hold the service's single run slot, and the refusal of
// one that may hold it past the operator's --max-run-seconds (README "Clients of orchestrator
// serve"). What bounds a run's wall time is its waits, each cut off by a timeout of the
// scenario: a workload's `timeout` (from its workers' readiness through its last window), and
// the `startup_timeout` of each system under test and worker implementation it starts. The
// measured time (warmup + duration * repetitions) is inside the timeout (the loader requires
// it), so the timeouts are the bound that is checked.
#pragma once

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

}  // namespace benchgate::serve
