// What a gate evaluation decides and every input it used (docs/GATES.md, "Verdicts"), as stored
// with the run and printed in reports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "orchestrator/scenario/scenario.h"

namespace benchgate::gates {

enum class Verdict { kPass, kFail, kInconclusive, kNoBaseline, kError };

enum class Method {
  kNone,         // nothing was compared (error, no_baseline)
  kAbsolute,     // the median against max / min
  kTTest,        // >= 5 baseline runs: t on the spread of the run medians
  kMannWhitney,  // 1..4 baseline runs: exact one-sided Mann-Whitney U
  kChangePoint,  // change gate: the run against its series' current level (change_gate.h)
};

// "pass", "fail", "inconclusive", "no_baseline", "error".
std::string_view to_string(Verdict verdict);
// "none", "absolute", "t-test", "mann-whitney", "e-divisive".
std::string_view to_string(Method method);

// One stored baseline run's values of the gate's metric, one per repetition (base units).
struct BaselineRun {
  int64_t run_id = 0;
  std::vector<double> repetitions;
};

struct GateOutcome {
  std::string workload;  // the gate's pattern; the caller sets the concrete workload name
  std::string metric;
  scenario::GateSeverity severity = scenario::GateSeverity::kCritical;
  Verdict verdict = Verdict::kError;
  Method method = Method::kNone;

  std::optional<double> observed;  // median of the new repetitions (base units)
  size_t new_repetitions = 0;
  // Absolute gate: the bound that decided (the violated one, else max, else min). Relative
  // gate: the value at which the change reaches max_regression (base units).
  std::optional<double> threshold;
  bool threshold_is_max = true;           // absolute gates: the threshold is a max, else a min
  std::vector<int64_t> baseline_run_ids;  // the runs that had the metric, in input order
  std::optional<double> baseline_centre;  // base units
  // Positive is worse. Relative: d in log space. Absolute: how far the median lies beyond
  // the threshold, in base units (negative: inside the bound).
  std::optional<double> effect;
  std::optional<double> margin;      // m = ln(1 + max_regression)
  std::optional<double> p_value;     // one-sided, this gate alone
  std::optional<double> p_adjusted;  // Holm-adjusted across the run's gates (apply_holm)
  double alpha = 0.01;
  bool underpowered = false;  // a regression of 2m could not have been detected at alpha
  std::string explanation;    // one line for a person, values in human units
};

}  // namespace benchgate::gates
