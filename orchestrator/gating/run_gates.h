// Evaluates a scenario's gates for one run against the stored history: matches each gate to
// its workloads, fetches the baseline series from the store, decides every verdict, applies
// Holm's correction across the run, and turns the outcomes into storable records. Used by
// `orchestrator run` (fresh results) and `orchestrator gate RUN` (stored results).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/gates/gate_outcome.h"
#include "orchestrator/results/results.h"
#include "orchestrator/scenario/scenario.h"
#include "orchestrator/store/records.h"

namespace benchgate::store {
class Store;
}

namespace benchgate::gating {

// One measured workload of the run, as gates see it.
struct WorkloadValues {
  std::string name;
  std::string variant = "default";
  std::string params_hash;
  // The definition the hash is of (store::workload_params_json), to name what changed when a
  // baseline holds the workload under another one.
  std::string params_json;
  // As stored: "ok", "failed", "interrupted", "not_configured"; anything but "ok" makes its
  // gates errors, whose explanation words the status ("workload X was interrupted: ...").
  std::string status = "ok";
  std::string error;  // why it is not ok
  // Why its figures are not judged although it ran (see stopped_reason), or "": its gates are
  // then errors, as a gate never passes on data it cannot trust.
  std::string not_judged;
  // Per-repetition values of a metric in base units; nullopt when not collected.
  std::function<std::optional<std::vector<double>>(const std::string& metric)> values;
  // Optional: the repetition (Repetition::index) each of those values is of (a paired gate
  // pairs by it); null, or nullopt: by position.
  std::function<std::optional<std::vector<uint32_t>>(const std::string& metric)> numbers;
  // The workload's figure of a metric as the report prints it (results::metric_figure, or
  // the stored one); nullopt when not collected.
  std::function<std::optional<double>(const std::string& metric)> figure;
  // Its latency figures are a worker adapter's tool's (no histogram): gates explain them as
  // the median of the repetitions' figures (docs/GATES.md, "What a gate judges").
  bool tool_latency = false;
  // Optional: why a metric the workers could not measure is missing (worker adapters), or "".
  std::function<std::string(const std::string& metric)> not_measured;
  // Optional: why a metric that has a value counts only part of what it names (an error kind
  // the workers declared not measured: results::partly_measured_reason), or "". Its gates are
  // errors, never judged on a lower bound.
  std::function<std::string(const std::string& metric)> partly_measured;
  // The workload measured once more for a change gate with confirm = 1 that failed
  // (docs/GATES.md, "Confirming rerun"); nothing when it was not measured again.
  struct Rerun {
    std::string error;  // why the rerun has no figures (it failed), or ""
    std::function<std::optional<double>(const std::string& metric)> figure;
    // Its repetitions' values (only their count matters to a change gate).
    std::function<std::optional<std::vector<double>>(const std::string& metric)> values;
  };
  std::optional<Rerun> rerun;
};

struct GateContext {
  store::Store* store = nullptr;  // history source; null: relative gates have no baseline
  int64_t run_id = 0;  // history and baselines are the runs stored before it; 0: every run
  int64_t testbed_id = 0;
  std::string scenario;
  std::string baseline_override;  // --baseline NAME: replaces every relative gate's baseline
  // Why a workload of the scenario may be missing from the run, said of the run: "the run was
  // interrupted" (it stopped before the workload started); "": nothing is known.
  std::string stopped_before = {};
  // The run was abandoned (its orchestrator killed): a missing workload may have started and
  // run for a while; only its result was never stored.
  bool abandoned = false;
  // Whose series change gates judge against (store::submitted_by of the run's origin): a run a
  // client submitted to `orchestrator serve` is judged against the clients' runs only, the
  // operator's against the operator's (docs/GATES.md, "Series and baselines").
  std::string submitted_by = std::string(store::kOperatorRuns);
};

struct EvaluatedGate {
  int gate_index = 0;
  std::string workload;  // the concrete workload; the gate's pattern when none ran
  // The workload's variant; the gate's variant pattern when none ran, "" for the pattern "*"
  // (every variant: none is named).
  std::string variant = "default";
  // False when no workload the gate judges ran (the run stopped before it started): the gate
  // is an error that says so (not_run_explanation). True for a gate the loader refuses now
  // (scenario::Gate::refused), whose reason is the refusal, whether or not one ran.
  bool workload_ran = true;
  std::string baseline;  // relative gates: the baseline used; paired gates: the variant against
  bool change = false;   // a change gate (kind = "change")
  gates::GateOutcome outcome;
};

// "absolute", "relative" or "change", as gate_results.kind and the JSON report name it.
std::string kind_of(const EvaluatedGate& gate);

// A gate the loader refuses (Gate::refused, a stored run's scenario judged again) is an error
// on each workload it names, or once when it names none, explained with the loader's words.
std::vector<EvaluatedGate> evaluate_gates(const std::vector<scenario::Gate>& gates,
                                          const std::vector<WorkloadValues>& workloads,
                                          const GateContext& context);

store::GateRecord to_record(const EvaluatedGate& gate);

// Whether `gate` judges `workload`, by its workload and variant patterns (a paired gate every
// matching variant but the one it is judged against): one outcome of evaluate_gates each.
bool gate_judges(const scenario::Gate& gate, const WorkloadValues& workload);

// Whether a relative or paired gate's outcome on `workload` (one of the run's `workloads`)
// reaches its test given a baseline with runs, and so has the p-value that puts it in Holm's
// family (gates::apply_holm): the gate judges the workload, which (and for a paired gate the
// variant it is judged against) ran, is judged and has the gate's figure. evaluate_gates gives
// the others a not_configured or error outcome before any test, with the same checks.
bool reaches_its_test(const scenario::Gate& gate, const WorkloadValues& workload,
                      const std::vector<WorkloadValues>& workloads);

// A measured workload as gates see it (`w` must outlive the result).
WorkloadValues values_of(const results::WorkloadResult& w);

// The reason a repetition (0-based `index`) during which `stopped` (who) were stopped makes
// its workload not judged: "repetition 2 was measured while worker 0 (pid 4242) was stopped
// (flag process_stopped)". A stopped worker sent nothing for a while and a stopped server
// answered nothing, so the window's figures describe the stop, not the system.
std::string stopped_reason(uint32_t index, const std::vector<std::string>& stopped);

// Why a repetition makes its workload not judged, or "" when it does not: stopped_reason, or
// "repetition 2 was measured without every worker (flag degraded)": a worker was lost and
// on_worker_loss = "continue" let the others finish, so the figures describe less load than
// the workload asks for.
std::string not_judged_reason(uint32_t index, const std::vector<std::string>& stopped,
                              const std::vector<std::string>& flags);

// Why the gates of a workload that is not ok are errors: "workload X failed: ...", "workload
// X was interrupted: ...", "workload X is not configured: ...".
std::string not_ok_reason(const WorkloadValues& workload);

// The error of a gate no workload of the run matches, the run having stopped before the gate's
// workload started, as `stopped_before` says ("the run was interrupted"): "workload hello did
// not run: the run was interrupted before it started". A pattern reads "no workload matching
// http_* ran: ...", a gate's variant other than "*" is named with the workload. Of an abandoned
// run, where the workload may have been running when its orchestrator was killed: "workload
// hello has no stored result: the run was abandoned (its orchestrator was killed) before the
// workload finished".
std::string not_run_explanation(const scenario::Gate& gate, const std::string& stopped_before,
                                bool abandoned = false);

// Exit code for the gates alone (docs/GATES.md): 0, 1, or 3 for a critical error.
int gates_exit_code(const std::vector<EvaluatedGate>& gates, bool strict);

}  // namespace benchgate::gating
