#include "orchestrator/gating/run_gates.h"

#include <algorithm>
#include <string_view>

#include "common/util/joined_with_and.h"
#include "orchestrator/gates/gate_evaluator.h"
#include "orchestrator/gating/change_gates.h"
#include "orchestrator/gating/other_definition.h"
#include "orchestrator/results/results.h"
#include "orchestrator/scenario/workload_glob.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/workload_params.h"

namespace benchgate::gating {
namespace {

bool is_relative(const scenario::Gate& gate) { return !gate.baseline.empty(); }

// A stored run's gate that the scenario loader refuses now (scenario::Gate::refused) is not
// judged: an error that says why, as the loader says it.
std::string refused_reason(const scenario::Gate& gate) {
  return "the scenario loader now refuses this gate, so it is not judged: " + gate.refused;
}

// Why `workload` has no figures, for a not_configured verdict: the variant (or the plain
// workload) and its stored reason without the kind that reason starts with ("not_configured:
// 'h2load' is not installed", as the JSON report and the store keep it), which the sentence
// says already.
std::string not_configured_reason(const WorkloadValues& workload) {
  constexpr std::string_view kKind = "not_configured: ";
  std::string_view why = workload.error;
  if (why.starts_with(kKind)) why.remove_prefix(kKind.size());
  const std::string who =
      workload.variant == "default" ? "workload " + workload.name : "variant " + workload.variant;
  return who + " is not configured: " + std::string(why);
}

// The same workload's values in the variant a paired gate names, or nullptr.
const WorkloadValues* against_of(const scenario::Gate& gate, const WorkloadValues& workload,
                                 const std::vector<WorkloadValues>& workloads) {
  for (const auto& w : workloads) {
    if (w.name == workload.name && w.variant == gate.against) return &w;
  }
  return nullptr;
}

// The latest 10 runs of the gate's baseline for this series stored before the run judged.
std::vector<gates::BaselineRun> baseline_runs(const scenario::Gate& gate,
                                              const std::string& baseline,
                                              const WorkloadValues& workload,
                                              const GateContext& context, std::string& error) {
  std::vector<gates::BaselineRun> runs;
  if (!context.store) return runs;
  store::HistoryQuery query;
  query.baseline = baseline;
  query.testbed_id = context.testbed_id;
  query.scenario = context.scenario;
  query.workload = workload.name;
  query.variant = workload.variant;
  query.params_hash = workload.params_hash;
  query.metric = gate.metric;
  query.k = 10;
  // The runs before the one judged: `orchestrator gate RUN` re-judges a stored run against the
  // baseline runs it had (a run promoted since counts when it was measured before).
  query.before_run = context.run_id;
  auto history = context.store->baseline_history(query);
  if (!history) {
    error = history.message();
    return runs;
  }
  for (const auto& run : *history) runs.push_back({run.run_id, {run.figure, run.values}});
  return runs;
}

// The series' calibrated between-run noise (`orchestrator calibrate`), when one was stored
// before the run judged.
std::optional<gates::CalibratedNoise> calibration_of(const scenario::Gate& gate,
                                                     const WorkloadValues& workload,
                                                     const GateContext& context,
                                                     std::string& error) {
  if (!context.store) return std::nullopt;
  store::SeriesKey key{context.testbed_id, context.scenario,     workload.name,
                       workload.variant,   workload.params_hash, gate.metric};
  // Stored before the run judged, as its baseline runs: `orchestrator gate RUN` judges an old run
  // with the noise it had, not with a calibration measured since.
  auto noise = context.store->calibration(key, context.run_id);
  if (!noise) {
    error = noise.message();
    return std::nullopt;
  }
  if (!*noise) return std::nullopt;
  return gates::CalibratedNoise{(*noise)->log_sd, (*noise)->runs, (*noise)->cv};
}

// The run's values of the gate's metric, or nothing when it was not collected.
std::optional<gates::RunValues> run_values(const WorkloadValues& workload,
                                           const std::string& metric) {
  auto repetitions = workload.values(metric);
  if (!repetitions) return std::nullopt;
  auto figure = workload.figure ? workload.figure(metric) : std::nullopt;
  if (!figure) return std::nullopt;
  auto numbers = workload.numbers ? workload.numbers(metric) : std::nullopt;
  return gates::RunValues{*figure, std::move(*repetitions),
                          numbers.value_or(std::vector<uint32_t>{}),
                          workload.tool_latency && metric.rfind("latency.", 0) == 0};
}

// A paired gate's outcome for one variant of a workload (docs/GATES.md, "Paired gates").
// The variant it is judged against passed outcome_before_test.
gates::GateOutcome evaluate_paired(const scenario::Gate& gate, const WorkloadValues& workload,
                                   const std::vector<WorkloadValues>& workloads) {
  const WorkloadValues* against = against_of(gate, workload, workloads);
  gates::GateOutcome o = gates::evaluate_paired_gate(gate, run_values(workload, gate.metric),
                                                     run_values(*against, gate.metric));
  if (o.verdict == gates::Verdict::kError) {
    for (const WorkloadValues* w : {&workload, against}) {
      if (!w->not_measured) continue;
      if (std::string why = w->not_measured(gate.metric); !why.empty()) {
        o.explanation = why;
        break;
      }
    }
  }
  return o;
}

// The outcome `gate` takes on `workload` before any test: not_configured or an error when the
// workload, or the variant a paired gate judges it against, did not run, was not measured, failed
// or is not judged; nothing when the gate goes on to its test.
std::optional<gates::GateOutcome> outcome_before_test(
    const scenario::Gate& gate, const WorkloadValues& workload,
    const std::vector<WorkloadValues>& workloads) {
  if (workload.status == "not_configured") {
    // The variant did not run (docs/SCENARIOS.md): nothing to judge, and no run error.
    return gates::not_configured_outcome(gate, not_configured_reason(workload));
  }
  if (workload.status != "ok") return gates::error_outcome(gate, not_ok_reason(workload));
  if (!workload.not_judged.empty()) {
    return gates::error_outcome(gate, "not judged: " + workload.not_judged);
  }
  if (workload.partly_measured) {
    if (std::string why = workload.partly_measured(gate.metric); !why.empty()) {
      // A lower bound already past an absolute max fails for certain: judged as measured.
      const auto lower = workload.figure ? workload.figure(gate.metric) : std::nullopt;
      const bool certain_fail = !gate.change && gate.baseline.empty() && gate.against.empty() &&
                                gate.max && lower && *lower > *gate.max;
      if (!certain_fail) return gates::error_outcome(gate, why);
    }
  }
  if (gate.change || gate.against.empty()) return std::nullopt;
  const WorkloadValues* against = against_of(gate, workload, workloads);
  if (against == nullptr) {
    return gates::error_outcome(
        gate, "variant " + gate.against + " of workload " + workload.name + " was not measured");
  }
  if (against->status == "not_configured") {
    return gates::not_configured_outcome(gate, not_configured_reason(*against));
  }
  if (against->status != "ok") {
    return gates::error_outcome(gate,
                                "the variant it is judged against: " + not_ok_reason(*against));
  }
  if (!against->not_judged.empty()) {
    return gates::error_outcome(
        gate, "the variant it is judged against is not judged: " + against->not_judged);
  }
  if (against->partly_measured) {
    if (std::string why = against->partly_measured(gate.metric); !why.empty()) {
      return gates::error_outcome(gate, "the variant it is judged against: " + why);
    }
  }
  return std::nullopt;
}

}  // namespace

bool gate_judges(const scenario::Gate& gate, const WorkloadValues& workload) {
  // A paired gate judges every matching variant but the one it is judged against.
  return scenario::workload_matches(gate.workload, workload.name) &&
         scenario::workload_matches(gate.variant, workload.variant) &&
         (gate.against.empty() || workload.variant != gate.against);
}

bool reaches_its_test(const scenario::Gate& gate, const WorkloadValues& workload,
                      const std::vector<WorkloadValues>& workloads) {
  const bool relative_or_paired = !gate.change && (is_relative(gate) || !gate.against.empty());
  if (!relative_or_paired || !gate.refused.empty() || !gate_judges(gate, workload)) return false;
  if (outcome_before_test(gate, workload, workloads)) return false;
  // Without the figure (a metric not measured) the test is an error, as evaluate_gate and
  // evaluate_paired_gate decide on run_values.
  if (!run_values(workload, gate.metric)) return false;
  return gate.against.empty() || run_values(*against_of(gate, workload, workloads), gate.metric);
}

std::vector<EvaluatedGate> evaluate_gates(const std::vector<scenario::Gate>& gates,
                                          const std::vector<WorkloadValues>& workloads,
                                          const GateContext& context) {
  std::vector<EvaluatedGate> evaluated;
  for (size_t index = 0; index < gates.size(); ++index) {
    scenario::Gate gate = gates[index];
    if (is_relative(gate) && !context.baseline_override.empty()) {
      gate.baseline = context.baseline_override;
    }
    bool matched = false;
    for (const auto& workload : workloads) {
      if (!gate_judges(gate, workload)) continue;
      matched = true;
      EvaluatedGate result;
      result.gate_index = static_cast<int>(index);
      result.workload = workload.name;
      result.variant = workload.variant;
      result.baseline = gate.against.empty() ? gate.baseline : gate.against;
      result.change = gate.change;
      if (!gate.refused.empty()) {
        result.outcome = gates::error_outcome(gate, refused_reason(gate));
      } else if (auto before = outcome_before_test(gate, workload, workloads)) {
        result.outcome = std::move(*before);
      } else if (gate.change) {
        result.outcome = evaluate_change(gate, workload, context);
      } else if (!gate.against.empty()) {
        result.outcome = evaluate_paired(gate, workload, workloads);
      } else {
        std::string history_error;
        std::vector<gates::BaselineRun> baseline;
        std::optional<gates::CalibratedNoise> calibration;
        std::optional<gates::OtherDefinition> other;
        std::optional<gates::OtherTestbed> elsewhere;
        std::vector<std::string> scenarios;  // the baseline's, when none is this run's
        if (is_relative(gate)) {
          baseline = baseline_runs(gate, gate.baseline, workload, context, history_error);
          if (history_error.empty()) {
            calibration = calibration_of(gate, workload, context, history_error);
          }
          // No run of this series: the baseline may hold the workload under another definition.
          if (history_error.empty() && baseline.empty()) {
            other = other_definition(gate.baseline, workload, context);
            // Or only on other testbeds, where no run of it is of this series.
            if (!other) elsewhere = other_testbed(gate.baseline, workload, context);
            // Or no run of this scenario at all, only other scenarios' runs.
            if (!other && !elsewhere) scenarios = other_scenarios(gate.baseline, context);
          }
        }
        if (!history_error.empty()) {
          result.outcome = gates::error_outcome(gate, "baseline history: " + history_error);
        } else {
          result.outcome =
              gates::evaluate_gate(gate, run_values(workload, gate.metric), std::move(baseline),
                                   calibration, std::move(other), std::move(elsewhere));
          if (result.outcome.verdict == gates::Verdict::kNoBaseline && !scenarios.empty()) {
            result.outcome.explanation =
                other_scenarios_explanation(gate.baseline, context.scenario, scenarios);
          } else if (result.outcome.verdict == gates::Verdict::kNoBaseline) {
            // `gate RUN` of an older run: the baseline's runs stored since, which `baseline
            // list` shows, are not its history; said, or "has no run" reads as false.
            result.outcome.explanation = before_judged_run_explanation(
                result.outcome.explanation, gate.baseline, gate.metric, context.run_id,
                newer_baseline_runs(gate.baseline, context));
          }
          // "not collected" says nothing of why; a worker that could not measure it says so.
          if (result.outcome.verdict == gates::Verdict::kError && workload.not_measured) {
            if (std::string why = workload.not_measured(gate.metric); !why.empty()) {
              result.outcome.explanation = why;
            }
          }
        }
      }
      result.outcome.workload = workload.name;
      evaluated.push_back(std::move(result));
    }
    if (!matched) {
      // A workload that never ran (the run stopped before it started) cannot pass its gate.
      EvaluatedGate result;
      result.gate_index = static_cast<int>(index);
      result.workload = gate.workload;
      result.baseline = gate.against.empty() ? gate.baseline : gate.against;
      result.change = gate.change;
      // "*" is the gate's pattern for every variant, not a variant: none is named.
      result.variant = gate.variant == "*" ? std::string() : gate.variant;
      // A gate the loader refuses now is not judged whether its workload ran or not: the
      // refusal is its reason, not a workload that did not run.
      if (!gate.refused.empty()) {
        result.outcome = gates::error_outcome(gate, refused_reason(gate));
      } else {
        result.workload_ran = false;
        result.outcome = gates::error_outcome(
            gate, not_run_explanation(gate, context.stopped_before, context.abandoned));
      }
      evaluated.push_back(std::move(result));
    }
  }
  std::vector<gates::GateOutcome> outcomes;
  for (const auto& e : evaluated) outcomes.push_back(e.outcome);
  gates::apply_holm(outcomes);
  for (size_t i = 0; i < evaluated.size(); ++i) evaluated[i].outcome = outcomes[i];
  return evaluated;
}

std::string stopped_reason(uint32_t index, const std::vector<std::string>& stopped) {
  std::string who = joined_with_and(stopped);
  if (who.empty()) who = "a process";
  return "repetition " + std::to_string(index + 1) + " was measured while " + who + " " +
         (stopped.size() > 1 ? "were" : "was") + " stopped (flag " +
         std::string(results::kProcessStopped) + ")";
}

std::string not_judged_reason(uint32_t index, const std::vector<std::string>& stopped,
                              const std::vector<std::string>& flags) {
  if (!stopped.empty()) return stopped_reason(index, stopped);
  if (std::find(flags.begin(), flags.end(), results::kDegraded) == flags.end()) return {};
  return "repetition " + std::to_string(index + 1) + " was measured without every worker (flag " +
         std::string(results::kDegraded) + ")";
}

std::string not_ok_reason(const WorkloadValues& workload) {
  // An interrupt is not a failure of the workload (README, "Failure behaviour").
  std::string what = workload.status == "failed"           ? "failed"
                     : workload.status == "interrupted"    ? "was interrupted"
                     : workload.status == "not_configured" ? "is not configured"
                                                           : "is " + workload.status;
  return "workload " + workload.name + " " + what + ": " + workload.error;
}

WorkloadValues values_of(const results::WorkloadResult& w) {
  WorkloadValues v;
  v.name = w.spec.name;
  v.variant = w.variant;
  v.params_hash = store::workload_params_hash(w.spec);
  v.params_json = store::workload_params_json(w.spec);
  v.status = results::status_name(w.status);
  v.error = w.error;
  for (const auto& rep : w.repetitions) {
    v.not_judged = not_judged_reason(rep.index, rep.stopped, rep.flags);
    if (!v.not_judged.empty()) break;
  }
  v.values = [&w](const std::string& metric) { return results::metric_values(w, metric); };
  v.numbers = [&w](const std::string& metric) -> std::optional<std::vector<uint32_t>> {
    auto values = results::metric_values_by_repetition(w, metric);
    if (!values) return std::nullopt;
    std::vector<uint32_t> numbers;
    for (const results::RepetitionValue& value : *values) numbers.push_back(value.repetition);
    return numbers;
  };
  v.figure = [&w](const std::string& metric) { return results::metric_figure(w, metric); };
  v.tool_latency = w.latency.total_count() == 0 && !w.latency_tool().empty();
  v.not_measured = [&w](const std::string& metric) {
    return results::not_measured_reason(w, metric);
  };
  v.partly_measured = [&w](const std::string& metric) {
    return results::partly_measured_reason(w, metric);
  };
  return v;
}

std::string not_run_explanation(const scenario::Gate& gate, const std::string& stopped_before,
                                bool abandoned) {
  const std::string variant =
      gate.variant == "*" ? std::string() : " (variant " + gate.variant + ")";
  if (abandoned) {
    // It may have started: a killed orchestrator stores nothing of the workload it was running.
    const std::string what =
        scenario::is_glob(gate.workload)
            ? "no workload matching " + gate.workload + variant + " has a stored result"
            : "workload " + gate.workload + variant + " has no stored result";
    return what + ": " + stopped_before + " before the workload finished";
  }
  const std::string what = scenario::is_glob(gate.workload)
                               ? "no workload matching " + gate.workload + variant + " ran"
                               : "workload " + gate.workload + variant + " did not run";
  return what + ": " + (stopped_before.empty() ? "the run stopped" : stopped_before) +
         " before it started";
}

std::string kind_of(const EvaluatedGate& gate) {
  if (gate.change) return "change";
  return gate.baseline.empty() ? "absolute" : "relative";
}

store::GateRecord to_record(const EvaluatedGate& gate) {
  const auto& o = gate.outcome;
  store::GateRecord record;
  record.gate_index = gate.gate_index;
  record.workload = gate.workload;
  record.variant = gate.variant;
  record.metric = o.metric;
  record.kind = kind_of(gate);
  record.threshold = o.threshold;
  record.observed = o.observed;
  record.baseline = gate.baseline;
  record.baseline_runs = o.baseline_run_ids;
  record.baseline_centre = o.baseline_centre;
  record.effect = o.effect;
  record.p_value = o.p_adjusted ? o.p_adjusted : o.p_value;
  if (!gate.baseline.empty() || gate.change) record.alpha = o.alpha;
  record.method = std::string(gates::to_string(o.method));
  record.verdict = std::string(gates::to_string(o.verdict));
  record.severity = o.severity == scenario::GateSeverity::kCritical ? "critical" : "warning";
  record.explanation = o.explanation;
  if (!gate.baseline.empty() && o.method != gates::Method::kNone) {
    record.underpowered = o.underpowered;
  }
  record.detectable = o.detectable;
  if (o.effect_interval) {
    record.effect_low = o.effect_interval->low;
    record.effect_high = o.effect_interval->high;
    record.effect_confidence = o.effect_interval->confidence;
  }
  if (!o.confirmation.empty()) record.confirmation = o.confirmation;
  record.confirmation_observed = o.confirmation_observed;
  record.confirmation_p_value = o.confirmation_p_value;
  return record;
}

int gates_exit_code(const std::vector<EvaluatedGate>& evaluated, bool strict) {
  std::vector<gates::GateOutcome> outcomes;
  for (const auto& e : evaluated) outcomes.push_back(e.outcome);
  return gates::exit_code_for(outcomes, strict);
}

}  // namespace benchgate::gating
