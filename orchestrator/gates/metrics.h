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

// A value in base units for a person, three significant digits: "4.20ms", "12.3k ops/s",
// "1.23k handshakes/s", "1.50 MB/s", "2.50 MB", "17", "0.25%". Every report writes a gate's
// figures with it.
std::string format_metric_value(double value, UnitKind unit);

// "median of 3 repetitions", "3 repetitions merged", "summed over 3 repetitions", ...
std::string describe_figure(FigureKind kind, size_t repetitions);

}  // namespace benchgate::gates
