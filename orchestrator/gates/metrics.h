// The metrics a gate can name (docs/SCENARIOS.md, "[[gates]]"): which direction is
// better, what unit the base-unit values are in, and how to print them for a person. The
// list is closed so that a typo in a policy is an error, never a silently ignored gate.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace benchgate::gates {

enum class Direction { kHigherIsBetter, kLowerIsBetter };

// Base units as the scenario model stores bounds (scenario.h, Gate).
enum class UnitKind {
  kOpsPerSecond,         // throughput.rps
  kHandshakesPerSecond,  // handshakes.rate: connections set up (docs/MEASUREMENT.md)
  kBytesPerSecond,       // throughput.bytes_per_s
  kSeconds,              // latency.*, router.cpu_per_request (CPU seconds per request)
  kBytes,                // router.rss_bytes
  kCount,                // errors.count
  kRatio,                // errors.rate (failed / all operations), worker.cpu_utilization
};

// How a workload's figure of the metric comes from its repetitions (results::metric_figure),
// for explanations: "median of 3 repetitions", "3 repetitions merged", ...
enum class FigureKind {
  kMedian,  // throughput: the median of the repetitions' rates
  kMerged,  // latency: the histogram of every repetition merged
  kSum,     // errors.count: summed
  kPooled,  // errors.rate, router.cpu_per_request: totals over totals
  kPeak,    // router.rss_bytes, worker.cpu_utilization: the highest repetition
};

struct MetricInfo {
  std::string_view name;
  Direction direction;
  UnitKind unit;
  FigureKind figure;
  // The metric's resolution. Relative gates compare ln(value + log_floor), so a value of zero
  // (no errors, an idle CPU) stays comparable; the shift is negligible for real magnitudes.
  double log_floor;
};

// The metric's entry, or nullptr when no metric has that name.
const MetricInfo* find_metric(std::string_view name);
// Every known metric, for listings and "did you mean" suggestions.
std::span<const MetricInfo> known_metrics();

// A value in base units for a person. Latencies and rates as the result tables write them
// (format_duration_ns, format_rate, format_megabytes_per_second in common/units/units.h):
// "4.2ms", "7.05ms", "12346 ops/s", "2.5 ops/s", "1234 handshakes/s", "1.50 MB/s"; the rest
// with three significant digits: "2.50 MB", "17", "0.25%". Every report writes a gate's figures
// (its observed and threshold columns, its explanation) with it.
std::string format_metric_value(double value, UnitKind unit);

// "median of 3 repetitions", "3 repetitions merged", "summed over 3 repetitions", ...
std::string describe_figure(FigureKind kind, size_t repetitions);

// Every percentage a person reads about a change is the candidate's change relative to the
// baseline, candidate / baseline - 1, whatever the metric's direction (docs/GATES.md,
// "Verdicts"). The gates compute in log space signed so that positive is worse: a log effect d
// is the change expm1(-d) of a higher-is-better metric (bounded by -100%) and expm1(d) of a
// lower-is-better one.
double change_of_log_effect(double d, Direction direction);
// The same for a regression r in the gates' stored convention (`detectable`,
// `max_regression`: ln(1 + r) is the log effect; r = baseline / candidate - 1 for throughput).
double change_of_regression(double r, Direction direction);
// "+4.8%", "-4.8%": a change as a signed percentage with one decimal.
std::string change_percent(double change);
// A detectable regression beyond a factor of 10 either way (a drop to a tenth, a rise to ten
// times) means no change a person would care about can be detected: say so in words rather
// than print -99.9% or +3693125.3%.
inline constexpr double kMeaningfulFactor = 10;
bool beyond_meaningful(double regression);
// A detectable regression as a person reads it: "-12.4%" (throughput), "14.2%" (latency: the
// same figure, unsigned as the allowances are), "none" beyond a factor of 10.
std::string detectable_change_text(double regression, Direction direction);

}  // namespace benchgate::gates
