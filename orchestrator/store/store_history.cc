// Series history for gates: the latest k runs of a baseline on one testbed and series, and a
// stored run's values, both per repetition (docs/GATES.md, "Series and baselines").
#include <cstdint>

#include "orchestrator/results/results.h"
#include "orchestrator/store/metric_columns.h"
#include "orchestrator/store/record_columns.h"
#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/store_internal.h"

namespace benchgate::store {
namespace {

Expected<MetricSql> expression_for(const std::string& metric) {
  auto expression = metric_sql(metric);
  if (!expression) return Error{"unknown metric '" + metric + "'"};
  return *expression;
}

// Per-repetition values of one workload, in repetition order, as results::metric_values gives
// them: a repetition that had nothing to measure is skipped; nothing when a repetition lacks
// the metric or no repetition has it (not collected is never a number). With `numbers`, the
// repetition each value is of, too.
Expected<std::optional<std::vector<double>>> values_of(sqlite::Statement& stmt, int64_t workload_id,
                                                       std::vector<uint32_t>* numbers = nullptr) {
  stmt.reset();
  stmt.bind(stmt.parameter(":workload_id"), workload_id);
  std::vector<double> values;
  while (true) {
    auto row = stmt.step();
    if (!row) return row.error();
    if (!*row) break;
    if (!stmt.is_null(1) && stmt.int64(1) != 0) continue;  // nothing to measure
    if (stmt.is_null(0)) return std::optional<std::vector<double>>();
    values.push_back(stmt.real(0));
    if (numbers) numbers->push_back(static_cast<uint32_t>(stmt.int64(2)));
  }
  if (values.empty()) return std::optional<std::vector<double>>();
  return std::optional<std::vector<double>>(std::move(values));
}

// A workload's stored figure of the metric, or nothing.
Expected<std::optional<double>> figure_of(sqlite::Statement& stmt, int64_t workload_id,
                                          const std::string& metric) {
  stmt.reset();
  stmt.bind(stmt.parameter(":workload_id"), workload_id).bind(stmt.parameter(":metric"), metric);
  auto row = stmt.step();
  if (!row) return row.error();
  if (!*row) return std::optional<double>();
  return std::optional<double>(stmt.real(0));
}

Expected<sqlite::Statement> prepare_figure(sqlite::Database& db) {
  return db.prepare(
      "SELECT value FROM workload_figures WHERE workload_id = :workload_id AND metric = :metric");
}

// Each row: the value, whether the repetition had nothing to measure, and its number.
Expected<sqlite::Statement> prepare_values(sqlite::Database& db, const MetricSql& expression) {
  // The expressions are constants of metric_columns.cc, never user text.
  return db.prepare("SELECT " + std::string(expression.value) + ", (" +
                    std::string(expression.nothing_to_measure) +
                    "), idx FROM repetitions WHERE workload_id = :workload_id ORDER BY idx");
}

// The id of run `run`'s workload `workload` (variant `variant`); an error naming them when the
// run has none, a database error after `context`.
Expected<int64_t> workload_id(sqlite::Database& db, int64_t run, const std::string& workload,
                              const std::string& variant, const std::string& context) {
  auto find = db.prepare(
      "SELECT id FROM workloads WHERE run_id = :run AND name = :workload AND variant = :variant");
  if (!find) return Error{context + ": " + find.message()};
  find->bind(find->parameter(":run"), run);
  find->bind(find->parameter(":workload"), workload);
  find->bind(find->parameter(":variant"), variant);
  auto row = find->step();
  if (!row) return Error{context + ": " + row.message()};
  if (!*row) {
    return Error{"run " + std::to_string(run) + " has no workload '" + workload + "' (variant '" +
                     variant + "')",
                 ErrorKind::kInvalidInput};
  }
  return find->int64(0);
}

}  // namespace

namespace internal {

const std::string& history_workload_condition() {
  // The flags are constants of results.h, never user text.
  static const std::string condition =
      "r.status = 'ok' AND w.status = 'ok' AND NOT EXISTS (SELECT 1 FROM json_each(w.flags) "
      "WHERE value IN ('" +
      std::string(results::kProcessStopped) + "', '" + std::string(results::kDegraded) + "'))";
  return condition;
}

const std::string& series_side_sql() {
  static const std::string side = "CASE WHEN r.origin = 'client' THEN '" +
                                  std::string(kClientRuns) + "' ELSE '" +
                                  std::string(kOperatorRuns) + "' END";
  return side;
}

const std::string& latest_workload_series_sql() {
  // runs_by_scenario_newest (schema version 25) holds a scenario's runs in id order across
  // testbeds: the walk starts at the newest and stops at the first run with the workload (of
  // the side), each joined to its workload by the key (run_id, name, variant), no sort.
  // runs_by_scenario, by testbed first, made SQLite read and sort every run of the scenario.
  // The side is the one rule (series_side_sql).
  static const std::string sql =
      "SELECT r.testbed_id, w.params_hash, " + series_side_sql() +
      " FROM runs r INDEXED BY runs_by_scenario_newest JOIN workloads w "
      "ON w.run_id = r.id AND w.name = :workload AND w.variant = :variant "
      "WHERE r.scenario = :scenario AND (:submitted_by = '' OR (" +
      series_side_sql() + ") = :submitted_by) ORDER BY r.id DESC LIMIT 1";
  return sql;
}

}  // namespace internal

Expected<std::vector<HistoryRun>> Store::baseline_history(const HistoryQuery& q) {
  const std::string context = "baseline history of '" + q.baseline + "' for " + q.scenario + "/" +
                              q.workload + " " + q.metric;
  auto expression = expression_for(q.metric);
  if (!expression) return Error{context + ": " + expression.message()};
  if (q.k <= 0) return std::vector<HistoryRun>();
  // Two walks visit the same candidates in the same order (newest run first; run ids increase
  // with start time, so neither needs a sort): one through the baseline's primary key, one
  // through the series' runs. Either can be long where the other is short (a baseline full of
  // other series, or a long series with few baseline runs), so each step examines exactly one
  // candidate (filters are computed into `usable`, not applied in WHERE), the two walks take
  // turns, and the first to find k usable runs or run out gives the answer: the cost follows
  // the shorter walk, however long the history grows. CROSS and LEFT JOIN fix the loop order.
  // Both walks start below `before_run` (a bound on the key each walks, not a filter).
  // Which runs are history at all: internal::history_workload_condition (no window measured
  // while a process was stopped, none without every worker). Not internal::series_side_sql: a
  // baseline's runs judge whoever submitted them, since only the operator adds a client's run
  // to a baseline (serve --allow-promote).
  // Each row: the run's columns (history_run_columns), then the workload's id and whether the
  // candidate is usable.
  const columns::Columns<HistoryRun> run_columns = columns::history_run_columns();
  const int workload_column = static_cast<int>(run_columns.size());
  const int usable_column = workload_column + 1;
  const std::string run_list = columns::names(run_columns, "r.");
  const std::string& history = internal::history_workload_condition();
  auto by_baseline = db_->prepare(
      "SELECT " + run_list +
      ", w.id, "
      "(r.testbed_id = :testbed_id AND r.scenario = :scenario "
      "AND w.params_hash = :params_hash AND " +
      history +
      ") FROM baselines b "
      "CROSS JOIN runs r ON r.id = b.run_id "
      "LEFT JOIN workloads w ON w.run_id = r.id AND w.name = :workload AND w.variant = :variant "
      "WHERE b.name = :baseline AND b.run_id < :before ORDER BY b.run_id DESC");
  auto by_series = db_->prepare(
      "SELECT " + run_list +
      ", w.id, "
      "(b.run_id IS NOT NULL AND w.params_hash = :params_hash AND " +
      history +
      ") "
      "FROM runs r INDEXED BY runs_by_scenario "
      "LEFT JOIN baselines b ON b.name = :baseline AND b.run_id = r.id "
      "LEFT JOIN workloads w ON w.run_id = r.id AND w.name = :workload AND w.variant = :variant "
      "WHERE r.scenario = :scenario AND r.testbed_id = :testbed_id AND r.id < :before "
      "ORDER BY r.id DESC");
  if (!by_baseline) return Error{context + ": " + by_baseline.message()};
  if (!by_series) return Error{context + ": " + by_series.message()};
  auto values = prepare_values(*db_, *expression);
  if (!values) return Error{context + ": " + values.message()};
  auto figures = prepare_figure(*db_);
  if (!figures) return Error{context + ": " + figures.message()};

  struct Walk {
    sqlite::Statement* stmt;
    std::vector<HistoryRun> found;
  };
  Walk walks[] = {{&*by_baseline, {}}, {&*by_series, {}}};
  for (Walk& walk : walks) {
    sqlite::Statement& c = *walk.stmt;
    c.bind(c.parameter(":baseline"), q.baseline);
    c.bind(c.parameter(":testbed_id"), q.testbed_id);
    c.bind(c.parameter(":scenario"), q.scenario);
    c.bind(c.parameter(":workload"), q.workload);
    c.bind(c.parameter(":variant"), q.variant);
    c.bind(c.parameter(":params_hash"), q.params_hash);
    c.bind(c.parameter(":before"), q.before_run > 0 ? q.before_run : INT64_MAX);
  }
  while (true) {
    for (Walk& walk : walks) {
      sqlite::Statement& c = *walk.stmt;
      auto row = c.step();
      if (!row) return Error{context + ": " + row.message()};
      if (!*row) return std::move(walk.found);  // exhausted: every matching run seen
      if (c.is_null(usable_column) || c.int64(usable_column) == 0) continue;
      const int64_t workload = c.int64(workload_column);
      auto v = values_of(*values, workload);
      if (!v) return Error{context + ": " + v.message()};
      if (!*v) continue;  // not collected: not usable as history
      auto figure = figure_of(*figures, workload, q.metric);
      if (!figure) return Error{context + ": " + figure.message()};
      // No figure: stored before figures were (schema version 8) for a latency metric.
      if (!*figure) continue;
      HistoryRun run;
      columns::read_record(c, 0, run_columns, run);
      run.figure = **figure;
      run.values = std::move(**v);
      walk.found.push_back(std::move(run));
      if (static_cast<int>(walk.found.size()) == q.k) return std::move(walk.found);
    }
  }
}

Expected<std::optional<std::vector<double>>> Store::run_metric_values(int64_t run,
                                                                      const std::string& workload,
                                                                      const std::string& variant,
                                                                      const std::string& metric) {
  auto by_repetition = run_metric_values_by_repetition(run, workload, variant, metric);
  if (!by_repetition) return by_repetition.error();
  if (!*by_repetition) return std::optional<std::vector<double>>();
  std::vector<double> values;
  for (const results::RepetitionValue& v : **by_repetition) values.push_back(v.value);
  return std::optional<std::vector<double>>(std::move(values));
}

Expected<std::optional<std::vector<results::RepetitionValue>>>
Store::run_metric_values_by_repetition(int64_t run, const std::string& workload,
                                       const std::string& variant, const std::string& metric) {
  const std::string context =
      "values of " + metric + " for workload '" + workload + "' of run " + std::to_string(run);
  auto expression = expression_for(metric);
  if (!expression) return Error{context + ": " + expression.message()};
  auto id = workload_id(*db_, run, workload, variant, context);
  if (!id) return id.error();
  auto values = prepare_values(*db_, *expression);
  if (!values) return Error{context + ": " + values.message()};
  std::vector<uint32_t> numbers;
  auto v = values_of(*values, *id, &numbers);
  if (!v) return Error{context + ": " + v.message()};
  if (!*v) return std::optional<std::vector<results::RepetitionValue>>();
  std::vector<results::RepetitionValue> out;
  for (size_t i = 0; i < (*v)->size(); ++i) out.push_back({numbers[i], (**v)[i]});
  return std::optional<std::vector<results::RepetitionValue>>(std::move(out));
}

Expected<std::optional<double>> Store::run_metric_figure(int64_t run, const std::string& workload,
                                                         const std::string& variant,
                                                         const std::string& metric) {
  const std::string context =
      "figure of " + metric + " for workload '" + workload + "' of run " + std::to_string(run);
  auto id = workload_id(*db_, run, workload, variant, context);
  if (!id) return id.error();
  auto figures = prepare_figure(*db_);
  if (!figures) return Error{context + ": " + figures.message()};
  auto figure = figure_of(*figures, *id, metric);
  if (!figure) return Error{context + ": " + figure.message()};
  return *figure;
}

Expected<std::optional<ChangeSeriesKey>> Store::latest_workload_series(
    const std::string& scenario, const std::string& workload, const std::string& variant,
    const std::string& submitted_by) {
  auto stmt = db_->prepare(internal::latest_workload_series_sql());
  const std::string context = "latest run of " + scenario + " with workload " + workload;
  if (!stmt) return Error{context + ": " + stmt.message()};
  stmt->bind(stmt->parameter(":scenario"), scenario);
  stmt->bind(stmt->parameter(":workload"), workload);
  stmt->bind(stmt->parameter(":variant"), variant);
  stmt->bind(stmt->parameter(":submitted_by"), submitted_by);
  auto row = stmt->step();
  if (!row) return Error{context + ": " + row.message()};
  if (!*row) return std::optional<ChangeSeriesKey>{};
  ChangeSeriesKey key;
  key.scenario = scenario;
  key.testbed_id = stmt->int64(0);
  key.workload = workload;
  key.variant = variant;
  key.params_hash = stmt->text(1);
  key.submitted_by = stmt->text(2);
  return std::optional<ChangeSeriesKey>(std::move(key));
}

Expected<std::vector<SeriesRun>> Store::series_runs(const HistoryQuery& q) {
  const std::string context = "history of " + q.scenario + "/" + q.workload + " " + q.metric;
  auto expression = expression_for(q.metric);
  if (!expression) return Error{context + ": " + expression.message()};
  std::vector<SeriesRun> out;
  if (q.k <= 0) return out;
  // Each row: the run's columns (series_run_columns), the workload's id, the run's baselines.
  const columns::Columns<SeriesRun> run_columns = columns::series_run_columns();
  const int workload_column = static_cast<int>(run_columns.size());
  const int baselines_column = workload_column + 1;
  auto runs = db_->prepare(
      "SELECT " + columns::names(run_columns, "r.") +
      ", w.id, "
      "(SELECT group_concat(name, ',') FROM (SELECT name FROM baselines b "
      " WHERE b.run_id = r.id ORDER BY name)) "
      "FROM runs r INDEXED BY runs_by_scenario "
      "JOIN workloads w ON w.run_id = r.id AND w.name = :workload AND w.variant = :variant "
      "WHERE r.scenario = :scenario AND r.testbed_id = :testbed_id AND " +
      internal::history_workload_condition() + " AND (" + internal::series_side_sql() +
      ") = :submitted_by AND w.params_hash = :params_hash "
      "AND (:through_run = 0 OR r.id <= :through_run) ORDER BY r.id DESC");
  if (!runs) return Error{context + ": " + runs.message()};
  auto values = prepare_values(*db_, *expression);
  if (!values) return Error{context + ": " + values.message()};
  auto figures = prepare_figure(*db_);
  if (!figures) return Error{context + ": " + figures.message()};
  runs->bind(runs->parameter(":scenario"), q.scenario);
  runs->bind(runs->parameter(":testbed_id"), q.testbed_id);
  runs->bind(runs->parameter(":workload"), q.workload);
  runs->bind(runs->parameter(":variant"), q.variant);
  runs->bind(runs->parameter(":params_hash"), q.params_hash);
  runs->bind(runs->parameter(":through_run"), q.through_run);
  runs->bind(runs->parameter(":submitted_by"), q.submitted_by);
  while (static_cast<int>(out.size()) < q.k) {
    auto row = runs->step();
    if (!row) return Error{context + ": " + row.message()};
    if (!*row) break;
    auto v = values_of(*values, runs->int64(workload_column));
    if (!v) return Error{context + ": " + v.message()};
    if (!*v) continue;  // not collected: no point, never a zero
    auto figure = figure_of(*figures, runs->int64(workload_column), q.metric);
    if (!figure) return Error{context + ": " + figure.message()};
    // No figure: stored before figures were (schema version 8) for a latency metric; as for
    // baseline history and change points, no point.
    if (!*figure) continue;
    SeriesRun run;
    columns::read_record(*runs, 0, run_columns, run);
    run.values = std::move(**v);
    run.figure = **figure;
    const std::string names = runs->is_null(baselines_column) ? "" : runs->text(baselines_column);
    for (size_t start = 0; start < names.size();) {
      size_t end = names.find(',', start);
      if (end == std::string::npos) end = names.size();
      run.baselines.push_back(names.substr(start, end - start));
      start = end + 1;
    }
    out.push_back(std::move(run));
  }
  return out;
}

Expected<std::vector<std::vector<uint8_t>>> Store::latency_histograms(int64_t run,
                                                                      const std::string& workload,
                                                                      const std::string& variant) {
  auto stmt = db_->prepare(
      "SELECT r.latency_hdr FROM repetitions r JOIN workloads w ON w.id = r.workload_id "
      "WHERE w.run_id = :run AND w.name = :workload AND w.variant = :variant ORDER BY r.idx");
  if (!stmt) return Error{"latency histograms: " + stmt.message()};
  stmt->bind(stmt->parameter(":run"), run);
  stmt->bind(stmt->parameter(":workload"), workload);
  stmt->bind(stmt->parameter(":variant"), variant);
  std::vector<std::vector<uint8_t>> out;
  while (true) {
    auto row = stmt->step();
    if (!row) return Error{"latency histograms: " + row.message()};
    if (!*row) break;
    if (stmt->is_null(0)) continue;
    auto blob = stmt->blob(0);
    if (!blob.empty()) out.push_back(std::move(blob));
  }
  return out;
}

}  // namespace benchgate::store
