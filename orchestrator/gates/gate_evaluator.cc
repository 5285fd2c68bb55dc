// Evaluation of one gate (gate_evaluator.h): input checks, the absolute comparison and the
// relative one in log space.
#include "orchestrator/gates/gate_evaluator.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "orchestrator/gates/explanation.h"
#include "orchestrator/gates/metrics.h"
#include "orchestrator/gates/statistics.h"

namespace benchgate::gates {
namespace {

bool all_finite(const std::vector<double>& values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
}

bool any_negative(const std::vector<double>& values) {
  return std::any_of(values.begin(), values.end(), [](double v) { return v < 0; });
}

GateOutcome skeleton(const scenario::Gate& gate) {
  GateOutcome o;
  o.workload = gate.workload;
  o.metric = gate.metric;
  o.severity = gate.severity;
  o.alpha = gate.alpha;
  return o;
}

GateOutcome fail_with(GateOutcome o, Verdict verdict, std::string explanation) {
  o.verdict = verdict;
  o.explanation = std::move(explanation);
  return o;
}

// Why the gate itself cannot be evaluated, or empty.
std::string check_gate(const scenario::Gate& gate) {
  if (find_metric(gate.metric) == nullptr) return "unknown metric '" + gate.metric + "'";
  const bool absolute = gate.max.has_value() || gate.min.has_value();
  const bool relative = gate.max_regression.has_value() || !gate.baseline.empty();
  if (!absolute && !relative) return "the gate has no bound (max, min or max_regression)";
  if (relative && (gate.baseline.empty() || !gate.max_regression)) {
    return "a relative gate needs both baseline and max_regression";
  }
  if (gate.max_regression && !(std::isfinite(*gate.max_regression) && *gate.max_regression >= 0)) {
    return "max_regression must be a finite fraction >= 0";
  }
  if ((gate.max && !std::isfinite(*gate.max)) || (gate.min && !std::isfinite(*gate.min))) {
    return "the gate's bounds must be finite";
  }
  if (!(gate.alpha > 0 && gate.alpha < 1)) return "alpha must lie strictly between 0 and 1";
  return {};
}

GateOutcome evaluate_absolute(GateOutcome o, const scenario::Gate& gate) {
  const double observed = *o.observed;
  // The violated bound decides; a passing gate reports its max, or its min when it has none.
  const bool max_decides = gate.max && (observed > *gate.max || !gate.min || observed >= *gate.min);
  o.method = Method::kAbsolute;
  o.threshold_is_max = max_decides;
  o.threshold = max_decides ? *gate.max : *gate.min;
  o.effect = max_decides ? observed - *gate.max : *gate.min - observed;
  o.verdict = *o.effect > 0 ? Verdict::kFail : Verdict::kPass;
  o.explanation = detail::explain(o);
  return o;
}

// The signed log transform: positive is worse.
struct LogSpace {
  double sign;   // +1 lower is better, -1 higher is better
  double floor;  // the metric's resolution
  double to(double v) const { return sign * std::log(v + floor); }
  double from(double g) const { return std::exp(sign * g) - floor; }
  std::vector<double> to(const std::vector<double>& values) const {
    std::vector<double> out;
    out.reserve(values.size());
    for (double v : values) out.push_back(to(v));
    return out;
  }
};

struct Test {
  Method method;
  double centre;  // in log space
  double p;
  double p_at_twice_margin;  // the same test facing a regression of exactly 2m
};

Test t_test(const std::vector<double>& new_logs, const std::vector<std::vector<double>>& runs,
            double margin) {
  std::vector<double> run_centres;
  for (const auto& run : runs) run_centres.push_back(median(run));
  const double k = static_cast<double>(runs.size());
  const double centre = median(run_centres);
  const double scale = sample_stddev(run_centres) * std::sqrt(1 + 1 / k);
  const double d = median(new_logs) - centre;
  const auto p_for = [&](double effect) {
    if (scale > 0) return student_t_sf(effect / scale, k - 1);
    return effect > 0 ? 0.0 : 1.0;  // no spread at all: any move is certain
  };
  return {Method::kTTest, centre, p_for(d), p_for(2 * margin)};
}

Test mann_whitney_test(const std::vector<double>& new_logs,
                       const std::vector<std::vector<double>>& runs, double margin) {
  std::vector<double> pooled;
  for (const auto& run : runs) pooled.insert(pooled.end(), run.begin(), run.end());
  const double centre = median(pooled);
  const double p = mann_whitney_u(new_logs, pooled, Alternative::kGreater).p_value;
  // The new run's own shape, moved so its median sits exactly 2m above the baseline.
  std::vector<double> shifted = new_logs;
  const double move = centre + 2 * margin - median(new_logs);
  for (double& v : shifted) v += move;
  const double p_2m = mann_whitney_u(shifted, pooled, Alternative::kGreater).p_value;
  return {Method::kMannWhitney, centre, p, p_2m};
}

GateOutcome evaluate_relative(GateOutcome o, const scenario::Gate& gate,
                              const std::vector<double>& new_values,
                              std::vector<BaselineRun> baseline) {
  std::vector<std::vector<double>> runs;
  for (BaselineRun& run : baseline) {
    // A baseline run without the metric cannot stand for the baseline; it is left out.
    if (run.repetitions.empty() || !all_finite(run.repetitions)) continue;
    if (any_negative(run.repetitions)) {
      return fail_with(std::move(o), Verdict::kError,
                       "baseline run " + std::to_string(run.run_id) + " has a negative " +
                           gate.metric + ", which cannot be compared in log space");
    }
    o.baseline_run_ids.push_back(run.run_id);
    runs.push_back(std::move(run.repetitions));
  }
  if (runs.empty()) {
    return fail_with(std::move(o), Verdict::kNoBaseline,
                     "baseline '" + gate.baseline + "' has no run with " + gate.metric +
                         " for this workload on this testbed");
  }
  if (any_negative(new_values)) {
    return fail_with(std::move(o), Verdict::kError,
                     "a negative " + gate.metric + " cannot be compared in log space");
  }
  const MetricInfo& info = *find_metric(gate.metric);
  const LogSpace space{info.direction == Direction::kLowerIsBetter ? 1.0 : -1.0, info.log_floor};
  const std::vector<double> new_logs = space.to(new_values);
  for (auto& run : runs) run = space.to(run);

  const double margin = std::log1p(*gate.max_regression);
  const Test test =
      runs.size() >= 5 ? t_test(new_logs, runs, margin) : mann_whitney_test(new_logs, runs, margin);
  const double d = median(new_logs) - test.centre;
  o.method = test.method;
  o.baseline_centre = space.from(test.centre);
  o.threshold = space.from(test.centre + margin);
  o.effect = d;
  o.margin = margin;
  o.p_value = test.p;
  o.p_adjusted = test.p;
  if (d > margin) {
    o.verdict = test.p < gate.alpha ? Verdict::kFail : Verdict::kInconclusive;
  } else {
    o.verdict = Verdict::kPass;
    o.underpowered = !(test.p_at_twice_margin < gate.alpha);
  }
  o.explanation = detail::explain(o);
  return o;
}

}  // namespace

GateOutcome error_outcome(const scenario::Gate& gate, std::string reason) {
  return fail_with(skeleton(gate), Verdict::kError, std::move(reason));
}

GateOutcome evaluate_gate(const scenario::Gate& gate,
                          std::optional<std::vector<double>> new_repetitions,
                          std::vector<BaselineRun> baseline) {
  GateOutcome o = skeleton(gate);
  if (std::string problem = check_gate(gate); !problem.empty()) {
    return fail_with(std::move(o), Verdict::kError, std::move(problem));
  }
  // A gate never passes on missing data.
  if (!new_repetitions) {
    return fail_with(std::move(o), Verdict::kError, gate.metric + " was not collected");
  }
  if (new_repetitions->empty()) {
    return fail_with(std::move(o), Verdict::kError, gate.metric + " has no measured repetition");
  }
  if (!all_finite(*new_repetitions)) {
    return fail_with(std::move(o), Verdict::kError,
                     gate.metric + " has a non-finite value (NaN or infinity)");
  }
  o.observed = median(*new_repetitions);
  o.new_repetitions = new_repetitions->size();

  if (gate.max || gate.min) {
    o = evaluate_absolute(std::move(o), gate);
    if (o.verdict == Verdict::kFail || !gate.max_regression) return o;
    // Both kinds of bound: the absolute one held, the relative one decides.
    GateOutcome reset = skeleton(gate);
    reset.observed = o.observed;
    reset.new_repetitions = o.new_repetitions;
    o = std::move(reset);
  }
  return evaluate_relative(std::move(o), gate, *new_repetitions, std::move(baseline));
}

}  // namespace benchgate::gates
