// One scenario's run with everything around it: the stored run, the engine, the gates, then
// the promotion. Shared by `orchestrator run`, `orchestrator calibrate` and the jobs of
// `orchestrator serve`.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "orchestrator/engine/scenario_runner.h"
#include "orchestrator/report/scenario_report.h"
#include "orchestrator/report/terminal_report.h"
#include "orchestrator/store/store.h"

namespace benchgate::app {

// How a run is judged and kept (run's --baseline, --strict, --promote; a job's options).
struct RunPolicy {
  std::string baseline;  // overrides every relative gate's baseline
  std::string promote;   // baseline to add the run to when it exits 0
  bool strict = false;   // inconclusive, no_baseline, ... verdicts fail too
};

// Stores the run (`info_template` plus the scenario), runs the engine, evaluates and stores the
// gates and finishes the stored run (exit code 3 when an interrupt came meanwhile). Every line
// goes through `terminal`, which writes to a job's own output under `serve`. `extra` (may be
// null) receives every engine event after the terminal and the store (metrics, a service's
// progress stream). It does not promote: the caller calls promote_run once nothing can change
// the exit code any more (the report files written, an interrupt looked for). `stored` (may be
// empty) is called with the run's id as soon as its row exists, before the engine starts (a
// service's job shows it while it runs).
report::ScenarioReport run_one(const scenario::Scenario& scenario, const RunPolicy& policy,
                               const engine::EngineOptions& options, store::Store& db,
                               const store::RunInfo& info_template,
                               report::TerminalReport& terminal, engine::RunObserver* extra,
                               const std::function<void(int64_t run_id)>& stored = {});

// run_one's warning before the load, or "": `policy.baseline` (not also `policy.promote`, which
// may seed it) has no run of the scenario while other baselines have, and the scenario has a
// relative gate, whose verdicts would all be no_baseline. It names those baselines, with a
// did-you-mean, and says that --strict makes no_baseline fail the run.
std::string baseline_warning(const scenario::Scenario& scenario, const RunPolicy& policy,
                             store::Store& db);

// Adds the run to policy.promote when it exited 0 (completed, no critical gate failed, not
// degraded): README, "a baseline needs exit code 0". `out.exit_code` must be final: what the
// process exits with for this run, and what the store holds (Store::raise_exit_code). A
// promotion the store refuses raises it to 3. `held_back` (several scenarios in one
// `orchestrator run`): why the invocation does not exit 0 although this run did (an interrupt,
// another scenario's run), and the run is not promoted; empty: the invocation exits 0.
void promote_run(report::ScenarioReport& out, const RunPolicy& policy, store::Store& db,
                 report::TerminalReport& terminal, const std::string& held_back = "");

// promote_run's `held_back` for the runs of one `orchestrator run` whose process exits
// `exit_code` (final, the report files written): empty when it is 0; else what made it
// non-zero (an interrupt, the first scenario that did not exit 0). A pipeline fails on that
// exit code, and an interrupt stops what was asked for: no run of the invocation is a
// baseline then, those completed before included (docs/GATES.md, "Series and baselines").
std::string promotion_held_back(const std::vector<report::ScenarioReport>& reports, int exit_code);

// Promotes the runs of one `orchestrator run` whose process exits `exit_code` (final, the
// report files written), all or none: none unless it is 0 (promotion_held_back); else each run
// promote_run would promote is checked and added in one store transaction (Store::
// add_baselines), and when the store refuses one, none is added, that run's exit code (and so
// the invocation's) becomes 3, and the others are told why they were not promoted (every one
// becomes 3 when the database itself failed). Returns whether a refusal raised an exit code.
bool promote_runs(std::vector<report::ScenarioReport>& reports, const RunPolicy& policy,
                  store::Store& db, report::TerminalReport& terminal, int exit_code);

}  // namespace benchgate::app
