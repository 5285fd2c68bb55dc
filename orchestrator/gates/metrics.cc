// The metric registry and human formatting of metric values (metrics.h).
#include "orchestrator/gates/metrics.h"

#include <array>
#include <cmath>
#include <cstdio>

#include "common/units/units.h"

namespace benchgate::gates {
namespace {

constexpr Direction kHigher = Direction::kHigherIsBetter;
constexpr Direction kLower = Direction::kLowerIsBetter;

constexpr std::array<MetricInfo, 20> kMetrics = {{
    {"throughput.rps", kHigher, UnitKind::kOpsPerSecond, FigureKind::kMedian, 1e-3},
    {"throughput.bytes_per_s", kHigher, UnitKind::kBytesPerSecond, FigureKind::kMedian, 1e-3},
    {"latency.p50", kLower, UnitKind::kSeconds, FigureKind::kMerged, 1e-9},
    {"latency.p75", kLower, UnitKind::kSeconds, FigureKind::kMerged, 1e-9},
    {"latency.p90", kLower, UnitKind::kSeconds, FigureKind::kMerged, 1e-9},
    {"latency.p95", kLower, UnitKind::kSeconds, FigureKind::kMerged, 1e-9},
    {"latency.p99", kLower, UnitKind::kSeconds, FigureKind::kMerged, 1e-9},
    {"latency.p999", kLower, UnitKind::kSeconds, FigureKind::kMerged, 1e-9},
    {"latency.max", kLower, UnitKind::kSeconds, FigureKind::kMerged, 1e-9},
    {"latency.mean", kLower, UnitKind::kSeconds, FigureKind::kMerged, 1e-9},
    {"errors.count", kLower, UnitKind::kCount, FigureKind::kSum, 1.0},
    {"errors.rate", kLower, UnitKind::kRatio, FigureKind::kPooled, 1e-6},
    {"router.cpu_per_request", kLower, UnitKind::kSeconds, FigureKind::kPooled, 1e-9},
    {"router.rss_bytes", kLower, UnitKind::kBytes, FigureKind::kPeak, 1.0},
    {"worker.cpu_utilization", kLower, UnitKind::kRatio, FigureKind::kPeak, 1e-4},
    {"connect.p99", kLower, UnitKind::kSeconds, FigureKind::kMerged, 1e-9},
    {"tls_handshake.p99", kLower, UnitKind::kSeconds, FigureKind::kMerged, 1e-9},
    {"ttfb.p99", kLower, UnitKind::kSeconds, FigureKind::kMerged, 1e-9},
    {"handshakes.rate", kHigher, UnitKind::kHandshakesPerSecond, FigureKind::kMedian, 1e-3},
    {"session_setup.p99", kLower, UnitKind::kSeconds, FigureKind::kMerged, 1e-9},
}};

// Three significant digits for a magnitude already scaled into [0, 1000).
std::string three_digits(double v) {
  char buf[32];
  const double a = std::abs(v);
  const char* format = a >= 99.95 ? "%.0f" : a >= 9.995 ? "%.1f" : "%.2f";
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// Scales by powers of 1000 and appends the matching prefix.
std::string with_prefix(double v, const char* const prefixes[], int count, const char* suffix) {
  int i = 0;
  while (i + 1 < count && std::abs(v) >= 999.5) {
    v /= 1000;
    ++i;
  }
  return three_digits(v) + prefixes[i] + suffix;
}

}  // namespace

const MetricInfo* find_metric(std::string_view name) {
  for (const MetricInfo& m : kMetrics) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::span<const MetricInfo> known_metrics() { return kMetrics; }

std::string format_metric_value(double value, UnitKind unit) {
  if (!std::isfinite(value)) return std::isnan(value) ? "n/a" : (value > 0 ? "inf" : "-inf");
  static const char* const kCountPrefixes[] = {"", "k", "M", "G", "T"};
  static const char* const kBytePrefixes[] = {" ", " k", " M", " G", " T"};
  switch (unit) {
    // Rates and latencies as the result tables write them (common/units/units.h), so that a
    // gate's figure reads the same in its explanation as in the table above it.
    case UnitKind::kOpsPerSecond:
      return format_rate(value) + " ops/s";
    case UnitKind::kHandshakesPerSecond:
      return format_rate(value) + " handshakes/s";
    case UnitKind::kBytesPerSecond:
      return format_megabytes_per_second(value) + " MB/s";
    case UnitKind::kBytes:
      return with_prefix(value, kBytePrefixes, 5, "B");
    case UnitKind::kCount: {
      if (value == std::floor(value) && std::abs(value) < 1e15) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.0f", value);
        return buf;
      }
      return with_prefix(value, kCountPrefixes, 5, "");
    }
    case UnitKind::kRatio:
      return three_digits(value * 100) + "%";
    case UnitKind::kSeconds: {
      // A latency figure is a whole number of nanoseconds (a histogram's value) stored in
      // seconds: back to that number first, so that a value on a rounding edge (7045000 ns)
      // rounds as the table's latency_text rounds it, not as its nearest double in seconds does.
      double ns = value * 1e9;
      if (const double whole = std::round(ns); std::abs(ns - whole) <= 1e-9 * std::abs(ns)) {
        ns = whole;
      }
      return format_duration_ns(ns);
    }
  }
  return three_digits(value);
}

std::string describe_figure(FigureKind kind, size_t repetitions) {
  const std::string n =
      std::to_string(repetitions) + (repetitions == 1 ? " repetition" : " repetitions");
  switch (kind) {
    case FigureKind::kMedian:
      return "median of " + n;
    case FigureKind::kMerged:
      return n + " merged";
    case FigureKind::kSum:
      return "summed over " + n;
    case FigureKind::kPooled:
      return "over " + n;
    case FigureKind::kPeak:
      return "peak of " + n;
  }
  return n;
}

double change_of_log_effect(double d, Direction direction) {
  return std::expm1(direction == Direction::kHigherIsBetter ? -d : d);
}

double change_of_regression(double r, Direction direction) {
  return change_of_log_effect(std::log1p(r), direction);
}

std::string change_percent(double change) {
  // Rounded to the tenth of a percent it is printed with first, so a change that rounds to 0
  // (-0.0004, or the -0 of expm1(-0)) reads +0.0%, not -0.0%.
  double percent = std::round(change * 1000) / 10;
  if (percent == 0) percent = 0;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.1f%%", percent);
  return buf;
}

bool beyond_meaningful(double regression) {
  return !(std::log1p(regression) <= std::log(kMeaningfulFactor));
}

std::string detectable_change_text(double regression, Direction direction) {
  if (beyond_meaningful(regression)) return "none";
  if (direction == Direction::kHigherIsBetter) {
    return change_percent(change_of_regression(regression, direction));
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f%%", regression * 100);
  return buf;
}

}  // namespace benchgate::gates
