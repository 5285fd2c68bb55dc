// Release-gate decisions (docs/GATES.md): one gate against a run's values and its baseline runs,
// Holm's correction across a run's relative gates, and the exit code of a run.
//
// Every gate judges the run's figure, the number the report prints (RunValues::figure).
// Absolute gates compare it with max / min. Relative gates work on g(v) = s * ln(v + floor),
// with s = +1 where lower is better and -1 where higher is better, so a positive effect is
// always a regression; floor is the metric's resolution (metrics.h), which keeps zeros
// comparable. A negative value is an error. With F the g of a run's figure:
//   d = F(new) - centre, centre = median of the baseline runs' F, m = ln(1 + max_regression);
//   p = P(T_df >= d / (s * sqrt(1 + r_k/k))) for k baseline runs, where s estimates the
//   standard deviation of a run's F, between-run variance included, and r_k =
//   median_variance_ratio(k) is what the median costs against a mean (1.434 for k = 5):
//   calibrated (calibrated-t), any k: s pools the calibrated between-run spread of this
//                            series (`orchestrator calibrate`, N runs) with the runs' own,
//                            at least the within-run floor below, df = N - 1 + k - 1.
//   >= 5 runs (t-test):      s = the larger of their F's sample standard deviation and the
//                            within-run spread (pooled over the baseline runs' repetitions)
//                            over sqrt(n), n the new run's repetitions, df = k - 1; so one more
//                            baseline run never turns the same evidence into a certainty. Only
//                            when both are zero (repetitions without spread too) is s = 0,
//                            giving p = 0 for d > 0 (a deterministic metric that moved) and
//                            p = 1 otherwise.
//   2..4 runs (nested-t):    s as for >= 5 runs, df = k - 1.
//   1 run, not calibrated:   nothing estimates the between-run spread, so no p-value: the gate
//                            can pass or be inconclusive, never fail, and is underpowered.
//   fail: d > m and p < alpha; inconclusive: d > m otherwise; pass: d <= m. Underpowered
//   (any verdict) when the same test on a regression of exactly 2m would not reach p < alpha,
//   after apply_holm: p_adjusted < alpha, as the verdict is decided.
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

// Evaluates one gate. `run` is nullopt when the metric was not collected; the baseline runs
// are the latest k of the gate's baseline on the same testbed and series (the caller selects
// them; all given are used); `calibration` is this series' measured between-run noise, when
// `orchestrator calibrate` stored one; `other_definition`, the baseline's newest run of the
// workload under another definition, when it has no run of this one: the no_baseline verdict
// then says that the definition changed, not only that the baseline has no run; `other_testbed`,
// the baseline's newest run of the workload when it has runs of it only on other testbeds: the
// no_baseline verdict then names both testbeds and what to do. Never throws; problems give
// kError.
GateOutcome evaluate_gate(const scenario::Gate& gate, std::optional<RunValues> run,
                          std::vector<BaselineRun> baseline,
                          std::optional<CalibratedNoise> calibration = std::nullopt,
                          std::optional<OtherDefinition> other_definition = std::nullopt,
                          std::optional<OtherTestbed> other_testbed = std::nullopt);

// Evaluates a paired gate (gate.against set): the run's values of one variant against those of
// the variant it names, measured in the same run with windows adjacent in time (A B, B A, ...).
// With x_i = g(new_i) - g(against_i) for the n repetition pairs in the log space above (paired
// by RunValues::numbers where both give them: a repetition only one measured is left out and
// listed in GateOutcome::unpaired; by position otherwise), by the gate's paired_test:
//   signed-rank (default, paired-signed-rank): d = the Hodges-Lehmann estimate of the x_i, p
//     the exact one-sided Wilcoxon signed-rank p (signed_rank.h), the interval and detectable
//     from the Walsh averages; underpowered when the x_i shifted to a centre of 2m would not
//     reach p < alpha (always when 2^-n >= alpha);
//   t (paired-t): d = mean(x), s = their sample standard deviation,
//     p = P(T_{n-1} >= d / (s / sqrt(n)));
// and fail / inconclusive / pass / underpowered as for relative gates. Drift of the machine
// that both variants share between windows cancels in each pair; what differs between the
// two variants' processes for the whole run does not, which is why an A/A comparison of two
// processes of one build measures this method's false alarms (bench/gate_calibration.sh).
// `run` or `against` nullopt: the metric was not collected. Never throws.
GateOutcome evaluate_paired_gate(const scenario::Gate& gate, std::optional<RunValues> run,
                                 std::optional<RunValues> against);

// A not_configured outcome: the gate's variant did not run (its program is not installed).
GateOutcome not_configured_outcome(const scenario::Gate& gate, std::string reason);

// An error outcome for a gate that could not be evaluated at all (its workload failed, its
// pattern matched no workload, ...), with the reason as the explanation.
GateOutcome error_outcome(const scenario::Gate& gate, std::string reason);

// Holm's step-down correction across one run's relative gates: every outcome with a p-value
// (warning gates included: they were tested too) forms the family; each gets p_adjusted, and
// those beyond their margin are re-decided, fail when p_adjusted < alpha, else inconclusive,
// with a new explanation. Underpowered is decided again under the same correction: whether
// p_at_twice_margin, in place of the gate's own p and the others' as they were, would have
// been adjusted below alpha. Idempotent: it always starts from the raw p-values.
void apply_holm(std::vector<GateOutcome>& outcomes);

// Exit codes of `orchestrator run` and `orchestrator gate` (docs/GATES.md).
inline constexpr int kExitPass = 0;
inline constexpr int kExitGateFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitRunError = 3;

// Only critical gates count. kExitRunError when one has verdict error (it wins over a fail),
// else kExitGateFailed when one failed, or is underpowered and asks to fail for it
// (fail_when_underpowered), or, with strict, is inconclusive, no_baseline, not_configured or
// underpowered; else kExitPass.
int exit_code_for(std::span<const GateOutcome> outcomes, bool strict);

// Whether the outcome fails the run with strict and only with it: a critical gate that is
// inconclusive, no_baseline, not_configured or underpowered, and fails neither by its verdict
// nor by fail_when_underpowered. The reports name these gates, so that an exit code 1 whose
// verdicts all read "pass" or "no_baseline" says why.
bool fails_only_when_strict(const GateOutcome& outcome);

}  // namespace benchgate::gates
