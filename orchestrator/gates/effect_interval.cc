// A gate's effect interval; see effect_interval.h.
#include "orchestrator/gates/effect_interval.h"

#include <cmath>

#include "orchestrator/gates/statistics.h"

namespace benchgate::gates {

std::optional<EffectInterval> effect_interval(double effect, double standard_error, double df,
                                              double confidence) {
  if (!(confidence > 0 && confidence < 1) || !(df > 0) || !std::isfinite(effect) ||
      !std::isfinite(standard_error) || standard_error < 0) {
    return std::nullopt;
  }
  const double half = standard_error * student_t_quantile((1 + confidence) / 2, df);
  return EffectInterval{effect - half, effect + half, confidence};
}

double interval_confidence(double alpha) { return 1 - 2 * alpha; }

std::string_view why_no_interval(std::string_view method, bool has_p_value) {
  if (method == to_string(Method::kTTest) || method == to_string(Method::kCalibratedT)) return "";
  if (method == to_string(Method::kNestedT)) {
    return has_p_value ? "" : "one baseline run: nothing measures the between-run spread";
  }
  if (method == to_string(Method::kPairedSignedRank)) {
    return has_p_value ? "too few pairs for a distribution-free interval at this confidence" : "";
  }
  if (method == to_string(Method::kAbsolute)) {
    return "an absolute gate compares its figure with a bound: no test, no interval";
  }
  if (method == to_string(Method::kChangePoint)) {
    return "a change gate's permutation test gives a p-value, no interval";
  }
  if (method.empty() || method == to_string(Method::kNone)) return "nothing was compared";
  return "this method gives no interval";
}

}  // namespace benchgate::gates
