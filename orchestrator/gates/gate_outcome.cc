// Names of verdicts and methods, and the explanation text of compared outcomes.
#include "orchestrator/gates/gate_outcome.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "common/util/joined_with_and.h"
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
    case Verdict::kNotConfigured:
      return "not_configured";
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
    case Method::kNestedT:
      return "nested-t";
    case Method::kCalibratedT:
      return "calibrated-t";
    case Method::kChangePoint:
      return "e-divisive";
    case Method::kPairedT:
      return "paired-t";
    case Method::kPairedSignedRank:
      return "paired-signed-rank";
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

// "500 (summed over 3 repetitions)", "8.90ms (3 repetitions merged)".
std::string figure_text(const GateOutcome& o, const MetricInfo* info, UnitKind unit) {
  std::string s = format_metric_value(o.observed.value_or(NAN), unit);
  if (info != nullptr) s += " (" + figure_description(o, *info) + ")";
  return s;
}

std::string explain_absolute(const GateOutcome& o, const MetricInfo* info, UnitKind unit) {
  const bool is_max = o.threshold_is_max;
  const std::string bound =
      std::string(is_max ? "max " : "min ") + format_metric_value(o.threshold.value_or(NAN), unit);
  const std::string figure = figure_text(o, info, unit);
  if (o.verdict == Verdict::kPass) return figure + " within " + bound;
  return figure + (is_max ? " above " : " below ") + bound;
}

std::string explain_relative(const GateOutcome& o, const MetricInfo* info, UnitKind unit) {
  const double centre = o.baseline_centre.value_or(NAN);
  const double observed = o.observed.value_or(NAN);
  const double m = o.margin.value_or(0);
  const size_t runs = o.baseline_run_ids.size();
  std::string s = figure_text(o, info, unit);
  const bool paired = o.method == Method::kPairedT || o.method == Method::kPairedSignedRank;
  // Every percentage below is the change candidate / baseline - 1, as the headline change is
  // (docs/GATES.md, "Verdicts"). A regression (`detectable`, max_regression) is stored as
  // expm1 of the log effect, baseline / candidate - 1 for a higher-is-better metric: it is
  // converted here, and is the same figure for a lower-is-better one.
  const Direction direction = info != nullptr ? info->direction : Direction::kLowerIsBetter;
  const bool higher_is_better = direction == Direction::kHigherIsBetter;
  const auto regression_text = [&](double r) {
    return higher_is_better ? change_percent(change_of_regression(r, direction)) : percent(r);
  };
  // "2 baseline runs", "1 baseline run and this calibration", "3 pairs": what the test had.
  const std::string had = paired ? std::to_string(o.pairs) + (o.pairs == 1 ? " pair" : " pairs")
                                 : std::to_string(runs) +
                                       (runs == 1 ? " baseline run" : " baseline runs") +
                                       (o.calibration ? " and this calibration" : "");
  // A test that cannot see even a change by a factor of 10 detects nothing worth a figure.
  const std::string cannot_detect = "cannot detect any change within a factor of " +
                                    number("%g", kMeaningfulFactor) + " with " + had;
  if (paired) {
    s += " vs variant " + o.against + " " + format_metric_value(centre, unit) + " (" +
         std::to_string(o.pairs) + (o.pairs == 1 ? " pair" : " pairs") + " of adjacent windows";
    if (!o.unpaired.empty()) {
      s += o.unpaired.size() == 1 ? "; repetition " : "; repetitions ";
      std::vector<std::string> numbers;  // counted from 1, as the report names repetitions
      for (const uint32_t r : o.unpaired) numbers.push_back(std::to_string(r + 1));
      s += joined_with_and(numbers);
      s += " left out: one variant had nothing to measure in it";
    }
    s += ")";
  } else {
    s += " vs baseline " + format_metric_value(centre, unit) + " (" + std::to_string(runs) +
         (runs == 1 ? " run)" : " runs)");
  }
  if (centre != 0 && std::isfinite(centre)) {
    s += ' ';
    s += change_percent(observed / centre - 1);
  }
  if (o.method == Method::kPairedSignedRank && o.effect) {
    s += " (Hodges-Lehmann " + change_percent(change_of_log_effect(*o.effect, direction)) +
         (*o.effect > 0   ? ", worse"
          : *o.effect < 0 ? ", better"
                          : "") +
         ")";
  }
  const std::string threshold = format_metric_value(o.threshold.value_or(NAN), unit);
  const std::string allowance =
      higher_is_better
          ? "the " + regression_text(std::expm1(m)) + " allowance (max_regression " +
                percent(std::expm1(m)) + ", threshold " + threshold + ")"
          : "the " + percent(std::expm1(m)) + " allowance (threshold " + threshold + ")";
  const std::string alpha = number("alpha %.3g", o.alpha);
  std::string p_used = std::string(to_string(o.method));
  if (o.p_value) {
    p_used += " p=" + number("%.3g", *o.p_value);
    if (o.p_adjusted && *o.p_adjusted != *o.p_value) {
      p_used += ", Holm-adjusted p=" + number("%.3g", *o.p_adjusted);
    }
  }
  switch (o.verdict) {
    case Verdict::kPass:
      s += ": within " + allowance;
      break;
    case Verdict::kFail:
      s += ": worse beyond " + allowance + ", significant (" + p_used + " < " + alpha + ")";
      break;
    default:
      if (o.p_value) {
        s += ": worse beyond " + allowance + ", not significant (" + p_used + " >= " + alpha + ")";
      } else {
        s += ": worse beyond " + allowance + ", not testable";
      }
      break;
  }
  if (!o.p_value && paired) {
    s += "; one pair of windows: their spread is unknown (use more repetitions)";
  } else if (!o.p_value) {
    s += "; one baseline run and no calibration: the run-to-run noise is unknown (add baseline "
         "runs or run `orchestrator calibrate`)";
  }
  if (o.underpowered) {
    s += "; underpowered: a " + regression_text(std::expm1(2 * m)) +
         " regression could not be detected at " + alpha;
    if (o.holm_family > 1) {
      s += " after Holm's correction over " + std::to_string(o.holm_family) + " gates";
    }
    if (o.detectable && beyond_meaningful(*o.detectable)) {
      s += " (" + cannot_detect + ")";
    } else if (o.detectable) {
      s += " (smallest detectable: " + regression_text(*o.detectable) + ")";
    }
    if (o.method == Method::kPairedSignedRank && o.pairs < 64 &&
        std::ldexp(1.0, -static_cast<int>(o.pairs)) >= o.alpha) {
      s += " (" + std::to_string(o.pairs) + (o.pairs == 1 ? " pair" : " pairs") +
           ": no signed-rank p is below 2^-" + std::to_string(o.pairs) + " = " +
           number("%.3g", std::ldexp(1.0, -static_cast<int>(o.pairs))) + ")";
    }
    if (o.fail_when_underpowered) s += ", which fails the run (fail_when_underpowered)";
  }
  if (o.calibration) {
    s += "; calibrated cv " + percent(o.calibration->cv) + " over " +
         std::to_string(o.calibration->runs) + " runs";
    if (o.detectable && std::expm1(m) < *o.detectable) {
      s += ": max_regression " + percent(std::expm1(m));
      if (beyond_meaningful(*o.detectable)) {
        s += " is below what this testbed can detect: it " + cannot_detect;
      } else if (higher_is_better) {
        s += " (a " + regression_text(std::expm1(m)) + " change) is a smaller change than the " +
             regression_text(*o.detectable) + " this testbed can detect";
      } else {
        s += " is below the " + percent(*o.detectable) + " this testbed can detect";
      }
    }
  }
  return s;
}

}  // namespace

std::string figure_description(const GateOutcome& o, const MetricInfo& info) {
  if (o.tool_figure && info.name.rfind("latency.", 0) == 0) {
    // No histogram to merge (results::WorkloadResult::latency_at, latency_mean).
    const std::string n = std::to_string(o.new_repetitions) +
                          (o.new_repetitions == 1 ? " repetition" : " repetitions");
    if (info.name == "latency.max") return "max of " + n;
    if (info.name == "latency.mean") return "mean of " + n + ", weighted by successes";
    return "median of " + n;
  }
  return describe_figure(info.figure, o.new_repetitions);
}

std::string explain(const GateOutcome& outcome) {
  const MetricInfo* info = find_metric(outcome.metric);
  const UnitKind unit = info != nullptr ? info->unit : UnitKind::kCount;
  if (outcome.method == Method::kAbsolute) return explain_absolute(outcome, info, unit);
  return explain_relative(outcome, info, unit);
}

}  // namespace detail
std::string confirmation_suffix(std::string_view confirmation) {
  if (confirmation == "confirmed") return ", confirmed by the rerun";
  if (confirmation == "cleared") return ", cleared by the rerun";
  if (confirmation == "failed") return ", the rerun failed";
  return {};
}

std::string verdict_text(std::string_view verdict, bool underpowered,
                         std::string_view confirmation) {
  std::string text(verdict);
  if (underpowered) text += ", underpowered";
  return text + confirmation_suffix(confirmation);
}

}  // namespace benchgate::gates
