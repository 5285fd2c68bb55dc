// Table, CHANGE| lines and JSON of the change points (change_listing.h).
#include "orchestrator/history/change_listing.h"

#include <fmt/format.h>

#include <ctime>
#include <nlohmann/json.hpp>

#include "orchestrator/gates/metrics.h"
#include "orchestrator/history/display_format.h"
#include "orchestrator/history/text_table.h"

namespace benchgate::history {
namespace {

std::string utc_time(int64_t unix_ns) {
  int64_t seconds = unix_ns / 1'000'000'000;
  if (unix_ns % 1'000'000'000 < 0) --seconds;
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm utc{};
  if (gmtime_r(&t, &utc) == nullptr) return "-";
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

std::string percent_or_dash(const std::optional<double>& v) {
  return v ? fmt::format("{:.2f}", *v * 100) : "-";
}

std::string interval(const store::StoredChangePoint& c) {
  if (!c.change_low || !c.change_high) return "-";
  return fmt::format("[{}, {}]", format_percent(*c.change_low), format_percent(*c.change_high));
}

std::string commits(const store::StoredChangePoint& c) {
  return short_commit(c.previous_commit) + ".." + short_commit(c.commit);
}

// The series' scenario, marked when its runs were submitted by clients of `orchestrator serve`:
// a series of its own beside the operator's of the same scenario (docs/GATES.md).
std::string scenario_cell(const store::ChangeSeriesKey& key) {
  return key.submitted_by == store::kClientRuns ? key.scenario + " (client)" : key.scenario;
}

nlohmann::json optional_number(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

std::string change_direction(const std::string& metric, const store::StoredChangePoint& c) {
  const gates::MetricInfo* info = gates::find_metric(metric);
  if (info == nullptr || !c.change || *c.change == 0) return "-";
  const bool up = *c.change > 0;
  return up == (info->direction == gates::Direction::kHigherIsBetter) ? "better" : "worse";
}

std::string render_change_table(const std::vector<store::SeriesChanges>& series, size_t min_side) {
  TextTable table({"SCENARIO", "WORKLOAD", "VARIANT", "METRIC", "TESTBED", "RUN", "COMMITS",
                   "BEFORE", "AFTER", "CHANGE", "95% CI", "P", "DIRECTION"});
  for (size_t column : {5, 7, 8, 9, 11}) table.align(column, TextTable::Align::kRight);
  size_t count = 0, computed = 0, runs = 0, too_short = 0;
  for (const store::SeriesChanges& s : series) {
    if (!s.from_store) ++computed;
    if (static_cast<size_t>(s.points) < 2 * min_side) ++too_short;
    runs += static_cast<size_t>(s.points);
    for (const store::StoredChangePoint& c : s.changes) {
      ++count;
      table.add_row({scenario_cell(s.key), s.key.workload, s.key.variant, s.key.metric,
                     fmt::format("{} ({})", s.testbed_host, s.key.testbed_id),
                     std::to_string(c.run_id), commits(c),
                     format_metric(s.key.metric, c.median_before),
                     format_metric(s.key.metric, c.median_after),
                     c.change ? format_percent(*c.change) : "from 0", interval(c),
                     fmt::format("{:.3g}", c.p_value), change_direction(s.key.metric, c)});
    }
  }
  std::string out = table.empty() ? "" : table.render();
  out += fmt::format("{} change point{} in {} series ({} run values)", count, count == 1 ? "" : "s",
                     series.size(), runs);
  // Said, or "0 change points" over a young history reads as a stable one.
  if (too_short > 0) {
    out +=
        fmt::format("; {} series too short to show a change (fewer than {} runs: {} on each side)",
                    too_short, 2 * min_side, min_side);
  }
  if (computed > 0)
    out += fmt::format("; {} series computed now, not read from the store", computed);
  return out + "\n";
}

std::string render_change_lines(const std::vector<store::SeriesChanges>& series) {
  std::string out;
  for (const store::SeriesChanges& s : series) {
    for (const store::StoredChangePoint& c : s.changes) {
      out += fmt::format(
          "CHANGE|scenario={}|workload={}|variant={}|metric={}|testbed={}|host={}|run={}|"
          "previous_run={}|commit={}|previous_commit={}|started={}|median_before={:g}|"
          "median_after={:g}|change_pct={}|change_low_pct={}|change_high_pct={}|p_value={:g}|"
          "direction={}|runs_before={}|runs_after={}|params_hash={}|submitted_by={}\n",
          s.key.scenario, s.key.workload, s.key.variant, s.key.metric, s.key.testbed_id,
          s.testbed_host, c.run_id, c.previous_run_id, or_dash(c.commit),
          or_dash(c.previous_commit), utc_time(c.started_at_ns), c.median_before, c.median_after,
          percent_or_dash(c.change), percent_or_dash(c.change_low), percent_or_dash(c.change_high),
          c.p_value, change_direction(s.key.metric, c), c.runs_before, c.runs_after,
          s.key.params_hash, s.key.submitted_by);
    }
  }
  return out;
}

std::string render_change_json(const std::vector<store::SeriesChanges>& series,
                               const ChangeListingContext& context) {
  nlohmann::json list = nlohmann::json::array();
  for (const store::SeriesChanges& s : series) {
    nlohmann::json points = nlohmann::json::array();
    for (const store::StoredChangePoint& c : s.changes) {
      points.push_back({{"run_id", c.run_id},
                        {"previous_run_id", c.previous_run_id},
                        {"commit", c.commit},
                        {"previous_commit", c.previous_commit},
                        {"started_at", utc_time(c.started_at_ns)},
                        {"position", c.position},
                        {"runs_before", c.runs_before},
                        {"runs_after", c.runs_after},
                        {"median_before", c.median_before},
                        {"median_after", c.median_after},
                        {"change", optional_number(c.change)},
                        {"change_low", optional_number(c.change_low)},
                        {"change_high", optional_number(c.change_high)},
                        {"p_value", c.p_value},
                        {"direction", change_direction(s.key.metric, c)}});
    }
    list.push_back({{"scenario", s.key.scenario},
                    {"testbed_id", s.key.testbed_id},
                    {"testbed_host", s.testbed_host},
                    {"workload", s.key.workload},
                    {"variant", s.key.variant},
                    {"params_hash", s.key.params_hash},
                    {"metric", s.key.metric},
                    {"submitted_by", s.key.submitted_by},
                    {"runs", s.points},
                    {"from_store", s.from_store},
                    {"change_points", std::move(points)}});
  }
  nlohmann::json doc = {
      {"database", context.db},
      {"alpha", context.alpha},
      {"min_change", context.min_change},
      {"since", context.since.empty() ? nlohmann::json(nullptr) : nlohmann::json(context.since)},
      {"series", std::move(list)}};
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace benchgate::history
