// The change gate's decision (change_gate.h).
#include "orchestrator/changes/change_gate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "orchestrator/changes/change_detection.h"
#include "orchestrator/changes/energy_statistic.h"
#include "orchestrator/gates/explanation.h"
#include "orchestrator/gates/metrics.h"
#include "orchestrator/gates/statistics.h"

namespace benchgate::changes {
namespace {

using gates::GateOutcome;
using gates::Verdict;

std::string number(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

GateOutcome with(GateOutcome o, Verdict verdict, std::string explanation) {
  o.verdict = verdict;
  o.explanation = std::move(explanation);
  return o;
}

// +1 when a larger value is worse, -1 when a smaller one is.
double worse_sign(const gates::MetricInfo& info) {
  return info.direction == gates::Direction::kLowerIsBetter ? 1.0 : -1.0;
}

// T_i for every point of `pooled`: Q of (the others, point i), signed by the side of the
// others' median point i lies on (+: the worse side).
std::vector<double> signed_statistics(const std::vector<double>& pooled, double sign) {
  const size_t n = pooled.size();
  std::vector<double> t(n);
  std::vector<double> arranged;
  std::vector<double> others;
  PairSums sums;
  for (size_t i = 0; i < n; ++i) {
    others.clear();
    for (size_t j = 0; j < n; ++j) {
      if (j != i) others.push_back(pooled[j]);
    }
    arranged = others;
    arranged.push_back(pooled[i]);
    sums.assign(arranged);
    const double q = energy_q(sums, 0, n - 1, n);
    const bool worse = sign * (pooled[i] - gates::median(others)) > 0;
    t[i] = worse ? q : -q;
  }
  return t;
}

}  // namespace

size_t change_gate_runs_needed(double alpha) {
  // 1 / (m + 1) < alpha  <=>  m > 1 / alpha - 1.
  size_t m = kChangeGateMinReference;
  while (!(1.0 / static_cast<double>(m + 1) < alpha) && m <= kChangeGateHistory) ++m;
  return m;
}

GateOutcome evaluate_change_gate(const scenario::Gate& gate, std::optional<gates::RunValues> run,
                                 std::span<const HistoryPoint> history) {
  GateOutcome o;
  o.workload = gate.workload;
  o.metric = gate.metric;
  o.severity = gate.severity;
  o.alpha = gate.alpha;
  const gates::MetricInfo* info = gates::find_metric(gate.metric);
  if (info == nullptr)
    return with(std::move(o), Verdict::kError, "unknown metric '" + gate.metric + "'");
  if (!(gate.alpha > 0 && gate.alpha < 1)) {
    return with(std::move(o), Verdict::kError, "alpha must lie strictly between 0 and 1");
  }
  if (!(std::isfinite(gate.min_change) && gate.min_change >= 0)) {
    return with(std::move(o), Verdict::kError, "min_change must be a finite fraction >= 0");
  }
  if (!run) return with(std::move(o), Verdict::kError, gate.metric + " was not collected");
  if (run->repetitions.empty()) {
    return with(std::move(o), Verdict::kError, gate.metric + " has no measured repetition");
  }
  if (!std::isfinite(run->figure)) {
    return with(std::move(o), Verdict::kError,
                gate.metric + " has a non-finite value (NaN or infinity)");
  }
  o.method = gates::Method::kChangePoint;
  const double y = run->figure;
  o.observed = y;
  o.new_repetitions = run->repetitions.size();
  o.tool_figure = run->tool_figure;
  const gates::UnitKind unit = info->unit;

  // The current level: the history after its last change point.
  std::vector<double> values;
  values.reserve(history.size());
  for (const HistoryPoint& p : history) values.push_back(p.value);
  size_t from = 0;
  const std::vector<ChangePoint> found = detect_changes(values, ChangeOptions{});
  if (!found.empty()) from = found.back().index;
  const std::vector<double> reference(values.begin() + static_cast<std::ptrdiff_t>(from),
                                      values.end());
  for (size_t i = from; i < history.size(); ++i) o.baseline_run_ids.push_back(history[i].run_id);
  const size_t needed = change_gate_runs_needed(gate.alpha);
  if (reference.size() < needed) {
    std::string where = found.empty()
                            ? " of history"
                            : " since the change at run " + std::to_string(history[from].run_id);
    return with(std::move(o), Verdict::kNoBaseline,
                std::to_string(reference.size()) + (reference.size() == 1 ? " run" : " runs") +
                    where + ": a change gate at " + number("alpha %.3g", gate.alpha) + " needs " +
                    std::to_string(needed) + " (the smallest p-value with m runs is 1/(m+1))");
  }
  const double centre = gates::median(reference);
  o.baseline_centre = centre;
  if (!(centre > 0) || !(y > 0)) {
    return with(std::move(o), Verdict::kError,
                "a change gate compares ratios, and " +
                    std::string(centre > 0 ? "the run's median" : "the history's median") +
                    " is not positive");
  }
  const double sign = worse_sign(*info);
  const double margin = std::log1p(gate.min_change);
  o.margin = margin;
  o.effect = sign * std::log(y / centre);
  o.threshold = centre * std::exp(sign * margin);
  o.threshold_is_max = sign > 0;

  std::vector<double> pooled = reference;
  pooled.push_back(y);
  const std::vector<double> t = signed_statistics(pooled, sign);
  const double observed = t.back();
  size_t at_least = 0;
  for (double v : t) {
    if (v >= observed) ++at_least;
  }
  const double p = static_cast<double>(at_least) / static_cast<double>(pooled.size());
  o.p_value = p;
  o.p_adjusted = p;

  std::string s = gates::format_metric_value(y, unit) + " (" +
                  gates::detail::figure_description(o, *info) + ") vs " +
                  gates::format_metric_value(centre, unit) + " (the last " +
                  std::to_string(reference.size()) + " runs";
  if (!found.empty()) s += ", since the change at run " + std::to_string(history[from].run_id);
  s += ") " + number("%+.1f%%", gates::relative_change(centre, y) * 100);
  const std::string minimum = "the " + number("%.1f%%", gate.min_change * 100) +
                              " minimum change (threshold " +
                              gates::format_metric_value(*o.threshold, unit) + ")";
  const std::string test = "e-divisive p=" + number("%.3g", p);
  const std::string alpha = number("alpha %.3g", gate.alpha);
  if (*o.effect < margin) {
    return with(std::move(o), Verdict::kPass, s + ": not worse beyond " + minimum);
  }
  if (p < gate.alpha) {
    return with(std::move(o), Verdict::kFail,
                s + ": starts a change, worse beyond " + minimum + ", significant (" + test +
                    " < " + alpha + ")");
  }
  return with(
      std::move(o), Verdict::kInconclusive,
      s + ": worse beyond " + minimum + ", not significant (" + test + " >= " + alpha + ")");
}

}  // namespace benchgate::changes
