// The confidence interval of a relative gate's effect d (docs/GATES.md, "Verdicts"),
// from the very t the gate tested with: the same standard error of d (s * sqrt(1 + r_k/k), s
// and df as the method chose them) and the same degrees of freedom, so the interval and the
// p-value never tell different stories. Kept apart from the evaluation so that a change of
// how s and df are chosen changes nothing here.
#pragma once

#include <optional>
#include <string_view>

#include "orchestrator/gates/gate_outcome.h"

namespace benchgate::gates {

// d +- t((1 + confidence) / 2, df) * standard_error. Nothing for a confidence outside (0, 1), a
// df that is not positive, or a non-finite input. A standard error of 0 (a deterministic
// metric) gives [d, d].
std::optional<EffectInterval> effect_interval(double effect, double standard_error, double df,
                                              double confidence);

// The level a gate's interval is given at: two-sided 1 - 2 alpha, whose lower end lies above
// 0 exactly when the one-sided p-value (before Holm's correction) is below alpha.
double interval_confidence(double alpha);

// Why a gate has no interval, from its method as to_string(Method) names it and whether it has
// a p-value ("" when it should have one): absolute gates and change gates test no effect with
// a t, nested-t on one baseline run has no spread, an error or no_baseline compared nothing.
std::string_view why_no_interval(std::string_view method, bool has_p_value);

}  // namespace benchgate::gates
