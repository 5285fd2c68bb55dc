// Figures across workloads of one run: the ratio between compared variants and the growth
// model of a sweep. Computed from the results alone, printed by the terminal report, the
// RESULT-style lines (COMPARE| and SWEEP|) and the JSON report.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "orchestrator/engine/scenario_runner.h"
#include "orchestrator/results/sweep_fit.h"

namespace benchgate::report {

// One variant against the comparison's first (the baseline), on throughput (ops/s).
struct VariantComparison {
  std::string workload;
  std::string baseline;
  std::string variant;
  std::string status;  // "ok", or why there is no ratio: "not_configured", "failed", "interrupted"
  double baseline_rps = 0;
  double variant_rps = 0;
  // Median variant / median baseline; none when the baseline's median is 0 ops/s (a baseline
  // that answered nothing), never a ratio of 0.
  std::optional<double> ratio;
  // Min and max of the per-repetition ratios (runs adjacent in time), over the pairs whose
  // baseline repetition completed something; none when no pair did.
  std::optional<double> pair_min;
  std::optional<double> pair_max;
  std::optional<double> ci_low;  // 95% interval of the ratio (Hodges-Lehmann on logs)
  std::optional<double> ci_high;
};

std::vector<VariantComparison> comparisons(const engine::ScenarioResult& result);

// A comparison's figures as text, as the terminal's `compare` line writes them ("-" where there
// is none): the one formatting of the HTML and Markdown tables too.
struct ComparisonText {
  std::string ratio;         // "1.083"
  std::string interval;      // "1.012-1.150": the 95% interval
  std::string pairs;         // "0.990-1.170": the per-repetition ratios' min-max
  std::string variant_rps;   // "10830"
  std::string baseline_rps;  // "10000"
};
ComparisonText comparison_text(const VariantComparison& c);

// A swept point that is not in the fit, and why: the rule that keeps a workload out of its
// series' history (results::not_history_reason: it did not finish ok, or a window was measured
// while a process was stopped or without every worker), or no latency measured. A point
// flagged rate_not_kept stays in: past the rate the system answers, the queue in its latency
// is what a rate sweep shows.
struct LeftOutPoint {
  double n = 0;
  std::string reason;  // "repetition 2 was measured while worker 0 (pid 4242) was stopped ..."
};

// One swept workload (per variant): cost = median latency (p50 of every repetition merged),
// in microseconds, against the swept parameter.
struct SweepSummary {
  std::string workload;  // the base name, before '@'
  std::string variant;
  std::string parameter;
  std::vector<double> n;
  std::vector<double> cost_us;
  std::vector<LeftOutPoint> left_out;  // in the order of the sweep's values
  std::optional<results::LinearFit> fit;
  std::optional<results::GrowthExponents> growth;
};

std::vector<SweepSummary> sweeps(const engine::ScenarioResult& result);

// A sweep's model as text, as the terminal's `sweep` line writes it ("-" where there is none).
struct SweepText {
  std::string model;     // "p50 = 41.2 us + 0.503 us * n"
  std::string r2;        // "0.998"
  std::string exponent;  // "0.98 (linear)": the growth exponent with its class
  std::string worst;     // "64->128: 1.12": the steepest adjacent pair and its exponent
};
SweepText sweep_text(const SweepSummary& s);
// What a sweep's parameter is as its axis reads: "rate" is the rate offered ("rate (requests/s
// offered)"), which a point that could not keep it (flag rate_not_kept) did not achieve; the
// others are their key.
std::string sweep_axis(const std::string& parameter);
// The points left out of a sweep's fit as one line's text, "" when none: "1024 (it failed),
// 4096 (repetition 2 was measured without every worker (flag degraded))".
std::string left_out_text(const SweepSummary& s);

// A growth exponent as every output prints it beside its class: two decimals ("0.98"), more
// where two would round it across a class boundary ("0.898" for 0.8979, which is sublinear,
// not "0.90"), so the class never contradicts the printed figure (results::growth_class).
std::string exponent_text(double exponent);

// COMPARE|scenario=..|workload=..|baseline=..|variant=..|metric=rps|baseline_rps=..|variant_rps=..
//   |ratio=..|pair_min=..|pair_max=..|ci_low=..|ci_high=..|status=..   ("-" when not measured)
std::string comparison_line(const std::string& scenario, const VariantComparison& c);
// SWEEP|scenario=..|workload=..|variant=..|parameter=..|points=..|cost=p50_us|a=..|b=..|r2=..
//   |exponent=..|worst_exponent=..|worst_pair=N1-N2|class=..
std::string sweep_line(const std::string& scenario, const SweepSummary& s);

// The human-readable summary printed after the workload tables ("" when there is nothing).
std::string analysis_text(const engine::ScenarioResult& result);

}  // namespace benchgate::report
