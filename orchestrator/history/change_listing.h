// What `orchestrator history changes` prints (docs/GATES.md, "Change points"), rendered from the
// store's records: a table, `CHANGE|` lines, or one JSON document. No database here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/store/records.h"

namespace benchgate::history {

struct ChangeListingContext {
  std::string db;
  double alpha = 0;
  double min_change = 0;
  std::string since;  // as given, empty when not
};

// "worse", "better", or "-" (no change figure, or a metric without a direction).
std::string change_direction(const std::string& metric, const store::StoredChangePoint& c);

// One row per change point (series in order, changes in run order), then a summary line that
// counts the series with fewer than 2 * min_side runs (changes::ChangeOptions::min_size), which
// cannot show a change.
std::string render_change_table(const std::vector<store::SeriesChanges>& series, size_t min_side);

// One line per change point:
// CHANGE|scenario=..|workload=..|variant=..|metric=..|testbed=..|host=..|run=..|
// previous_run=..|commit=..|previous_commit=..|started=..|median_before=..|median_after=..|
// change_pct=..|change_low_pct=..|change_high_pct=..|p_value=..|direction=..|runs_before=..|
// runs_after=..|params_hash=..   (a figure that does not exist is '-'; fields only appended)
std::string render_change_lines(const std::vector<store::SeriesChanges>& series);

// Every selected series, with or without change points, as one JSON object.
std::string render_change_json(const std::vector<store::SeriesChanges>& series,
                               const ChangeListingContext& context);

}  // namespace benchgate::history
