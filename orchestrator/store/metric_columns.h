// How each gate metric (docs/SCENARIOS.md, "[[gates]]") is computed from one row of
// the `repetitions` table, in the units gates use (seconds for latency). The definitions match
// results::metric_values, so a stored run and a run in memory give the same values; a NULL
// means "not collected" for that repetition.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace benchgate::store {

// A constant SQL expression over `repetitions` columns, or nothing for an unknown metric.
std::optional<std::string_view> metric_sql_expression(std::string_view metric);

// Every metric a gate can name, in a fixed order (the figures stored per workload).
std::vector<std::string_view> stored_metric_names();

}  // namespace benchgate::store
