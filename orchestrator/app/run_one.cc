// See run_one.h.
#include "orchestrator/app/run_one.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>
#include <string_view>

#include "orchestrator/app/bundled_binary.h"
#include "orchestrator/app/interrupt.h"
#include "orchestrator/app/store_recorder.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/engine/fan_out_observer.h"
#include "orchestrator/gating/change_confirmation.h"
#include "orchestrator/scenario/suggest.h"

namespace benchgate::app {

using cli::kExitOk;
using cli::kExitRunError;

namespace {

std::vector<gating::WorkloadValues> workload_values(const engine::ScenarioResult& result) {
  std::vector<gating::WorkloadValues> values;
  for (const auto& w : result.workloads) values.push_back(gating::values_of(w));
  return values;
}

// Why a run that has no scenario-level error failed or exits 3: its first failed workload, else
// its first critical gate that is an error (README, "Run status": `runs.error` says why).
std::string unstated_reason(const report::ScenarioReport& out) {
  for (const auto& w : out.result.workloads) {
    if (w.status != results::WorkloadStatus::kFailed) continue;
    const std::string variant = w.variant == "default" ? "" : " (variant " + w.variant + ")";
    return "workload '" + w.spec.name + "'" + variant + " failed: " + w.error;
  }
  if (out.exit_code != kExitRunError) return "";
  for (const auto& g : out.gates) {
    const auto& o = g.outcome;
    if (o.severity != scenario::GateSeverity::kCritical || o.verdict != gates::Verdict::kError) {
      continue;
    }
    const std::string variant = g.variant == "default" ? "" : " (variant " + g.variant + ")";
    return "critical gate " + o.metric + " on workload '" + g.workload + "'" + variant +
           " is an error: " + o.explanation;
  }
  return "";
}

}  // namespace

std::string baseline_warning(const scenario::Scenario& scenario, const RunPolicy& policy,
                             store::Store& db) {
  // Named to be seeded by this run, or no relative gate to judge against it: nothing to warn.
  if (policy.baseline.empty() || policy.baseline == policy.promote) return "";
  const bool relative = std::any_of(scenario.gates.begin(), scenario.gates.end(),
                                    [](const scenario::Gate& g) { return !g.baseline.empty(); });
  if (!relative) return "";
  auto entries = db.list_baselines();
  if (!entries) return "";  // the gates say what they could not read
  std::set<std::string> others;
  for (const store::BaselineEntry& entry : *entries) {
    if (entry.scenario != scenario.name) continue;
    if (entry.name == policy.baseline) return "";
    others.insert(entry.name);
  }
  if (others.empty()) return "";  // no baseline of it at all: nothing to suggest
  std::string names;
  for (const std::string& n : others) names += (names.empty() ? "" : ", ") + n;
  const std::vector<std::string_view> candidates(others.begin(), others.end());
  return "warning: --baseline '" + policy.baseline + "' has no run of scenario '" + scenario.name +
         "'" + scenario::did_you_mean(policy.baseline, candidates) +
         "; baselines with runs of it: " + names + "; every relative gate will be no_baseline, " +
         (policy.strict ? "which fails the run under --strict" : "a failure only with --strict") +
         " (--promote " + policy.baseline + " seeds a new baseline)";
}

report::ScenarioReport run_one(const scenario::Scenario& scenario, const RunPolicy& policy,
                               const engine::EngineOptions& options, store::Store& db,
                               const store::RunInfo& info_template,
                               report::TerminalReport& terminal, engine::RunObserver* extra,
                               const std::function<void(int64_t run_id)>& stored) {
  // Before the load: a misspelt --baseline would cost the whole run (docs/GATES.md).
  if (std::string warning = baseline_warning(scenario, policy, db); !warning.empty()) {
    terminal.message(warning);
  }
  report::ScenarioReport out;
  store::RunInfo info = info_template;
  info.scenario = scenario.name;
  info.scenario_text = scenario.text;
  // Which files are measured, read before they start (docs/MEASUREMENT.md, "Measured binaries").
  info.binaries = measured_binaries(scenario, options);
  out.binaries = info.binaries;
  auto run_id = db.begin_run(info);
  if (!run_id) {
    out.result.scenario = scenario.name;
    out.result.error = "cannot record the run: " + run_id.message();
    out.status = "failed";
    out.exit_code = kExitRunError;
    return out;
  }
  out.run_id = *run_id;
  if (stored) stored(out.run_id);
  StoreRecorder recorder(db, out.run_id,
                         [&terminal](const std::string& line) { terminal.message(line); });
  std::vector<engine::RunObserver*> observers{&terminal, &recorder};
  if (extra != nullptr) observers.push_back(extra);
  engine::FanOutObserver observer(std::move(observers));
  int64_t testbed_id = 0;
  if (auto stored = db.get_run(out.run_id)) testbed_id = stored->run.testbed_id;
  gating::GateContext context{&db, out.run_id, testbed_id, scenario.name, policy.baseline};
  context.submitted_by = store::submitted_by(info.origin);
  // Change gates with confirm = 1: a failing workload is measured again at once; the rerun
  // windows are shown on the terminal only (neither stored nor counted as the workload's).
  gating::ChangeConfirmation confirmation(scenario.gates, context, terminal);
  engine::EngineOptions engine_options = options;
  engine_options.confirmation = &confirmation;
  const auto started = std::chrono::steady_clock::now();
  out.result = engine::run_scenario(scenario, engine_options, observer);
  out.duration_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now() - started)
                        .count();
  // A workload the database refused twice is not reported as stored: it becomes a failed
  // workload in every report (RESULT line, JSON, JUnit, Markdown), and the run fails.
  for (const auto& unstored : recorder.retry_pending()) {
    for (auto& w : out.result.workloads) {
      if (w.spec.name != unstored.name || w.variant != unstored.variant) continue;
      w.status = results::WorkloadStatus::kFailed;
      w.error = "measured, but not stored in the database: " + unstored.error +
                (w.error.empty() ? "" : "; " + w.error);
    }
    if (out.result.error.empty()) out.result.error = "cannot store results: " + unstored.error;
  }

  auto values = workload_values(out.result);
  confirmation.attach(values);
  // What an interrupt stopped before it started is not listed (engine/scenario_runner.cc): its
  // gates say that it did not run, and why.
  if (out.result.interrupted) context.stopped_before = "the run was interrupted";
  out.gates = gating::evaluate_gates(scenario.gates, values, context);
  std::vector<store::GateRecord> records;
  for (const auto& g : out.gates) records.push_back(gating::to_record(g));
  if (!records.empty()) {
    if (auto stored = db.store_gate_results(out.run_id, records); !stored) {
      out.result.error += (out.result.error.empty() ? "" : "; ") +
                          ("cannot store gate results: " + stored.message());
    }
  }

  const bool ran_ok = out.result.ok();
  out.exit_code = ran_ok ? gating::gates_exit_code(out.gates, policy.strict) : kExitRunError;
  out.strict = policy.strict;
  // An interrupt (or a service's cancel) that came after the engine finished, while the gates
  // were judged: the process exits 3 for it (local_run.cc, run_executor.cc), and so does the
  // stored run, which is then no baseline.
  const bool stopped_after_measuring = interrupted();
  if (stopped_after_measuring) out.exit_code = kExitRunError;
  out.status = out.result.interrupted ? "aborted" : (ran_ok ? "ok" : "failed");
  // The stored reason: the run's error; for a run stopped part-way that has none, or one that
  // measured to its end and exits 3 all the same, what stopped it (a signal, the service's
  // cancel or its --max-run-seconds).
  std::string why = out.status == "ok" ? std::string() : out.result.error;
  if (out.result.interrupted && !why.empty() && interrupt_signal() == 0 && interrupted()) {
    // The service stopped it (a cancel, its --max-run-seconds) where the run was waiting: the
    // reason says that first, as for a run stopped anywhere else, then where it was
    // ("interrupted while waiting for ..." alone names no one who stopped it).
    why = interrupt_description() + "; " + why;
  }
  if (why.empty() && (out.result.interrupted || stopped_after_measuring)) {
    why = interrupt_description();
  }
  if (why.empty()) why = unstated_reason(out);
  out.error = why;  // the reports say what the store does
  // Through `terminal`, which writes to the job's own output under `serve`: its client sees
  // these lines as a local run shows them (the process's stdout is the service's).
  const std::string run = std::to_string(out.run_id);
  if (auto finished = db.finish_run(out.run_id, out.status, out.exit_code, why, kExitRunError);
      !finished) {
    terminal.message("error: cannot finish run " + run + ": " + finished.message());
    out.exit_code = kExitRunError;
    // The store ended it as failed where it could: the reports say the status it holds. Where
    // it could not (the database stayed locked: the run stays 'running' until a later open
    // calls it abandoned), the status it would have written, never 'ok' for a run exiting 3.
    auto stored = db.get_run(out.run_id);
    out.status = stored && stored->run.status != "running"
                     ? stored->run.status
                     : store::Store::refused_end_status(out.status);
    // And the reason it holds, which says why the end was refused; else the one it would hold.
    const Error& refused = finished.error();
    out.error = stored && stored->run.status != "running"
                    ? stored->run.error
                    : store::Store::refused_end_reason(
                          why, refused.cause ? refused.cause->text() : refused.text());
  } else if (out.status == "ok") {
    // Derived data: `history changes` computes a series whose stored analysis is behind.
    if (auto changes = db.update_change_points(out.run_id); !changes) {
      std::fprintf(stderr, "warning: %s\n", changes.message().c_str());
    } else if (extra != nullptr) {
      // For the benchgate_change_* gauges: the scenario's series as stored now, the operator's
      // (a client's series are listed by `history changes`; README, "Prometheus and Grafana").
      store::ChangeSeriesFilter filter;
      filter.scenario = scenario.name;
      filter.submitted_by = store::kOperatorRuns;
      if (auto found = db.change_points(filter, store::Store::stored_change_options())) {
        out.changes = std::move(*found);
        out.changes_read = true;
      } else {
        std::fprintf(stderr, "warning: %s\n", found.message().c_str());
      }
    }
  }
  return out;
}

namespace {

// Why `out` does not join the --promote baseline (promote_run's rules), or "" when it does.
std::string not_promoted_reason(const report::ScenarioReport& out, const std::string& held_back) {
  const bool ran_ok = out.result.ok();
  // Promotion follows the exit code: a run that would pass a pipeline joins the baseline.
  // A gate without a baseline yet (no_baseline) does not block the first promotion.
  if (!ran_ok) return "the run did not complete";
  if (out.exit_code == cli::kExitGateFailed) return "a critical gate failed";
  if (out.exit_code != kExitOk) return "it exited " + std::to_string(out.exit_code);
  const bool degraded = std::any_of(out.result.workloads.begin(), out.result.workloads.end(),
                                    [](const auto& w) { return w.degraded(); });
  // Measured after a worker was lost (on_worker_loss = "continue"): never a baseline.
  if (degraded) return "a workload is flagged degraded (a worker was lost)";
  // A pipeline fails on the invocation's exit code: what it measured is not a baseline.
  return held_back;
}

// The store refused to promote `out`: its exit code, and the stored run's, become 3.
void refuse_promotion(report::ScenarioReport& out, store::Store& db,
                      report::TerminalReport& terminal, const std::string& why) {
  terminal.message("error: cannot promote run " + std::to_string(out.run_id) + ": " + why);
  const bool raised = out.exit_code < kExitRunError;
  out.exit_code = std::max(out.exit_code, kExitRunError);
  // Best effort: a store that refused the baseline may refuse this too. The reports say the
  // reason where the store took it.
  if (db.raise_exit_code(out.run_id, out.exit_code, "cannot promote: " + why) && raised) {
    out.add_error("cannot promote: " + why);
  }
}

}  // namespace

void promote_run(report::ScenarioReport& out, const RunPolicy& policy, store::Store& db,
                 report::TerminalReport& terminal, const std::string& held_back) {
  if (policy.promote.empty() || out.run_id == 0) return;
  const std::string run = std::to_string(out.run_id);
  if (std::string why = not_promoted_reason(out, held_back); !why.empty()) {
    terminal.print("run " + run + " not promoted to '" + policy.promote + "': " + why);
  } else if (auto added = db.add_baseline(policy.promote, out.run_id)) {
    terminal.print("promoted run " + run + " to baseline '" + policy.promote + "'");
  } else {
    refuse_promotion(out, db, terminal, added.message());
  }
}

std::string promotion_held_back(const std::vector<report::ScenarioReport>& reports, int exit_code) {
  if (exit_code == kExitOk) return "";
  const std::string rule = "; --promote adds runs only when the whole invocation exits 0";
  if (interrupted()) return interrupt_description() + " during this invocation" + rule;
  for (const report::ScenarioReport& r : reports) {
    if (r.exit_code == kExitOk) continue;
    return "scenario " + r.result.scenario +
           (r.run_id != 0 ? " (run " + std::to_string(r.run_id) + ")" : std::string()) +
           " exited " + std::to_string(r.exit_code) + rule;
  }
  return "the invocation exits " + std::to_string(exit_code) + rule;
}

bool promote_runs(std::vector<report::ScenarioReport>& reports, const RunPolicy& policy,
                  store::Store& db, report::TerminalReport& terminal, int exit_code) {
  if (policy.promote.empty()) return false;
  const std::string held_back = promotion_held_back(reports, exit_code);
  // Every promotion is decided first, then those that pass go into the store in one
  // transaction: a refusal of any leaves the baseline as it was, as a pipeline that fails on
  // the invocation's exit code expects (none of its runs is a baseline).
  std::vector<report::ScenarioReport*> promoted;
  std::vector<int64_t> run_ids;
  for (report::ScenarioReport& r : reports) {
    if (r.run_id == 0) continue;
    if (std::string why = not_promoted_reason(r, held_back); !why.empty()) {
      terminal.print("run " + std::to_string(r.run_id) + " not promoted to '" + policy.promote +
                     "': " + why);
      continue;
    }
    promoted.push_back(&r);
    run_ids.push_back(r.run_id);
  }
  if (promoted.empty()) return false;
  int64_t refused = 0;
  const auto added = db.add_baselines(policy.promote, run_ids, &refused);
  if (added) {
    for (const report::ScenarioReport* r : promoted) {
      terminal.print("promoted run " + std::to_string(r->run_id) + " to baseline '" +
                     policy.promote + "'");
    }
    return false;
  }
  for (report::ScenarioReport* r : promoted) {
    if (refused == 0 || r->run_id == refused) {
      // The run the store refused, or every run when the database itself failed.
      refuse_promotion(*r, db, terminal, added.message());
    } else {
      terminal.print("run " + std::to_string(r->run_id) + " not promoted to '" + policy.promote +
                     "': run " + std::to_string(refused) +
                     " could not be promoted, so the invocation exits 3; --promote adds runs "
                     "only when the whole invocation exits 0");
    }
  }
  return true;
}

}  // namespace benchgate::app
