// Evaluation of one gate (gate_evaluator.h): input checks, the absolute comparison and the
// relative one in log space.
#include "orchestrator/gates/gate_evaluator.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <optional>
#include <utility>

#include "orchestrator/gates/effect_interval.h"
#include "orchestrator/gates/explanation.h"
#include "orchestrator/gates/metrics.h"
#include "orchestrator/gates/signed_rank.h"
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
  o.fail_when_underpowered = gate.fail_when_underpowered;
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
  const bool relative =
      gate.max_regression.has_value() || !gate.baseline.empty() || !gate.against.empty();
  if (!absolute && !relative) return "the gate has no bound (max, min or max_regression)";
  if (relative && ((gate.baseline.empty() && gate.against.empty()) || !gate.max_regression)) {
    return "a relative gate needs both baseline (or against) and max_regression";
  }
  if (!gate.baseline.empty() && !gate.against.empty()) {
    return "a gate takes baseline or against, not both";
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

// The baseline's centre in the metric's units. With an odd number of runs it is the middle run's
// figure itself: back from log space a stored 40485.5 ops/s would come out 40485.49999999996 and
// print one unit below what that run's report and `compare` printed. With an even number it is
// the test's centre (the two middle figures' mean in log space), which no run has.
double centre_in_units(std::vector<double> figures, const LogSpace& space, double log_centre) {
  if (figures.size() % 2 == 0) return space.from(log_centre);
  const auto middle = figures.begin() + static_cast<std::ptrdiff_t>(figures.size() / 2);
  std::nth_element(figures.begin(), middle, figures.end());
  return *middle;
}

// One relative test's result in log space.
struct Test {
  Method method = Method::kNone;
  double centre = 0;
  std::optional<double> p;                  // nothing when the noise is unknown
  std::optional<double> p_at_twice_margin;  // the same test facing a regression of exactly 2m
  std::optional<double> detectable;         // smallest significant effect d (log space)
  std::optional<EffectInterval> interval;   // of d, from the same standard error and df
  double scale = 0;                         // the t's standard error of d, with detectable
  double df = 0;
};

// The smallest regression (a fraction) a one-sided t with this standard error and df detects at
// `level`.
double t_detectable(double scale, double df, double level) {
  return std::expm1(scale * student_t_quantile(1 - level, df));
}

// The test on the runs' figures with standard deviation `sd` of one run's figure and `df`
// degrees of freedom; sd 0 (a deterministic metric) makes any move certain. The centre is the
// median of the k baseline figures, whose variance is median_variance_ratio(k) / k of one
// run's (a mean's would be 1 / k): with 1 / k the test would raise 5 baseline runs' false
// alarms above alpha.
Test t_on_figures(Method method, double centre, double d, double sd, double df, double k,
                  double margin, double alpha) {
  const double scale = sd * std::sqrt(1 + median_variance_ratio(static_cast<size_t>(k)) / k);
  const auto p_for = [&](double effect) {
    if (scale > 0) return student_t_sf(effect / scale, df);
    return effect > 0 ? 0.0 : 1.0;
  };
  Test t{method, centre, p_for(d), p_for(2 * margin), std::nullopt, std::nullopt};
  t.detectable = scale * student_t_quantile(1 - alpha, df);
  t.scale = scale;
  t.df = df;
  t.interval = effect_interval(d, scale, df, interval_confidence(alpha));
  return t;
}

// A baseline that holds the workload only on other testbeds, naming them, so that the user
// promotes a run of this testbed rather than wait for a baseline that never applies here.
std::string other_testbed_explanation(const scenario::Gate& gate, const std::string& none,
                                      const OtherTestbed& other) {
  const std::string run = "run " + std::to_string(other.run_id);
  std::string differs;
  bool host_only = !other.differences.empty();
  for (const std::string& d : other.differences) {
    differs += (differs.empty() ? "" : ", ") + d;
    host_only = host_only && d.starts_with("host ");
  }
  return none + " for this workload on this testbed (testbed " +
         std::to_string(other.this_testbed_id) +
         "): its newest runs of the workload are on other testbeds (the latest: " + run +
         ", on testbed " + std::to_string(other.testbed_id) + ")" +
         (differs.empty() ? std::string() : ", which differs in " + differs) +
         "; a series belongs to one testbed, so promote a run measured on this one to '" +
         gate.baseline + "' (--promote " + gate.baseline + ")" +
         (host_only ? std::string(", or, where only the host name tells the machines apart (CI "
                                  "runners), give them one BENCHGATE_TESTBED_HOST")
                    : std::string());
}

// No baseline run of this series: why, naming a changed definition where the baseline holds
// runs of one or only other testbeds' runs, so that the user re-baselines rather than read it as a
// baseline not yet seeded.
std::string no_baseline_explanation(const scenario::Gate& gate,
                                    const std::optional<OtherDefinition>& other,
                                    const std::optional<OtherTestbed>& other_testbed) {
  const std::string none = "baseline '" + gate.baseline + "' has no run with " + gate.metric;
  if (!other && other_testbed) return other_testbed_explanation(gate, none, *other_testbed);
  if (!other) return none + " for this workload on this testbed";
  std::string differs;
  for (const std::string& d : other->differences) differs += (differs.empty() ? "" : ", ") + d;
  const std::string run = "run " + std::to_string(other->run_id);
  return none + " for this workload's definition on this testbed: its runs of the workload " +
         "(the latest: " + run + ") measured another definition" +
         (differs.empty() ? std::string() : ", which differs in " + differs) +
         "; a changed definition starts a new series, so promote a run of this one to '" +
         gate.baseline + "' (--promote " + gate.baseline + ")";
}

GateOutcome evaluate_relative(GateOutcome o, const scenario::Gate& gate, const RunValues& run,
                              std::vector<BaselineRun> baseline,
                              std::optional<CalibratedNoise> calibration,
                              const std::optional<OtherDefinition>& other_definition,
                              const std::optional<OtherTestbed>& other_testbed) {
  std::vector<double> figures;
  std::vector<std::vector<double>> repetitions;
  for (BaselineRun& b : baseline) {
    // A baseline run without the metric cannot stand for the baseline; it is left out.
    if (!std::isfinite(b.values.figure) || b.values.repetitions.empty() ||
        !all_finite(b.values.repetitions)) {
      continue;
    }
    if (b.values.figure < 0 || any_negative(b.values.repetitions)) {
      return fail_with(std::move(o), Verdict::kError,
                       "baseline run " + std::to_string(b.run_id) + " has a negative " +
                           gate.metric + ", which cannot be compared in log space");
    }
    o.baseline_run_ids.push_back(b.run_id);
    figures.push_back(b.values.figure);
    repetitions.push_back(std::move(b.values.repetitions));
  }
  if (figures.empty()) {
    return fail_with(std::move(o), Verdict::kNoBaseline,
                     no_baseline_explanation(gate, other_definition, other_testbed));
  }
  if (run.figure < 0 || any_negative(run.repetitions)) {
    return fail_with(std::move(o), Verdict::kError,
                     "a negative " + gate.metric + " cannot be compared in log space");
  }
  const MetricInfo& info = *find_metric(gate.metric);
  const LogSpace space{info.direction == Direction::kLowerIsBetter ? 1.0 : -1.0, info.log_floor};
  const std::vector<double> figures_in_units = figures;
  for (double& f : figures) f = space.to(f);
  // The noise model is the baseline's: the new run's own spread is part of what is judged
  // (one slow repetition must not make its run untestable).
  for (auto& r : repetitions) r = space.to(r);

  const double margin = std::log1p(*gate.max_regression);
  const double k = static_cast<double>(figures.size());
  const double centre = median(figures);
  const double d = space.to(run.figure) - centre;
  Test test;
  // A run's figure varies at least as much as its repetitions' mean does.
  const double n = static_cast<double>(std::max<size_t>(run.repetitions.size(), 1));
  const double within = pooled_within_variance(repetitions);  // each run about its own mean
  const double floor = (std::isnan(within) ? 0 : within) / n;
  const double own = figures.size() >= 2 ? std::pow(sample_stddev(figures), 2) : 0;
  if (calibration && calibration->runs >= 2) {
    // Two estimates of one run's spread on this testbed, pooled by their degrees of freedom:
    // with 5 baseline runs alone t(1 - alpha, 4) is large; the calibration's N - 1 more
    // degrees of freedom buy power without assuming anything the A/A series did not measure.
    const double cal_df = calibration->runs - 1.0;
    const double df = cal_df + (k - 1);
    const double pooled = (cal_df * calibration->log_sd * calibration->log_sd + (k - 1) * own) / df;
    test = t_on_figures(Method::kCalibratedT, centre, d, std::sqrt(std::max(pooled, floor)), df, k,
                        margin, gate.alpha);
    o.calibration = calibration;
  } else if (figures.size() >= 5) {
    // The floor as for 2..4 runs: runs that agree more closely than their repetitions allow
    // (identical figures) must not make one more baseline run a certainty. Zero, and p = 0
    // for any move, only where the repetitions have no spread either.
    test = t_on_figures(Method::kTTest, centre, d, std::sqrt(std::max(own, floor)), k - 1, k,
                        margin, gate.alpha);
  } else if (figures.size() >= 2) {
    test = t_on_figures(Method::kNestedT, centre, d, std::sqrt(std::max(own, floor)), k - 1, k,
                        margin, gate.alpha);
  } else {
    test.method = Method::kNestedT;
    test.centre = centre;
  }
  o.method = test.method;
  o.baseline_centre = centre_in_units(figures_in_units, space, test.centre);
  o.threshold = space.from(test.centre + margin);
  o.effect = d;
  o.effect_interval = test.interval;
  o.margin = margin;
  o.p_value = test.p;
  o.p_adjusted = test.p;
  if (test.detectable) {
    o.detectable = std::expm1(*test.detectable);
    o.detectable_at = [scale = test.scale, df = test.df](double level) {
      return std::optional<double>(t_detectable(scale, df, level));
    };
  }
  if (d > margin) {
    o.verdict = test.p && *test.p < gate.alpha ? Verdict::kFail : Verdict::kInconclusive;
  } else {
    o.verdict = Verdict::kPass;
  }
  o.p_at_twice_margin = test.p_at_twice_margin;
  o.underpowered = !(test.p_at_twice_margin && *test.p_at_twice_margin < gate.alpha);
  o.explanation = detail::explain(o);
  return o;
}

// The checks every gate's run values pass before they are judged, or the error outcome.
std::optional<GateOutcome> check_run(GateOutcome& o, const scenario::Gate& gate,
                                     const std::optional<RunValues>& run, const char* whose) {
  const std::string of = *whose ? std::string(" of ") + whose : std::string();
  if (!run) return fail_with(o, Verdict::kError, gate.metric + of + " was not collected");
  if (run->repetitions.empty()) {
    return fail_with(o, Verdict::kError, gate.metric + of + " has no measured repetition");
  }
  if (!std::isfinite(run->figure) || !all_finite(run->repetitions)) {
    return fail_with(o, Verdict::kError,
                     gate.metric + of + " has a non-finite value (NaN or infinity)");
  }
  if (run->figure < 0 || any_negative(run->repetitions)) {
    return fail_with(o, Verdict::kError,
                     "a negative " + gate.metric + of + " cannot be compared in log space");
  }
  return std::nullopt;
}

// A paired gate's verdict from its effect and p-value, the rule of every relative gate.
GateOutcome decide_paired(GateOutcome o, const scenario::Gate& gate) {
  if (*o.effect > *o.margin) {
    o.verdict = o.p_value && *o.p_value < gate.alpha ? Verdict::kFail : Verdict::kInconclusive;
  } else {
    o.verdict = Verdict::kPass;
  }
  o.explanation = detail::explain(o);
  return o;
}

// The signed-rank test of the pairs' log ratios x (signed_rank.h): the effect is their
// Hodges-Lehmann centre, the p-value the exact one-sided signed-rank p (Pratt's zeros), the
// interval and the smallest detectable effect from the Walsh averages, and underpowered when
// the same pairs shifted so that their centre is exactly 2m would not reach p < alpha (which
// always holds when 2^-n >= alpha).
GateOutcome signed_rank_on_pairs(GateOutcome o, const std::vector<double>& x, double margin,
                                 double alpha) {
  o.method = Method::kPairedSignedRank;
  const double centre = hodges_lehmann_centre(x);
  o.effect = centre;
  o.p_value = wilcoxon_signed_rank(x).p_greater;
  o.p_adjusted = o.p_value;
  std::vector<double> shifted;
  for (double v : x) shifted.push_back(v - centre + 2 * margin);
  o.p_at_twice_margin = wilcoxon_signed_rank(shifted).p_greater;
  o.underpowered = !(*o.p_at_twice_margin < alpha);
  const CentreInterval interval = walsh_interval(x, interval_confidence(alpha));
  if (interval.bounded) {
    o.effect_interval = EffectInterval{interval.low, interval.high, interval.achieved_confidence};
    // Shifted by delta - centre, the pairs' lower bound lies above 0 once delta > centre - low.
    o.detectable = std::expm1(std::max(centre - interval.low, 0.0));
    o.detectable_at = [x, centre](double level) {
      const CentreInterval at = walsh_interval(x, interval_confidence(level));
      if (!at.bounded) return std::optional<double>();
      return std::optional<double>(std::expm1(std::max(centre - at.low, 0.0)));
    };
  }
  return o;
}

}  // namespace

GateOutcome evaluate_paired_gate(const scenario::Gate& gate, std::optional<RunValues> run,
                                 std::optional<RunValues> against) {
  GateOutcome o = skeleton(gate);
  o.against = gate.against;
  if (std::string problem = check_gate(gate); !problem.empty()) {
    return fail_with(std::move(o), Verdict::kError, std::move(problem));
  }
  if (gate.against.empty() || !gate.max_regression) {
    return fail_with(std::move(o), Verdict::kError,
                     "a paired gate needs against and max_regression");
  }
  if (auto error = check_run(o, gate, run, "")) return std::move(*error);
  const std::string of_against = "variant " + gate.against;
  if (auto error = check_run(o, gate, against, of_against.c_str())) return std::move(*error);
  const bool numbered = !run->numbers.empty() && !against->numbers.empty();
  if (numbered && (run->numbers.size() != run->repetitions.size() ||
                   against->numbers.size() != against->repetitions.size())) {
    return fail_with(std::move(o), Verdict::kError,
                     "internal error: the repetitions' numbers do not match their values");
  }
  if (!numbered && run->repetitions.size() != against->repetitions.size()) {
    return fail_with(std::move(o), Verdict::kError,
                     "the variants have " + std::to_string(run->repetitions.size()) + " and " +
                         std::to_string(against->repetitions.size()) +
                         " measured repetitions: they cannot be paired");
  }
  o.observed = run->figure;
  o.new_repetitions = run->repetitions.size();
  o.tool_figure = run->tool_figure;
  const MetricInfo& info = *find_metric(gate.metric);
  const LogSpace space{info.direction == Direction::kLowerIsBetter ? 1.0 : -1.0, info.log_floor};
  std::vector<double> x;
  if (numbered) {
    // A pair is the two windows of one repetition (A B, B A, ...): a repetition one variant
    // had nothing to measure in is left out with its pair, which shifts no later pair.
    std::map<uint32_t, std::pair<std::optional<double>, std::optional<double>>> by_number;
    for (size_t i = 0; i < run->numbers.size(); ++i) {
      by_number[run->numbers[i]].first = run->repetitions[i];
    }
    for (size_t i = 0; i < against->numbers.size(); ++i) {
      by_number[against->numbers[i]].second = against->repetitions[i];
    }
    for (const auto& [number, pair] : by_number) {
      if (pair.first && pair.second) {
        x.push_back(space.to(*pair.first) - space.to(*pair.second));
      } else {
        o.unpaired.push_back(number);
      }
    }
    if (x.empty()) {
      return fail_with(
          std::move(o), Verdict::kError,
          "no repetition measured " + gate.metric + " in both variants: nothing to pair");
    }
  } else {
    for (size_t i = 0; i < run->repetitions.size(); ++i) {
      x.push_back(space.to(run->repetitions[i]) - space.to(against->repetitions[i]));
    }
  }
  const double n = static_cast<double>(x.size());
  const double margin = std::log1p(*gate.max_regression);
  o.pairs = x.size();
  o.baseline_centre = against->figure;
  o.threshold = space.from(space.to(against->figure) + margin);
  o.margin = margin;
  if (gate.paired_test == scenario::PairedTest::kSignedRank) {
    return decide_paired(signed_rank_on_pairs(std::move(o), x, margin, gate.alpha), gate);
  }
  const double d = mean(x);
  o.method = Method::kPairedT;
  o.effect = d;
  if (x.size() >= 2) {
    const double df = n - 1;
    const double scale = sample_stddev(x) / std::sqrt(n);
    const auto p_for = [&](double effect) {
      if (scale > 0) return student_t_sf(effect / scale, df);
      return effect > 0 ? 0.0 : 1.0;
    };
    o.p_value = p_for(d);
    o.p_adjusted = o.p_value;
    o.detectable = t_detectable(scale, df, gate.alpha);
    o.detectable_at = [scale, df](double level) {
      return std::optional<double>(t_detectable(scale, df, level));
    };
    o.effect_interval = effect_interval(d, scale, df, interval_confidence(gate.alpha));
    o.p_at_twice_margin = p_for(2 * margin);
    o.underpowered = !(*o.p_at_twice_margin < gate.alpha);
  } else {
    o.underpowered = true;  // one pair: nothing measures its spread
  }
  return decide_paired(std::move(o), gate);
}

GateOutcome error_outcome(const scenario::Gate& gate, std::string reason) {
  return fail_with(skeleton(gate), Verdict::kError, std::move(reason));
}

GateOutcome not_configured_outcome(const scenario::Gate& gate, std::string reason) {
  return fail_with(skeleton(gate), Verdict::kNotConfigured, std::move(reason));
}

GateOutcome evaluate_gate(const scenario::Gate& gate, std::optional<RunValues> run,
                          std::vector<BaselineRun> baseline,
                          std::optional<CalibratedNoise> calibration,
                          std::optional<OtherDefinition> other_definition,
                          std::optional<OtherTestbed> other_testbed) {
  GateOutcome o = skeleton(gate);
  if (std::string problem = check_gate(gate); !problem.empty()) {
    return fail_with(std::move(o), Verdict::kError, std::move(problem));
  }
  // A gate never passes on missing data.
  if (!run) {
    return fail_with(std::move(o), Verdict::kError, gate.metric + " was not collected");
  }
  if (run->repetitions.empty()) {
    return fail_with(std::move(o), Verdict::kError, gate.metric + " has no measured repetition");
  }
  if (!std::isfinite(run->figure) || !all_finite(run->repetitions)) {
    return fail_with(std::move(o), Verdict::kError,
                     gate.metric + " has a non-finite value (NaN or infinity)");
  }
  o.observed = run->figure;
  o.new_repetitions = run->repetitions.size();
  o.tool_figure = run->tool_figure;

  if (gate.max || gate.min) {
    o = evaluate_absolute(std::move(o), gate);
    if (o.verdict == Verdict::kFail || !gate.max_regression) return o;
    // Both kinds of bound: the absolute one held, the relative one decides.
    GateOutcome reset = skeleton(gate);
    reset.observed = o.observed;
    reset.new_repetitions = o.new_repetitions;
    reset.tool_figure = o.tool_figure;
    o = std::move(reset);
  }
  return evaluate_relative(std::move(o), gate, *run, std::move(baseline), calibration,
                           other_definition, other_testbed);
}

}  // namespace benchgate::gates
