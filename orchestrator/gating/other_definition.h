// A relative gate whose baseline has no run of the gate's series although it holds runs of the
// workload: the workload's definition changed since (docs/GATES.md, "Series and baselines"), so
// those runs are another series. Found in the store, so that the no_baseline verdict says so and
// names the parameters that changed, and the user knows to promote a run of the new definition.
// Or it holds them only on other testbeds (other_testbed). Both read the same runs of the
// baseline: one walk, with one limit on the runs read back. Or it holds no run of the scenario
// at all (other_scenarios).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/gates/gate_outcome.h"
#include "orchestrator/gating/run_gates.h"

namespace benchgate::gating {

// The newest run of `baseline` stored before context.run_id, of the same scenario on the same
// testbed, that measured `workload` (its name and variant, finished ok), when it measured
// another definition; nothing when that run has this definition (the baseline's runs lack the
// metric, which is another reason), when there is none, or when the store cannot say. The
// differences are store::definition_differences, labelled "run N" and "now".
std::optional<gates::OtherDefinition> other_definition(const std::string& baseline,
                                                       const WorkloadValues& workload,
                                                       const GateContext& context);

// A relative gate whose baseline has no run of its series on the judged run's testbed although
// it holds runs of the workload on others: a series belongs to one testbed (docs/GATES.md,
// "Series and baselines"), so the no_baseline verdict names both testbeds, what tells them
// apart, and what to do. The newest run of `baseline` stored before context.run_id, of the same
// scenario, that measured `workload` (its name and variant, finished ok), when every such run
// among the baseline's runs of this scenario that other_definition reads (its 10 newest) is on
// another testbed; nothing when one is on this testbed (other_definition or a missing figure
// says why there is no baseline), when there is none, or when the store cannot say.
std::optional<gates::OtherTestbed> other_testbed(const std::string& baseline,
                                                 const WorkloadValues& workload,
                                                 const GateContext& context);

// A relative gate whose baseline holds no run of the judged run's scenario at all, only runs of
// other scenarios (`gate RUN --baseline NAME` with another scenario's baseline): a baseline's
// runs judge only the gates of their own scenario (docs/GATES.md, "Series and baselines"), so
// the no_baseline verdict says so, naming the scenarios it holds (other_scenarios_explanation),
// rather than read as a baseline not yet seeded. Those scenarios, sorted; empty when the
// baseline holds a run of context.scenario (stored before or after the judged run), holds no
// run, or the store cannot say.
std::vector<std::string> other_scenarios(const std::string& baseline, const GateContext& context);

// "baseline 'release' has no run of scenario 'checkout': its runs are of scenario 'search'; a
// baseline's runs judge only their own scenario's gates, so promote a run of 'checkout' to
// 'release' (--promote release)"; at most 5 scenarios are named, then how many more there are.
std::string other_scenarios_explanation(const std::string& baseline, const std::string& scenario,
                                        const std::vector<std::string>& scenarios);

// The runs of `baseline` of context.scenario stored after context.run_id (`gate RUN` judging an
// older run again), oldest first: none of them is the judged run's baseline (docs/GATES.md,
// "Series and baselines"), though `baseline list` shows them; empty when context.run_id is 0
// or the store cannot say.
std::vector<int64_t> newer_baseline_runs(const std::string& baseline, const GateContext& context);

// A no_baseline explanation ("baseline 'main' has no run with throughput.rps for this workload
// on this testbed") of run `run_id`, whose baseline holds `newer` runs stored after it: "stored
// before run 1" after its opening words, then which runs are newer ("; only runs stored before
// the judged run count: its runs of this scenario stored after run 1 are 4 and 7"). Unchanged
// when it does not open with those words.
std::string before_judged_run_explanation(const std::string& explanation,
                                          const std::string& baseline, const std::string& metric,
                                          int64_t run_id, const std::vector<int64_t>& newer);

}  // namespace benchgate::gating
