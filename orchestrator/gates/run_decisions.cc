// Decisions across all of a run's gates: Holm's correction and the exit code
// (gate_evaluator.h).
#include <algorithm>
#include <cmath>
#include <limits>

#include "orchestrator/gates/explanation.h"
#include "orchestrator/gates/gate_evaluator.h"
#include "orchestrator/gates/statistics.h"

namespace benchgate::gates {

namespace {

// The largest raw p at which Holm's correction over `raw` still fails gate i (adjusted below
// alpha), the other gates' p-values as they are: the level `detectable` is computed at. The
// adjusted p of one gate grows with its raw p, so a bisection finds it.
double holm_level(std::vector<double> raw, size_t i, double alpha) {
  const size_t tested = static_cast<size_t>(
      std::count_if(raw.begin(), raw.end(), [](double p) { return !std::isnan(p); }));
  if (tested <= 1) return alpha;  // judged alone: no correction
  double low = 0;
  double high = alpha;  // the adjusted p is never below the raw one
  for (int step = 0; step < 60; ++step) {
    raw[i] = (low + high) / 2;
    (holm_adjust(raw)[i] < alpha ? low : high) = raw[i];
  }
  return low;
}

}  // namespace

void apply_holm(std::vector<GateOutcome>& outcomes) {
  std::vector<double> raw;
  raw.reserve(outcomes.size());
  for (const GateOutcome& o : outcomes) {
    const bool tested = o.p_value.has_value() && o.effect && o.margin &&
                        (o.method == Method::kTTest || o.method == Method::kNestedT ||
                         o.method == Method::kCalibratedT || o.method == Method::kPairedT ||
                         o.method == Method::kPairedSignedRank);
    raw.push_back(tested ? *o.p_value : std::numeric_limits<double>::quiet_NaN());
  }
  const std::vector<double> adjusted = holm_adjust(raw);
  const size_t family = static_cast<size_t>(
      std::count_if(raw.begin(), raw.end(), [](double p) { return !std::isnan(p); }));
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (std::isnan(adjusted[i])) continue;
    GateOutcome& o = outcomes[i];
    o.p_adjusted = adjusted[i];
    o.holm_family = family;
    // Underpowered asks whether a regression of 2m could have failed this gate: under the
    // correction its verdict takes, the other gates' p-values as they were (with three gates
    // none of which is significant, p < alpha / 3).
    if (o.p_at_twice_margin) {
      std::vector<double> twice = raw;
      twice[i] = *o.p_at_twice_margin;
      o.underpowered = !(holm_adjust(twice)[i] < o.alpha);
    }
    // What the test detects at the level the correction sets, as `underpowered` asks it.
    if (o.detectable_at) o.detectable = o.detectable_at(holm_level(raw, i, o.alpha));
    if (*o.effect > *o.margin) {
      o.verdict = adjusted[i] < o.alpha ? Verdict::kFail : Verdict::kInconclusive;
    }
    o.explanation = detail::explain(o);
  }
}

bool fails_only_when_strict(const GateOutcome& o) {
  if (o.severity != scenario::GateSeverity::kCritical) return false;
  switch (o.verdict) {
    case Verdict::kError:
    case Verdict::kFail:
      return false;
    case Verdict::kInconclusive:
    case Verdict::kNoBaseline:
    case Verdict::kNotConfigured:
      return !(o.underpowered && o.fail_when_underpowered);
    case Verdict::kPass:
      return o.underpowered && !o.fail_when_underpowered;
  }
  return false;
}

int exit_code_for(std::span<const GateOutcome> outcomes, bool strict) {
  bool failed = false;
  for (const GateOutcome& o : outcomes) {
    if (o.severity != scenario::GateSeverity::kCritical) continue;
    if (o.verdict == Verdict::kError) return kExitRunError;
    if (o.verdict == Verdict::kFail || (o.underpowered && o.fail_when_underpowered)) {
      failed = true;
    }
    if (strict && fails_only_when_strict(o)) failed = true;
  }
  return failed ? kExitGateFailed : kExitPass;
}

}  // namespace benchgate::gates
