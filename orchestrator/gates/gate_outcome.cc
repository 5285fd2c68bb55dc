// Names of verdicts and methods, and the explanation text of compared outcomes.
#include "orchestrator/gates/gate_outcome.h"

#include <cmath>
#include <cstdio>

#include "orchestrator/gates/explanation.h"
#include "orchestrator/gates/metrics.h"

namespace benchgate::gates {

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::kPass:
      return "pass";
    case Verdict::kFail:
      return "fail";
    case Verdict::kInconclusive:
      return "inconclusive";
    case Verdict::kNoBaseline:
      return "no_baseline";
    case Verdict::kError:
      return "error";
  }
  return "error";
}

std::string_view to_string(Method method) {
  switch (method) {
    case Method::kNone:
      return "none";
    case Method::kAbsolute:
      return "absolute";
    case Method::kTTest:
      return "t-test";
    case Method::kMannWhitney:
      return "mann-whitney";
    case Method::kChangePoint:
      return "e-divisive";
  }
  return "none";
}

namespace detail {
namespace {

std::string number(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string percent(double fraction) { return number("%.1f%%", fraction * 100); }

std::string explain_absolute(const GateOutcome& o, UnitKind unit) {
  const std::string median = "median " + format_metric_value(*o.observed, unit) + " over " +
                             std::to_string(o.new_repetitions) + " repetitions";
  const bool is_max = o.threshold_is_max;
  const std::string bound =
      std::string(is_max ? "max " : "min ") + format_metric_value(o.threshold.value_or(NAN), unit);
  if (o.verdict == Verdict::kPass) return median + " within " + bound;
  return median + (is_max ? " above " : " below ") + bound;
}

std::string explain_relative(const GateOutcome& o, UnitKind unit) {
  const double centre = o.baseline_centre.value_or(NAN);
  const double observed = o.observed.value_or(NAN);
  const double m = o.margin.value_or(0);
  const size_t runs = o.baseline_run_ids.size();
  std::string s = "median " + format_metric_value(observed, unit) + " vs baseline " +
                  format_metric_value(centre, unit) + " (" + std::to_string(runs) +
                  (runs == 1 ? " run)" : " runs)");
  if (centre != 0 && std::isfinite(centre)) {
    s += ' ';
    s += number("%+.1f%%", (observed / centre - 1) * 100);
  }
  const std::string allowance = "the " + percent(std::expm1(m)) + " allowance (threshold " +
                                format_metric_value(o.threshold.value_or(NAN), unit) + ")";
  const std::string test =
      std::string(to_string(o.method)) + " p=" + number("%.3g", o.p_value.value_or(NAN));
  std::string p_used = test;
  if (o.p_adjusted && o.p_value && *o.p_adjusted != *o.p_value) {
    p_used += ", Holm-adjusted p=" + number("%.3g", *o.p_adjusted);
  }
  const std::string alpha = number("alpha %.3g", o.alpha);
  switch (o.verdict) {
    case Verdict::kPass:
      s += ": within " + allowance;
      break;
    case Verdict::kFail:
      s += ": worse beyond " + allowance + ", significant (" + p_used + " < " + alpha + ")";
      break;
    default:
      s += ": worse beyond " + allowance + ", not significant (" + p_used + " >= " + alpha + ")";
      break;
  }
  if (o.underpowered) {
    s += "; underpowered: a " + percent(std::expm1(2 * m)) +
         " regression could not be detected at " + alpha + " with this noise";
  }
  return s;
}

}  // namespace

std::string explain(const GateOutcome& outcome) {
  const MetricInfo* info = find_metric(outcome.metric);
  const UnitKind unit = info != nullptr ? info->unit : UnitKind::kCount;
  if (outcome.method == Method::kAbsolute) return explain_absolute(outcome, unit);
  return explain_relative(outcome, unit);
}

}  // namespace detail
}  // namespace benchgate::gates
