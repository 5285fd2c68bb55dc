// Release-gate decisions (docs/GATES.md): one gate against a run's repetitions and its baseline
// runs, Holm's correction across a run's relative gates, and the exit code of a run.
//
// Relative gates work on g(v) = s * ln(v + floor), with s = +1 where lower is better and -1
// where higher is better, so a positive effect is always a regression; floor is the metric's
// resolution (metrics.h), which keeps zeros comparable. A negative value is an error.
//   new centre  = median of g over the new repetitions
//   >= 5 runs:  centre = median of the runs' medians of g, s = their standard deviation,
//               p = P(T_{k-1} >= d / (s * sqrt(1 + 1/k))); a zero spread gives p = 0 for
//               d > 0 (a deterministic metric that moved) and p = 1 otherwise.
//   1..4 runs:  centre = median of all the runs' g values pooled, p = exact one-sided
//               Mann-Whitney (new repetitions worse than the pooled baseline repetitions).
//   d = new centre - centre, m = ln(1 + max_regression);
//   fail: d > m and p < alpha; inconclusive: d > m otherwise; pass: d <= m, underpowered
//   when the same test on a regression of exactly 2m would not reach p < alpha.
// A gate with both an absolute bound and a relative one fails on the absolute bound, and
// otherwise takes the relative verdict.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "orchestrator/gates/gate_outcome.h"
#include "orchestrator/scenario/scenario.h"

namespace benchgate::gates {

// Evaluates one gate. `new_repetitions` is nullopt when the metric was not collected; the
// baseline runs are the latest k of the gate's baseline on the same testbed and series
// (the caller selects them; all given are used). Never throws; problems give kError.
GateOutcome evaluate_gate(const scenario::Gate& gate,
                          std::optional<std::vector<double>> new_repetitions,
                          std::vector<BaselineRun> baseline);

// An error outcome for a gate that could not be evaluated at all (its workload failed, its
// pattern matched no workload, ...), with the reason as the explanation.
GateOutcome error_outcome(const scenario::Gate& gate, std::string reason);

// Holm's step-down correction across one run's relative gates: every outcome with a p-value
// (warning gates included: they were tested too) forms the family; each gets p_adjusted, and
// those beyond their margin are re-decided, fail when p_adjusted < alpha, else inconclusive,
// with a new explanation. Idempotent: it always starts from the raw p-values.
void apply_holm(std::vector<GateOutcome>& outcomes);

// Exit codes of `orchestrator run` and `orchestrator gate` (docs/GATES.md).
inline constexpr int kExitPass = 0;
inline constexpr int kExitGateFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitRunError = 3;

// Only critical gates count. kExitRunError when one has verdict error (it wins over a fail),
// else kExitGateFailed when one failed (with strict, also inconclusive or no_baseline),
// else kExitPass.
int exit_code_for(std::span<const GateOutcome> outcomes, bool strict);

}  // namespace benchgate::gates
