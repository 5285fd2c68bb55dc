// What a gate evaluation decides and every input it used (docs/GATES.md, "Verdicts"), as stored
// with the run and printed in reports.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "orchestrator/scenario/scenario.h"

namespace benchgate::gates {

// kNotConfigured: the gate's variant did not run because its program is not installed
// (docs/SCENARIOS.md); nothing was judged, and only --strict fails the run for it.
enum class Verdict { kPass, kFail, kInconclusive, kNoBaseline, kError, kNotConfigured };
// Every Verdict, in declaration order: what lists the verdicts (a filter's values, a metric's
// series) loops over these and names each with to_string.
inline constexpr std::array<Verdict, 6> kVerdicts = {
    Verdict::kPass,       Verdict::kFail,  Verdict::kInconclusive,
    Verdict::kNoBaseline, Verdict::kError, Verdict::kNotConfigured};
static_assert(kVerdicts.back() == Verdict::kNotConfigured, "a new Verdict belongs in kVerdicts");

enum class Method {
  kNone,         // nothing was compared (error, no_baseline)
  kAbsolute,     // the workload's figure against max / min
  kTTest,        // >= 5 baseline runs: t on the spread of the runs' figures
  kNestedT,      // 1..4 baseline runs: t on the runs' figures, spread at least the within-run one
  kCalibratedT,  // 1..4 baseline runs and a calibration: t with the calibrated between-run spread
  kChangePoint,  // change gate: the run against its series' current level (change_gate.h)
  kPairedT,      // paired gate: t on the log ratios of repetitions adjacent in time (A B B A)
  kPairedSignedRank,  // paired gate: Wilcoxon signed-rank on those log ratios, Hodges-Lehmann
};

// "pass", "fail", "inconclusive", "no_baseline", "error", "not_configured".
std::string_view to_string(Verdict verdict);
// "none", "absolute", "t-test", "nested-t", "calibrated-t", "e-divisive", "paired-t",
// "paired-signed-rank".
std::string_view to_string(Method method);

// What a verdict column adds for GateOutcome::confirmation: ", confirmed by the rerun",
// ", cleared by the rerun", ", the rerun failed", or "" (no rerun).
std::string confirmation_suffix(std::string_view confirmation);

// A verdict as every output's verdict column writes it (terminal, Markdown, HTML, `runs show`,
// `gate`): the verdict, ", underpowered" when the gate could not detect twice its allowance
// (docs/GATES.md), then the confirmation_suffix: "fail, underpowered", "fail, confirmed by
// the rerun".
std::string verdict_text(std::string_view verdict, bool underpowered,
                         std::string_view confirmation);

// A run's values of the gate's metric (base units): its figure, as every report prints it
// (results::metric_figure: summed errors, the merged histogram's percentile, the median
// throughput, ...), and the value of each repetition, which gives the within-run spread.
struct RunValues {
  double figure = 0;
  std::vector<double> repetitions;
  // The repetition (Repetition::index) each of `repetitions` is of, which a repetition with
  // nothing to measure (left out) makes differ from its position; paired gates pair by it.
  // Empty: not known, and nothing was left out (paired by position).
  std::vector<uint32_t> numbers = {};
  // The figure is a worker adapter's tool's, not a histogram's (a latency metric of a workload
  // whose workers printed figures only): the median of the repetitions' figures, the max of
  // their max (docs/GATES.md, "What a gate judges").
  bool tool_figure = false;
};

// One stored baseline run's values of the gate's metric.
struct BaselineRun {
  int64_t run_id = 0;
  RunValues values;
};

// The newest run of a relative gate's baseline that measured the gate's workload under another
// definition: its resolved parameters changed since, so it is no run of the series the gate
// judges against (docs/GATES.md, "Series and baselines"). `differences` names the parameters,
// "duration_ns (run 1: 1000000000, now: 1500000000)"; empty when none could be named.
struct OtherDefinition {
  int64_t run_id = 0;
  std::vector<std::string> differences;
};

// The newest run of a relative gate's baseline that measured the gate's workload, when the
// baseline holds it only on other testbeds than the judged run's: a series belongs to one
// testbed (docs/GATES.md, "Series and baselines"), so none of those runs is a baseline here.
// `differences` names what tells the testbeds apart, "host (run 5: ci-a, now: ci-b)"; empty when
// the judged run's testbed could not be read.
struct OtherTestbed {
  int64_t run_id = 0;
  int64_t testbed_id = 0;       // the testbed of run_id
  int64_t this_testbed_id = 0;  // the judged run's
  std::vector<std::string> differences;
};

// The between-run noise of one series measured by `orchestrator calibrate` on this testbed:
// the standard deviation of the runs' figures in the gate's log space, over `runs` runs, which
// the test pools; and their coefficient of variation (sample sd / mean of the figures), the
// figure calibrate's `cv` column prints, which an explanation quotes under that name
// (docs/GATES.md, "Calibration"): one figure under one name wherever a person reads it.
struct CalibratedNoise {
  double log_sd = 0;
  int runs = 0;
  double cv = 0;
};

// The confidence interval of a relative gate's effect d, in the same log space
// (effect_interval.h): two-sided at `confidence`.
struct EffectInterval {
  double low = 0;
  double high = 0;
  double confidence = 0;
};

struct GateOutcome {
  std::string workload;  // the gate's pattern; the caller sets the concrete workload name
  std::string metric;
  scenario::GateSeverity severity = scenario::GateSeverity::kCritical;
  Verdict verdict = Verdict::kError;
  Method method = Method::kNone;

  std::optional<double> observed;  // the run's figure (RunValues::figure, base units)
  size_t new_repetitions = 0;
  bool tool_figure = false;  // RunValues::tool_figure of the run judged
  // Absolute gate: the bound that decided (the violated one, else max, else min). Relative
  // gate: the value at which the change reaches max_regression (base units).
  std::optional<double> threshold;
  bool threshold_is_max = true;           // absolute gates: the threshold is a max, else a min
  std::vector<int64_t> baseline_run_ids;  // the runs that had the metric, in input order
  // Relative: the baseline runs' centre. Paired: the figure of the variant judged against.
  std::optional<double> baseline_centre;  // base units
  // Paired gates: the variant of the same run judged against, and the pairs of repetitions.
  std::string against;
  size_t pairs = 0;
  // Paired gates: the repetitions (0-based) that only one variant could measure (the other had
  // nothing to measure in its window: no success, no setup), left out with their pair.
  std::vector<uint32_t> unpaired;
  // Positive is worse. Relative: d in log space (paired-signed-rank: the Hodges-Lehmann
  // estimate of the pairs' log ratios). Absolute: how far the median lies beyond
  // the threshold, in base units (negative: inside the bound).
  std::optional<double> effect;
  // Relative gates with a p-value: the interval of d from the test's own standard error and
  // df (effect_interval.h); nothing for absolute, change and one-run nested-t gates.
  std::optional<EffectInterval> effect_interval;
  std::optional<double> margin;      // m = ln(1 + max_regression)
  std::optional<double> p_value;     // one-sided, this gate alone
  std::optional<double> p_adjusted;  // Holm-adjusted across the run's gates (apply_holm)
  double alpha = 0.01;
  // Compared gates: a regression of 2m could not have reached p < alpha with this noise (or
  // the noise is unknown), so an inconclusive or a pass says little. After apply_holm: could
  // not have failed after Holm's correction, the run's other gates' p-values as they were.
  bool underpowered = false;
  // The one-sided p the same test gives a regression of exactly 2m; nothing when the noise is
  // unknown (underpowered then).
  std::optional<double> p_at_twice_margin;
  // The relative gates Holm's correction was applied across (apply_holm); 1 for a gate judged
  // alone.
  size_t holm_family = 1;
  bool fail_when_underpowered = false;  // the gate's key: an underpowered gate fails the run
  // The smallest regression (a fraction) this test could detect with this noise and this many
  // baseline runs at the level its verdict takes: alpha, or after apply_holm the raw p below
  // which Holm's correction would fail it, the run's other gates' p-values as they were (the
  // level `underpowered` asks of a 2m regression); nothing when the noise is unknown.
  std::optional<double> detectable;
  // `detectable` at a given level (set by the evaluator where it computes `detectable`), for
  // apply_holm.
  std::function<std::optional<double>(double level)> detectable_at;
  std::optional<CalibratedNoise> calibration;  // the calibration the test used, if any
  // A change gate with confirm = 1 whose first measurement failed (docs/GATES.md, "Confirming
  // rerun"): "confirmed" (the rerun failed too), "cleared" (the verdict is the rerun's),
  // "failed" (the rerun measured nothing: error); "" when there was no rerun. `observed`,
  // `effect` and `p_value` stay the first measurement's, the run's figure.
  std::string confirmation;
  std::optional<double> confirmation_observed;  // the rerun's figure
  std::optional<double> confirmation_p_value;   // the rerun's p-value
  std::string explanation;                      // one line for a person, values in human units
};

}  // namespace benchgate::gates
