// Change points of the stored series (docs/GATES.md, "Change points"; schema 0006): the analysis
// of orchestrator/changes over each series' run figures, kept in change_series/change_points
// and resumed when a run lands, and read back (or computed, when not stored) for
// `orchestrator history changes`.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>

#include "common/time/clock.h"
#include "orchestrator/store/record_columns.h"
#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/store_internal.h"

namespace benchgate::store {
namespace {

// The metrics analysed. A series' point of a run is the workload's figure (workload_figures,
// results::metric_figure: the median throughput, the merged histogram's percentile), the one
// number its report prints and its gates judge, as the view series_history shows it.
// errors.count is left out: a relative change from zero errors has no size (gate errors with
// max = 0 instead).
constexpr std::array<const char*, 7> kMetrics = {
    "throughput.rps", "throughput.bytes_per_s", "latency.p50", "latency.p90",
    "latency.p99",    "latency.p999",           "latency.max"};

// `each` with METRIC replaced by every metric's name, each after a comma:
// column_list("max(CASE WHEN f.metric = 'METRIC' THEN f.value END)").
std::string column_list(std::string_view each) {
  constexpr std::string_view kPlaceholder = "METRIC";
  std::string out;
  const size_t at = each.find(kPlaceholder);
  for (const char* metric : kMetrics) {
    out += ", " + std::string(each.substr(0, at)) + metric +
           std::string(each.substr(at + kPlaceholder.size()));
  }
  return out;
}

// Joins the figures of the workload row `w`, one row per analysed metric it has, as `f`.
std::string join_figures() {
  std::string in;
  for (const char* metric : kMetrics) in += std::string(in.empty() ? "'" : ", '") + metric + "'";
  return " JOIN workload_figures f ON f.workload_id = w.id AND f.metric IN (" + in + ") ";
}

std::string parameters_json(const changes::ChangeOptions& o) {
  return nlohmann::json{
      {"alpha", o.alpha},
      {"min_change", o.min_change},
      {"window", o.window},
      {"min_size", o.min_size},
      {"permutations", o.permutations},
      {"seed", std::to_string(o.seed)},
      // What a point is: an analysis of the medians over repetitions (before) is not current.
      {"points", "workload_figures"}}
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A workload series without its metric.
struct WorkloadSeries {
  std::string scenario;
  int64_t testbed_id = 0;
  std::string workload, variant, params_hash;
  std::string submitted_by;  // internal::series_side_sql

  ChangeSeriesKey with(std::string_view metric) const {
    return {scenario,    testbed_id,          workload,    variant,
            params_hash, std::string(metric), submitted_by};
  }
};

// The row of change_series with this key (columns::kChangeSeriesKey), as named parameters.
constexpr const char* kSeriesIs =
    "scenario = :scenario AND testbed_id = :testbed_id AND workload = :workload "
    "AND variant = :variant AND params_hash = :params_hash AND metric = :metric "
    "AND submitted_by = :submitted_by";

void bind_series_key(sqlite::Statement& stmt, const ChangeSeriesKey& key) {
  stmt.bind(stmt.parameter(":scenario"), key.scenario);
  stmt.bind(stmt.parameter(":testbed_id"), key.testbed_id);
  stmt.bind(stmt.parameter(":workload"), key.workload);
  stmt.bind(stmt.parameter(":variant"), key.variant);
  stmt.bind(stmt.parameter(":params_hash"), key.params_hash);
  stmt.bind(stmt.parameter(":metric"), key.metric);
  stmt.bind(stmt.parameter(":submitted_by"), key.submitted_by);
}

// The series' stored state (change_series), or nothing.
Expected<std::optional<std::pair<int64_t, ChangeSeriesState>>> stored_series(
    sqlite::Statement& stmt, const ChangeSeriesKey& key) {
  stmt.reset();
  bind_series_key(stmt, key);
  auto row = stmt.step();
  if (!row) return row.error();
  using Found = std::optional<std::pair<int64_t, ChangeSeriesState>>;
  if (!*row) return Found();
  ChangeSeriesState state;
  columns::read_record(stmt, 1, columns::change_series_columns(), state);
  return Found(std::pair(stmt.int64(0), std::move(state)));
}

Expected<sqlite::Statement> prepare_stored_series(sqlite::Database& db) {
  return db.prepare("SELECT id, " + columns::names(columns::change_series_columns()) +
                    " FROM change_series WHERE " + kSeriesIs);
}

struct Point {
  int64_t run_id;
  int64_t started_at_ns;
  std::string commit;
  double value;
};
using MetricPoints = std::array<std::vector<Point>, kMetrics.size()>;

// Every run of the series that is history (internal::history_workload_condition: finished ok,
// no window measured while a process was stopped or without every worker; of the series' side,
// internal::series_side_sql), of `branch` only when given, oldest first, split by metric; a
// run whose metric was not measured is not a point of that metric.
Expected<MetricPoints> load_points(sqlite::Database& db, const WorkloadSeries& s,
                                   const std::string& branch, int64_t through_run = 0) {
  auto stmt = db.prepare(
      "SELECT r.id, r.started_at, r.commit_id" +
      column_list("max(CASE WHEN f.metric = 'METRIC' THEN f.value END)") +
      " FROM runs r INDEXED BY runs_by_scenario JOIN workloads w ON w.run_id = r.id "
      "AND w.name = :workload AND w.variant = :variant "
      "AND w.params_hash = :params_hash" +
      join_figures() + "WHERE r.scenario = :scenario AND r.testbed_id = :testbed_id AND " +
      internal::history_workload_condition() + " AND (" + internal::series_side_sql() +
      ") = :submitted_by AND (:branch = '' OR r.branch = :branch) "
      "AND (:through_run = 0 OR r.id <= :through_run) GROUP BY r.id ORDER BY r.id");
  if (!stmt) return stmt.error();
  stmt->bind(stmt->parameter(":scenario"), s.scenario);
  stmt->bind(stmt->parameter(":testbed_id"), s.testbed_id);
  stmt->bind(stmt->parameter(":workload"), s.workload);
  stmt->bind(stmt->parameter(":variant"), s.variant);
  stmt->bind(stmt->parameter(":params_hash"), s.params_hash);
  stmt->bind(stmt->parameter(":submitted_by"), s.submitted_by);
  stmt->bind(stmt->parameter(":branch"), branch);
  stmt->bind(stmt->parameter(":through_run"), through_run);
  MetricPoints points;
  while (true) {
    auto row = stmt->step();
    if (!row) return row.error();
    if (!*row) return points;
    for (size_t m = 0; m < kMetrics.size(); ++m) {
      const int column = 3 + static_cast<int>(m);
      if (stmt->is_null(column)) continue;
      points[m].push_back({stmt->int64(0), stmt->int64(1), stmt->text(2), stmt->real(column)});
    }
  }
}

std::vector<double> values_of(const std::vector<Point>& points) {
  std::vector<double> v;
  v.reserve(points.size());
  for (const Point& p : points) v.push_back(p.value);
  return v;
}

std::optional<double> finite(double v) {
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

std::vector<StoredChangePoint> describe(const std::vector<Point>& points,
                                        const std::vector<changes::ChangePoint>& found) {
  std::vector<StoredChangePoint> out;
  for (const changes::ChangePoint& cp : found) {
    StoredChangePoint c;
    const Point& at = points[cp.index];
    const Point& before = points[cp.index - 1];
    c.run_id = at.run_id;
    c.previous_run_id = before.run_id;
    c.commit = at.commit;
    c.previous_commit = before.commit;
    c.started_at_ns = at.started_at_ns;
    c.position = static_cast<int64_t>(cp.index);
    c.runs_before = static_cast<int64_t>(cp.index - cp.before_from);
    c.runs_after = static_cast<int64_t>(cp.after_to - cp.index);
    c.median_before = cp.median_before;
    c.median_after = cp.median_after;
    c.change = finite(cp.change);
    if (cp.interval_bounded) {
      c.change_low = finite(cp.change_low);
      c.change_high = finite(cp.change_high);
    }
    c.p_value = cp.p_value;
    out.push_back(std::move(c));
  }
  return out;
}

// A stored change point as the analysis returned it (for a resumed analysis): describe()
// backwards.
changes::ChangePoint as_found(const StoredChangePoint& c) {
  changes::ChangePoint cp;
  cp.index = static_cast<size_t>(c.position);
  cp.before_from = cp.index - static_cast<size_t>(c.runs_before);
  cp.after_to = cp.index + static_cast<size_t>(c.runs_after);
  cp.median_before = c.median_before;
  cp.median_after = c.median_after;
  cp.change = c.change.value_or(std::nan(""));
  cp.interval_bounded = c.change_low && c.change_high;
  cp.change_low = cp.interval_bounded ? *c.change_low : -INFINITY;
  cp.change_high = cp.interval_bounded ? *c.change_high : INFINITY;
  cp.p_value = c.p_value;
  return cp;
}

// The stored state of a series if it is that of exactly its first `points` runs as they are
// now (runs are ordered by id, so the newest analysed run in its place proves it) with the
// same parameters; nothing otherwise (the analysis then starts over).
Expected<std::optional<changes::AnalysisState>> stored_state(sqlite::Database& db,
                                                             const ChangeSeriesKey& key,
                                                             const std::vector<Point>& points,
                                                             const std::string& parameters) {
  auto stmt = prepare_stored_series(db);
  if (!stmt) return stmt.error();
  auto found = stored_series(*stmt, key);
  if (!found) return found.error();
  using State = std::optional<changes::AnalysisState>;
  if (!*found) return State();
  const auto& [series_id, stored] = **found;
  const int64_t analysed = stored.points;
  if (analysed <= 0 || analysed > static_cast<int64_t>(points.size()) ||
      points[static_cast<size_t>(analysed - 1)].run_id != stored.last_run_id ||
      stored.parameters != parameters) {
    return State();
  }
  changes::AnalysisState state;
  state.split.length = static_cast<size_t>(analysed);
  state.split.resume_start =
      static_cast<size_t>(std::clamp<int64_t>(stored.resume_start, 0, analysed));
  for (int64_t p : stored.stable_weak) {
    if (p > 0 && p < analysed) state.split.stable_weak.push_back(static_cast<size_t>(p));
  }
  state.frozen_until = static_cast<size_t>(std::clamp<int64_t>(stored.frozen_until, 0, analysed));
  auto frozen = db.prepare("SELECT " + columns::names(columns::change_point_columns()) +
                           " FROM change_points WHERE series_id = :series_id "
                           "AND position < :frozen_until ORDER BY position");
  if (!frozen) return frozen.error();
  frozen->bind(frozen->parameter(":series_id"), series_id);
  frozen->bind(frozen->parameter(":frozen_until"), static_cast<int64_t>(state.frozen_until));
  while (true) {
    auto f = frozen->step();
    if (!f) return f.error();
    if (!*f) break;
    StoredChangePoint c;
    columns::read_record(*frozen, 0, columns::change_point_columns(), c);
    state.frozen.push_back(as_found(c));
  }
  return State(std::move(state));
}

Expected<void> update_series(sqlite::Database& db, const WorkloadSeries& s, const char* metric,
                             const std::vector<Point>& points) {
  const changes::ChangeOptions options = Store::stored_change_options();
  const std::string parameters = parameters_json(options);
  const ChangeSeriesKey key = s.with(metric);
  auto resume = stored_state(db, key, points, parameters);
  if (!resume) return resume.error();
  const std::vector<double> values = values_of(points);
  changes::AnalysisState next;
  const std::vector<changes::ChangePoint> found =
      changes::detect_changes(values, options, *resume ? &**resume : nullptr, &next);

  const columns::Columns<ChangeSeriesState> series_columns = columns::change_series_columns();
  auto upsert = db.prepare(columns::insert_sql("change_series", {}, series_columns) +
                           columns::on_conflict_update(columns::kChangeSeriesKey, series_columns) +
                           " RETURNING id");
  if (!upsert) return upsert.error();
  ChangeSeriesState state;
  state.key = key;
  state.points = static_cast<int64_t>(points.size());
  state.last_run_id = points.back().run_id;
  state.parameters = parameters;
  state.resume_start = static_cast<int64_t>(next.split.resume_start);
  state.stable_weak.assign(next.split.stable_weak.begin(), next.split.stable_weak.end());
  state.frozen_until = static_cast<int64_t>(next.frozen_until);
  state.analysed_at_ns = unix_now_ns();
  columns::bind_record(*upsert, series_columns, state);
  auto id_row = upsert->step();
  if (!id_row) return id_row.error();
  if (!*id_row) return Error{"change_series upsert returned no id"};
  const int64_t series_id = upsert->int64(0);
  if (auto done = upsert->run(); !done) return done.error();

  auto clear = db.prepare("DELETE FROM change_points WHERE series_id = :series_id");
  if (!clear) return clear.error();
  clear->bind(clear->parameter(":series_id"), series_id);
  if (auto ok = clear->run(); !ok) return ok.error();
  auto insert = db.prepare(columns::insert_sql("change_points", columns::kChangePointKept,
                                               columns::change_point_columns()));
  if (!insert) return insert.error();
  for (const StoredChangePoint& c : describe(points, found)) {
    insert->reset();
    insert->bind(insert->parameter(":series_id"), series_id);
    columns::bind_record(*insert, columns::change_point_columns(), c);
    if (auto ok = insert->run(); !ok) return ok.error();
  }
  return {};
}

Expected<void> update_workload_series(sqlite::Database& db, const WorkloadSeries& s) {
  auto points = load_points(db, s, "");
  if (!points) return points.error();
  for (size_t m = 0; m < kMetrics.size(); ++m) {
    if ((*points)[m].empty()) continue;
    if (auto ok = update_series(db, s, kMetrics[m], (*points)[m]); !ok) return ok;
  }
  return {};
}

// Workload series matching `where` (a constant of this file) with parameters bound by `bind`,
// of the runs that are history (a run that is not changes no series' points).
template <typename Bind>
Expected<std::vector<WorkloadSeries>> workload_series(sqlite::Database& db, const char* where,
                                                      Bind bind) {
  auto stmt = db.prepare(
      "SELECT DISTINCT r.scenario, r.testbed_id, w.name, w.variant, w.params_hash, " +
      internal::series_side_sql() + " FROM workloads w JOIN runs r ON r.id = w.run_id WHERE " +
      internal::history_workload_condition() + " " + where);
  if (!stmt) return stmt.error();
  bind(*stmt);
  std::vector<WorkloadSeries> out;
  while (true) {
    auto row = stmt->step();
    if (!row) return row.error();
    if (!*row) return out;
    out.push_back({stmt->text(0), stmt->int64(1), stmt->text(2), stmt->text(3), stmt->text(4),
                   stmt->text(5)});
  }
}

}  // namespace

const std::vector<std::string>& Store::change_metrics() {
  static const std::vector<std::string> names(kMetrics.begin(), kMetrics.end());
  return names;
}

Expected<std::vector<changes::HistoryPoint>> Store::change_gate_history(const ChangeSeriesKey& key,
                                                                        int64_t before_run,
                                                                        size_t limit) {
  const std::string context =
      "change gate history of " + key.scenario + "/" + key.workload + " " + key.metric;
  if (std::find(kMetrics.begin(), kMetrics.end(), key.metric) == kMetrics.end()) {
    return Error{context + ": change points are not looked for in metric '" + key.metric + "'"};
  }
  // The series as load_points reads it (the runs that are history, of the key's side), newest
  // first from before_run, then reversed.
  auto stmt = db_->prepare(
      "SELECT r.id, f.value FROM runs r INDEXED BY runs_by_scenario JOIN workloads w "
      "ON w.run_id = r.id AND w.name = :workload AND w.variant = :variant "
      "AND w.params_hash = :params_hash "
      "JOIN workload_figures f ON f.workload_id = w.id AND f.metric = :metric "
      "WHERE r.scenario = :scenario AND r.testbed_id = :testbed_id AND " +
      internal::history_workload_condition() + " AND (" + internal::series_side_sql() +
      ") = :submitted_by AND r.id < :before_run ORDER BY r.id DESC LIMIT :limit");
  if (!stmt) return Error{context + ": " + stmt.message()};
  bind_series_key(*stmt, key);
  stmt->bind(stmt->parameter(":before_run"), before_run);
  stmt->bind(stmt->parameter(":limit"), static_cast<int64_t>(limit));
  std::vector<changes::HistoryPoint> points;
  while (true) {
    auto row = stmt->step();
    if (!row) return Error{context + ": " + row.message()};
    if (!*row) break;
    points.push_back({stmt->int64(0), stmt->real(1)});
  }
  std::reverse(points.begin(), points.end());
  return points;
}

Expected<void> Store::update_change_points(int64_t run) {
  const std::string context = "change points after run " + std::to_string(run);
  auto series = workload_series(*db_, "AND r.id = :run",
                                [run](sqlite::Statement& s) { s.bind(s.parameter(":run"), run); });
  if (!series) return Error{context + ": " + series.message()};
  if (series->empty()) return {};  // not 'ok', or no workload completed
  auto tx = sqlite::Transaction::begin(*db_);
  if (!tx) return Error{context + ": " + tx.message()};
  for (const WorkloadSeries& s : *series) {
    if (auto ok = update_workload_series(*db_, s); !ok) return Error{context + ": " + ok.message()};
  }
  if (auto ok = tx->commit(); !ok) return Error{context + ": " + ok.message()};
  return {};
}

Expected<void> Store::update_all_change_points() {
  auto series = workload_series(*db_, "", [](sqlite::Statement&) {});
  if (!series) return Error{"change points: " + series.message()};
  auto tx = sqlite::Transaction::begin(*db_);
  if (!tx) return Error{"change points: " + tx.message()};
  for (const WorkloadSeries& s : *series) {
    if (auto ok = update_workload_series(*db_, s); !ok) {
      return Error{"change points: " + ok.message()};
    }
  }
  if (auto ok = tx->commit(); !ok) return Error{"change points: " + ok.message()};
  return {};
}

Expected<std::vector<SeriesChanges>> Store::change_points(const ChangeSeriesFilter& f,
                                                          const changes::ChangeOptions& options) {
  const std::string context = "change points";
  // Per workload series: how many runs it has and the newest, to tell whether the stored
  // analysis is current without reading the series (or its figures: joining them cost 5 times
  // as much). A stored analysis of P points whose last run is the series' newest is current
  // when the series has P runs: then every run had the metric's figure, and a figure never
  // changes once stored. A metric some run lacks is computed each time (slower, never stale).
  // The runs counted are those load_points reads: the runs that are history (with through_run,
  // those up to it; the stored analysis is then used only when the series ends there).
  // A side's series are its own (internal::series_side_sql): the operator's come first.
  const std::string& side = internal::series_side_sql();
  auto list = db_->prepare(
      "SELECT r.scenario, r.testbed_id, t.host, w.name, w.variant, w.params_hash, count(*), "
      "max(r.id), " +
      side +
      " AS submitted_by FROM workloads w JOIN runs r ON r.id = w.run_id "
      "JOIN testbeds t ON t.id = r.testbed_id WHERE " +
      internal::history_workload_condition() + " AND (:submitted_by = '' OR (" + side +
      ") = :submitted_by) AND (:scenario = '' OR r.scenario = :scenario) "
      "AND (:workload = '' OR w.name = :workload) AND (:variant = '' OR w.variant = :variant) "
      "AND (:testbed_id = 0 OR r.testbed_id = :testbed_id) "
      "AND (:branch = '' OR r.branch = :branch) "
      "AND (:through_run = 0 OR r.id <= :through_run) "
      "GROUP BY r.scenario, r.testbed_id, w.name, w.variant, w.params_hash, submitted_by "
      "ORDER BY r.scenario, r.testbed_id, w.name, w.variant, w.params_hash, submitted_by DESC");
  auto stored = prepare_stored_series(*db_);
  // The point's columns, then its runs' commits and start.
  const columns::Columns<StoredChangePoint> point_columns = columns::change_point_columns();
  const int runs_first = static_cast<int>(point_columns.size());
  auto stored_points =
      db_->prepare("SELECT " + columns::names(point_columns, "c.") +
                   ", r.commit_id, p.commit_id, r.started_at FROM change_points c "
                   "JOIN runs r ON r.id = c.run_id JOIN runs p ON p.id = c.previous_run_id "
                   "WHERE c.series_id = :series_id ORDER BY c.position");
  if (!list) return Error{context + ": " + list.message()};
  if (!stored) return Error{context + ": " + stored.message()};
  if (!stored_points) return Error{context + ": " + stored_points.message()};
  list->bind(list->parameter(":scenario"), f.scenario);
  list->bind(list->parameter(":workload"), f.workload);
  list->bind(list->parameter(":variant"), f.variant);
  list->bind(list->parameter(":testbed_id"), f.testbed_id);
  list->bind(list->parameter(":branch"), f.branch);
  list->bind(list->parameter(":through_run"), f.through_run);
  list->bind(list->parameter(":submitted_by"), f.submitted_by);
  const bool stored_options = parameters_json(options) == parameters_json(stored_change_options());
  const std::string parameters = parameters_json(options);

  std::vector<SeriesChanges> out;
  while (true) {
    auto row = list->step();
    if (!row) return Error{context + ": " + row.message()};
    if (!*row) break;
    const WorkloadSeries s{list->text(0), list->int64(1), list->text(3),
                           list->text(4), list->text(5),  list->text(8)};
    const std::string host = list->text(2);
    std::optional<MetricPoints> points;  // read once, when some metric needs computing
    for (size_t m = 0; m < kMetrics.size(); ++m) {
      if (!f.metric.empty() && f.metric != kMetrics[m]) continue;
      const int64_t count = list->int64(6);
      const int64_t newest = list->int64(7);
      SeriesChanges sc;
      sc.key = s.with(kMetrics[m]);
      sc.testbed_host = host;
      sc.points = count;
      if (stored_options && f.branch.empty()) {
        auto st = stored_series(*stored, sc.key);
        if (!st) return Error{context + ": " + st.message()};
        if (*st && (*st)->second.points == count && (*st)->second.last_run_id == newest &&
            (*st)->second.parameters == parameters) {
          sc.from_store = true;
          stored_points->reset();
          stored_points->bind(stored_points->parameter(":series_id"), (*st)->first);
          while (true) {
            auto p = stored_points->step();
            if (!p) return Error{context + ": " + p.message()};
            if (!*p) break;
            const sqlite::Statement& q = *stored_points;
            StoredChangePoint c;
            columns::read_record(q, 0, point_columns, c);
            c.commit = q.text(runs_first);
            c.previous_commit = q.text(runs_first + 1);
            c.started_at_ns = q.int64(runs_first + 2);
            sc.changes.push_back(std::move(c));
          }
        }
      }
      if (!sc.from_store) {
        if (!points) {
          auto loaded = load_points(*db_, s, f.branch, f.through_run);
          if (!loaded) return Error{context + ": " + loaded.message()};
          points = std::move(*loaded);
        }
        const std::vector<Point>& pts = (*points)[m];
        if (pts.empty()) continue;  // no run has this metric's figure
        sc.points = static_cast<int64_t>(pts.size());
        sc.changes = describe(pts, changes::detect_changes(values_of(pts), options));
      }
      out.push_back(std::move(sc));
    }
  }
  // Series order: scenario, testbed, workload, variant, metric, the operator's before a client's
  // (the query sorts by hash, then side, last).
  std::stable_sort(out.begin(), out.end(), [](const SeriesChanges& a, const SeriesChanges& b) {
    const bool a_client = a.key.submitted_by == kClientRuns;
    const bool b_client = b.key.submitted_by == kClientRuns;
    return std::tie(a.key.scenario, a.key.testbed_id, a.key.workload, a.key.variant, a.key.metric,
                    a_client) < std::tie(b.key.scenario, b.key.testbed_id, b.key.workload,
                                         b.key.variant, b.key.metric, b_client);
  });
  return out;
}

}  // namespace benchgate::store
