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
#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/store_internal.h"

namespace benchgate::store {
namespace {

using namespace internal;  // NOLINT(google-build-using-namespace)

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
      .dump();
}

// A workload series without its metric.
struct WorkloadSeries {
  std::string scenario;
  int64_t testbed_id = 0;
  std::string workload, variant, params_hash;
};

struct Point {
  int64_t run_id;
  int64_t started_at_ns;
  std::string commit;
  double value;
};
using MetricPoints = std::array<std::vector<Point>, kMetrics.size()>;

// Every finished 'ok' run of the series (of `branch` only, when given), oldest first, split by
// metric; a run whose metric was not measured is not a point of that metric.
Expected<MetricPoints> load_points(sqlite::Database& db, const WorkloadSeries& s,
                                   const std::string& branch) {
  auto stmt =
      db.prepare("SELECT r.id, r.started_at, r.commit_id" +
                 column_list("max(CASE WHEN f.metric = 'METRIC' THEN f.value END)") +
                 " FROM runs r INDEXED BY runs_by_scenario JOIN workloads w ON w.run_id = r.id "
                 "AND w.name = ?3 AND w.variant = ?4 AND w.params_hash = ?5 AND w.status = 'ok'" +
                 join_figures() +
                 "WHERE r.scenario = ?1 AND r.testbed_id = ?2 AND r.status = 'ok' "
                 "AND (?6 = '' OR r.branch = ?6) GROUP BY r.id ORDER BY r.id");
  if (!stmt) return stmt.error();
  stmt->bind(1, s.scenario).bind(2, s.testbed_id).bind(3, s.workload).bind(4, s.variant);
  stmt->bind(5, s.params_hash).bind(6, branch);
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

// A stored change point as the analysis returned it (for a resumed analysis).
changes::ChangePoint from_row(const sqlite::Statement& q) {
  changes::ChangePoint cp;
  cp.index = static_cast<size_t>(q.int64(0));
  cp.before_from = cp.index - static_cast<size_t>(q.int64(1));
  cp.after_to = cp.index + static_cast<size_t>(q.int64(2));
  cp.median_before = q.real(3);
  cp.median_after = q.real(4);
  cp.change = q.is_null(5) ? std::nan("") : q.real(5);
  cp.interval_bounded = !q.is_null(6) && !q.is_null(7);
  cp.change_low = cp.interval_bounded ? q.real(6) : -INFINITY;
  cp.change_high = cp.interval_bounded ? q.real(7) : INFINITY;
  cp.p_value = q.real(8);
  return cp;
}

// The stored state of a series if it is that of exactly its first `points` runs as they are
// now (runs are ordered by id, so the newest analysed run in its place proves it) with the
// same parameters; nothing otherwise (the analysis then starts over).
Expected<std::optional<changes::AnalysisState>> stored_state(sqlite::Database& db,
                                                             const WorkloadSeries& s,
                                                             const char* metric,
                                                             const std::vector<Point>& points,
                                                             const std::string& parameters) {
  auto stmt = db.prepare(
      "SELECT id, points, last_run_id, parameters, resume_start, stable_weak, frozen_until "
      "FROM change_series WHERE scenario = ?1 AND testbed_id = ?2 AND workload = ?3 "
      "AND variant = ?4 AND params_hash = ?5 AND metric = ?6");
  if (!stmt) return stmt.error();
  stmt->bind(1, s.scenario).bind(2, s.testbed_id).bind(3, s.workload).bind(4, s.variant);
  stmt->bind(5, s.params_hash).bind(6, std::string_view(metric));
  auto row = stmt->step();
  if (!row) return row.error();
  using State = std::optional<changes::AnalysisState>;
  if (!*row) return State();
  const int64_t analysed = stmt->int64(1);
  if (analysed <= 0 || analysed > static_cast<int64_t>(points.size()) ||
      points[static_cast<size_t>(analysed - 1)].run_id != stmt->int64(2) ||
      stmt->text(3) != parameters) {
    return State();
  }
  changes::AnalysisState state;
  state.split.length = static_cast<size_t>(analysed);
  state.split.resume_start = static_cast<size_t>(std::clamp<int64_t>(stmt->int64(4), 0, analysed));
  for (int64_t p : ints_from_json(stmt->text(5))) {
    if (p > 0 && p < analysed) state.split.stable_weak.push_back(static_cast<size_t>(p));
  }
  state.frozen_until = static_cast<size_t>(std::clamp<int64_t>(stmt->int64(6), 0, analysed));
  auto frozen = db.prepare(
      "SELECT position, runs_before, runs_after, median_before, median_after, change, "
      "change_low, change_high, p_value FROM change_points WHERE series_id = ?1 "
      "AND position < ?2 ORDER BY position");
  if (!frozen) return frozen.error();
  frozen->bind(1, stmt->int64(0)).bind(2, static_cast<int64_t>(state.frozen_until));
  while (true) {
    auto f = frozen->step();
    if (!f) return f.error();
    if (!*f) break;
    state.frozen.push_back(from_row(*frozen));
  }
  return State(std::move(state));
}

Expected<void> update_series(sqlite::Database& db, const WorkloadSeries& s, const char* metric,
                             const std::vector<Point>& points) {
  const changes::ChangeOptions options = Store::stored_change_options();
  const std::string parameters = parameters_json(options);
  auto resume = stored_state(db, s, metric, points, parameters);
  if (!resume) return resume.error();
  const std::vector<double> values = values_of(points);
  changes::AnalysisState next;
  const std::vector<changes::ChangePoint> found =
      changes::detect_changes(values, options, *resume ? &**resume : nullptr, &next);

  auto upsert = db.prepare(
      "INSERT INTO change_series (scenario, testbed_id, workload, variant, params_hash, metric, "
      "points, last_run_id, parameters, resume_start, stable_weak, frozen_until, analysed_at) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) "
      "ON CONFLICT (scenario, testbed_id, workload, variant, params_hash, metric) DO UPDATE SET "
      "points = excluded.points, last_run_id = excluded.last_run_id, "
      "parameters = excluded.parameters, resume_start = excluded.resume_start, "
      "stable_weak = excluded.stable_weak, frozen_until = excluded.frozen_until, "
      "analysed_at = excluded.analysed_at RETURNING id");
  if (!upsert) return upsert.error();
  std::vector<int64_t> stable(next.split.stable_weak.begin(), next.split.stable_weak.end());
  upsert->bind(1, s.scenario).bind(2, s.testbed_id).bind(3, s.workload).bind(4, s.variant);
  upsert->bind(5, s.params_hash).bind(6, std::string_view(metric));
  upsert->bind(7, static_cast<int64_t>(points.size())).bind(8, points.back().run_id);
  upsert->bind(9, parameters).bind(10, static_cast<int64_t>(next.split.resume_start));
  upsert->bind(11, to_json(stable)).bind(12, static_cast<int64_t>(next.frozen_until));
  upsert->bind(13, unix_now_ns());
  auto id_row = upsert->step();
  if (!id_row) return id_row.error();
  if (!*id_row) return Error{"change_series upsert returned no id"};
  const int64_t series_id = upsert->int64(0);
  if (auto done = upsert->run(); !done) return done.error();

  auto clear = db.prepare("DELETE FROM change_points WHERE series_id = ?1");
  if (!clear) return clear.error();
  clear->bind(1, series_id);
  if (auto ok = clear->run(); !ok) return ok.error();
  auto insert = db.prepare(
      "INSERT INTO change_points (series_id, run_id, previous_run_id, position, runs_before, "
      "runs_after, median_before, median_after, change, change_low, change_high, p_value) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
  if (!insert) return insert.error();
  for (const StoredChangePoint& c : describe(points, found)) {
    insert->reset();
    insert->bind(1, series_id).bind(2, c.run_id).bind(3, c.previous_run_id).bind(4, c.position);
    insert->bind(5, c.runs_before).bind(6, c.runs_after).bind(7, c.median_before);
    insert->bind(8, c.median_after).bind(9, c.change).bind(10, c.change_low);
    insert->bind(11, c.change_high).bind(12, c.p_value);
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

// Workload series matching `where` (a constant of this file) with parameters bound by `bind`.
template <typename Bind>
Expected<std::vector<WorkloadSeries>> workload_series(sqlite::Database& db, const char* where,
                                                      Bind bind) {
  auto stmt = db.prepare(
      std::string("SELECT DISTINCT r.scenario, r.testbed_id, w.name, w.variant, w.params_hash "
                  "FROM workloads w JOIN runs r ON r.id = w.run_id "
                  "WHERE r.status = 'ok' AND w.status = 'ok' ") +
      where);
  if (!stmt) return stmt.error();
  bind(*stmt);
  std::vector<WorkloadSeries> out;
  while (true) {
    auto row = stmt->step();
    if (!row) return row.error();
    if (!*row) return out;
    out.push_back({stmt->text(0), stmt->int64(1), stmt->text(2), stmt->text(3), stmt->text(4)});
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
  // The series as load_points reads it, newest first from before_run, then reversed.
  auto stmt = db_->prepare(
      "SELECT r.id, f.value FROM runs r INDEXED BY runs_by_scenario JOIN workloads w "
      "ON w.run_id = r.id AND w.name = ?3 AND w.variant = ?4 AND w.params_hash = ?5 "
      "AND w.status = 'ok' JOIN workload_figures f ON f.workload_id = w.id AND f.metric = ?8 "
      "WHERE r.scenario = ?1 AND r.testbed_id = ?2 AND r.status = 'ok' AND r.id < ?6 "
      "ORDER BY r.id DESC LIMIT ?7");
  if (!stmt) return Error{context + ": " + stmt.message()};
  stmt->bind(1, key.scenario).bind(2, key.testbed_id).bind(3, key.workload).bind(4, key.variant);
  stmt->bind(5, key.params_hash).bind(6, before_run).bind(7, static_cast<int64_t>(limit));
  stmt->bind(8, key.metric);
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
  auto series =
      workload_series(*db_, "AND r.id = ?1", [run](sqlite::Statement& s) { s.bind(1, run); });
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
  auto list = db_->prepare(
      "SELECT r.scenario, r.testbed_id, t.host, w.name, w.variant, w.params_hash, count(*), "
      "max(r.id) FROM workloads w JOIN runs r ON r.id = w.run_id "
      "JOIN testbeds t ON t.id = r.testbed_id "
      "WHERE r.status = 'ok' AND w.status = 'ok' AND (?1 = '' OR r.scenario = ?1) "
      "AND (?2 = '' OR w.name = ?2) AND (?3 = '' OR w.variant = ?3) "
      "AND (?4 = 0 OR r.testbed_id = ?4) AND (?5 = '' OR r.branch = ?5) "
      "GROUP BY r.scenario, r.testbed_id, w.name, w.variant, w.params_hash "
      "ORDER BY r.scenario, r.testbed_id, w.name, w.variant, w.params_hash");
  auto stored = db_->prepare(
      "SELECT id, points, last_run_id, parameters FROM change_series WHERE scenario = ?1 "
      "AND testbed_id = ?2 AND workload = ?3 AND variant = ?4 AND params_hash = ?5 "
      "AND metric = ?6");
  auto stored_points = db_->prepare(
      "SELECT c.run_id, c.previous_run_id, r.commit_id, p.commit_id, r.started_at, c.position, "
      "c.runs_before, c.runs_after, c.median_before, c.median_after, c.change, c.change_low, "
      "c.change_high, c.p_value FROM change_points c JOIN runs r ON r.id = c.run_id "
      "JOIN runs p ON p.id = c.previous_run_id WHERE c.series_id = ?1 ORDER BY c.position");
  if (!list) return Error{context + ": " + list.message()};
  if (!stored) return Error{context + ": " + stored.message()};
  if (!stored_points) return Error{context + ": " + stored_points.message()};
  list->bind(1, f.scenario).bind(2, f.workload).bind(3, f.variant).bind(4, f.testbed_id);
  list->bind(5, f.branch);
  const bool stored_options = parameters_json(options) == parameters_json(stored_change_options());
  const std::string parameters = parameters_json(options);

  std::vector<SeriesChanges> out;
  while (true) {
    auto row = list->step();
    if (!row) return Error{context + ": " + row.message()};
    if (!*row) break;
    const WorkloadSeries s{list->text(0), list->int64(1), list->text(3), list->text(4),
                           list->text(5)};
    const std::string host = list->text(2);
    std::optional<MetricPoints> points;  // read once, when some metric needs computing
    for (size_t m = 0; m < kMetrics.size(); ++m) {
      if (!f.metric.empty() && f.metric != kMetrics[m]) continue;
      const int64_t count = list->int64(6);
      const int64_t newest = list->int64(7);
      SeriesChanges sc;
      sc.key = {s.scenario, s.testbed_id, s.workload, s.variant, s.params_hash, kMetrics[m]};
      sc.testbed_host = host;
      sc.points = count;
      if (stored_options && f.branch.empty()) {
        stored->reset();
        stored->bind(1, s.scenario).bind(2, s.testbed_id).bind(3, s.workload).bind(4, s.variant);
        stored->bind(5, s.params_hash).bind(6, std::string_view(kMetrics[m]));
        auto st = stored->step();
        if (!st) return Error{context + ": " + st.message()};
        if (*st && stored->int64(1) == count && stored->int64(2) == newest &&
            stored->text(3) == parameters) {
          sc.from_store = true;
          stored_points->reset();
          stored_points->bind(1, stored->int64(0));
          while (true) {
            auto p = stored_points->step();
            if (!p) return Error{context + ": " + p.message()};
            if (!*p) break;
            const sqlite::Statement& q = *stored_points;
            StoredChangePoint c;
            c.run_id = q.int64(0);
            c.previous_run_id = q.int64(1);
            c.commit = q.text(2);
            c.previous_commit = q.text(3);
            c.started_at_ns = q.int64(4);
            c.position = q.int64(5);
            c.runs_before = q.int64(6);
            c.runs_after = q.int64(7);
            c.median_before = q.real(8);
            c.median_after = q.real(9);
            c.change = q.optional_real(10);
            c.change_low = q.optional_real(11);
            c.change_high = q.optional_real(12);
            c.p_value = q.real(13);
            sc.changes.push_back(std::move(c));
          }
        }
      }
      if (!sc.from_store) {
        if (!points) {
          auto loaded = load_points(*db_, s, f.branch);
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
  // Series order: scenario, testbed, workload, variant, metric (the query sorts by hash last).
  std::stable_sort(out.begin(), out.end(), [](const SeriesChanges& a, const SeriesChanges& b) {
    return std::tie(a.key.scenario, a.key.testbed_id, a.key.workload, a.key.variant, a.key.metric) <
           std::tie(b.key.scenario, b.key.testbed_id, b.key.workload, b.key.variant, b.key.metric);
  });
  return out;
}

}  // namespace benchgate::store
