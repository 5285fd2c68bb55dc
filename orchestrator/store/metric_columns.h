// How each gate metric (docs/SCENARIOS.md, "[[gates]]") is computed from one row of
// the `repetitions` table, in the units gates use (seconds for latency). The definitions match
// results::metric_values, so a stored run and a run in memory give the same values: a NULL
// value means "not collected" for that repetition, unless the repetition had nothing to
// measure (a workload that keeps its connections sets none up after its first window), which
// is skipped as results::metric_values skips it.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace benchgate::store {

// Constant SQL expressions over `repetitions` columns.
struct MetricSql {
  std::string_view value;
  // True for a repetition that had nothing to measure: skipped, neither a value nor "not
  // collected" (the metric is not collected when no repetition has a value). "0" for metrics
  // every repetition measures.
  std::string_view nothing_to_measure;
};

// The expressions of a metric, or nothing for an unknown metric.
std::optional<MetricSql> metric_sql(std::string_view metric);

// Every metric a gate can name, in a fixed order (the figures stored per workload).
std::vector<std::string_view> stored_metric_names();

}  // namespace benchgate::store
