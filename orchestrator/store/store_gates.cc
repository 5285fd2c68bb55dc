// Gate results: one evaluation of a run's gates per call, every input kept (docs/GATES.md).
#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/store_internal.h"

namespace benchgate::store {
namespace {

using namespace internal;  // NOLINT(google-build-using-namespace)

}  // namespace

Expected<void> Store::store_gate_results(int64_t run, const std::vector<GateRecord>& records) {
  const std::string context = "storing gate results of run " + std::to_string(run);
  auto fail = [&](const std::string& message) { return Error{context + ": " + message}; };
  auto tx = sqlite::Transaction::begin(*db_);
  if (!tx) return fail(tx.message());
  if (auto status = run_status(run); !status) return fail(status.message());
  auto next =
      db_->prepare("SELECT coalesce(max(evaluation), 0) + 1 FROM gate_results WHERE run_id = ?1");
  if (!next) return fail(next.message());
  next->bind(1, run);
  auto row = next->step();
  if (!row) return fail(row.message());
  const int64_t evaluation = next->int64(0);
  auto insert = db_->prepare(
      "INSERT INTO gate_results (run_id, evaluation, evaluated_at, gate_index, workload, variant, "
      "metric, kind, threshold, observed, baseline, baseline_runs, baseline_centre, effect, "
      "p_value, alpha, method, verdict, severity, explanation, underpowered, detectable) VALUES "
      "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
      "?20, ?21, ?22)");
  if (!insert) return fail(insert.message());
  const int64_t now = unix_now_ns();
  for (const GateRecord& g : records) {
    insert->reset();
    insert->bind(1, run)
        .bind(2, evaluation)
        .bind(3, now)
        .bind(4, static_cast<int64_t>(g.gate_index))
        .bind(5, g.workload)
        .bind(6, g.variant)
        .bind(7, g.metric)
        .bind(8, g.kind)
        .bind(9, g.threshold)
        .bind(10, g.observed)
        .bind(11, g.baseline)
        .bind(12, to_json(g.baseline_runs))
        .bind(13, g.baseline_centre)
        .bind(14, g.effect)
        .bind(15, g.p_value)
        .bind(16, g.alpha)
        .bind(17, g.method)
        .bind(18, g.verdict)
        .bind(19, g.severity)
        .bind(20, g.explanation)
        .bind(21, g.underpowered ? std::optional<int64_t>(*g.underpowered ? 1 : 0) : std::nullopt)
        .bind(22, g.detectable);
    if (auto ok = insert->run(); !ok) {
      return fail("gate " + std::to_string(g.gate_index) + " (" + g.metric + "): " + ok.message());
    }
  }
  if (auto ok = tx->commit(); !ok) return fail(ok.message());
  return {};
}

Expected<std::vector<GateRecord>> Store::gate_results(int64_t run) {
  auto stmt = db_->prepare(
      "SELECT gate_index, workload, variant, metric, kind, threshold, observed, baseline, "
      "baseline_runs, baseline_centre, effect, p_value, alpha, method, verdict, severity, "
      "explanation, underpowered, detectable FROM gate_results WHERE run_id = ?1 AND evaluation = "
      "(SELECT max(evaluation) FROM gate_results WHERE run_id = ?1) ORDER BY gate_index, id");
  if (!stmt) return Error{"reading gate results: " + stmt.message()};
  stmt->bind(1, run);
  std::vector<GateRecord> out;
  while (true) {
    auto row = stmt->step();
    if (!row) return Error{"reading gate results: " + row.message()};
    if (!*row) return out;
    const sqlite::Statement& s = *stmt;
    GateRecord g;
    g.gate_index = static_cast<int>(s.int64(0));
    g.workload = s.text(1);
    g.variant = s.text(2);
    g.metric = s.text(3);
    g.kind = s.text(4);
    g.threshold = s.optional_real(5);
    g.observed = s.optional_real(6);
    g.baseline = s.text(7);
    g.baseline_runs = ints_from_json(s.text(8));
    g.baseline_centre = s.optional_real(9);
    g.effect = s.optional_real(10);
    g.p_value = s.optional_real(11);
    g.alpha = s.optional_real(12);
    g.method = s.text(13);
    g.verdict = s.text(14);
    g.severity = s.text(15);
    g.explanation = s.text(16);
    if (auto flag = s.optional_int64(17)) g.underpowered = *flag != 0;
    g.detectable = s.optional_real(18);
    out.push_back(std::move(g));
  }
}

Expected<void> Store::store_calibrations(const std::vector<CalibrationRecord>& records) {
  const std::string context = "storing calibrations";
  auto fail = [&](const std::string& message) { return Error{context + ": " + message}; };
  auto tx = sqlite::Transaction::begin(*db_);
  if (!tx) return fail(tx.message());
  auto insert = db_->prepare(
      "INSERT INTO calibrations (testbed_id, scenario, workload, variant, params_hash, metric, "
      "calibrated_at, runs, run_ids, mean, cv, log_sd, alpha, detectable_1, detectable_5) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)");
  if (!insert) return fail(insert.message());
  const int64_t now = unix_now_ns();
  for (const CalibrationRecord& c : records) {
    insert->reset();
    insert->bind(1, c.series.testbed_id)
        .bind(2, c.series.scenario)
        .bind(3, c.series.workload)
        .bind(4, c.series.variant)
        .bind(5, c.series.params_hash)
        .bind(6, c.series.metric)
        .bind(7, c.calibrated_at_ns ? c.calibrated_at_ns : now)
        .bind(8, static_cast<int64_t>(c.runs))
        .bind(9, to_json(c.run_ids))
        .bind(10, c.mean)
        .bind(11, c.cv)
        .bind(12, c.log_sd)
        .bind(13, c.alpha)
        .bind(14, c.detectable_1)
        .bind(15, c.detectable_5);
    if (auto ok = insert->run(); !ok) {
      return fail(c.series.workload + " " + c.series.metric + ": " + ok.message());
    }
  }
  if (auto ok = tx->commit(); !ok) return fail(ok.message());
  return {};
}

Expected<std::optional<CalibrationRecord>> Store::calibration(const SeriesKey& series) {
  const std::string context = "calibration of " + series.workload + " " + series.metric + ": ";
  auto stmt = db_->prepare(
      "SELECT calibrated_at, runs, run_ids, mean, cv, log_sd, alpha, detectable_1, detectable_5 "
      "FROM calibrations WHERE testbed_id = ?1 AND scenario = ?2 AND workload = ?3 AND "
      "variant = ?4 AND params_hash = ?5 AND metric = ?6 ORDER BY id DESC LIMIT 1");
  if (!stmt) return Error{context + stmt.message()};
  stmt->bind(1, series.testbed_id)
      .bind(2, series.scenario)
      .bind(3, series.workload)
      .bind(4, series.variant)
      .bind(5, series.params_hash)
      .bind(6, series.metric);
  auto row = stmt->step();
  if (!row) return Error{context + row.message()};
  if (!*row) return std::optional<CalibrationRecord>();
  const sqlite::Statement& s = *stmt;
  CalibrationRecord c;
  c.series = series;
  c.calibrated_at_ns = s.int64(0);
  c.runs = static_cast<int>(s.int64(1));
  c.run_ids = ints_from_json(s.text(2));
  c.mean = s.real(3);
  c.cv = s.real(4);
  c.log_sd = s.real(5);
  c.alpha = s.real(6);
  c.detectable_1 = s.real(7);
  c.detectable_5 = s.real(8);
  return std::optional<CalibrationRecord>(std::move(c));
}

}  // namespace benchgate::store
