// Gate results: one evaluation of a run's gates per call, every input kept (docs/GATES.md).
#include <cstdint>

#include "orchestrator/store/record_columns.h"
#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/store_internal.h"

namespace benchgate::store {
Expected<void> Store::store_gate_results(int64_t run, const std::vector<GateRecord>& records) {
  const std::string context = "storing gate results of run " + std::to_string(run);
  auto fail = [&](const std::string& message) { return Error{context + ": " + message}; };
  auto tx = sqlite::Transaction::begin(*db_);
  if (!tx) return fail(tx.message());
  if (auto status = run_status(run); !status) return fail(status.message());
  auto next = db_->prepare(
      "SELECT coalesce(max(evaluation), 0) + 1 FROM gate_results WHERE run_id = :run_id");
  if (!next) return fail(next.message());
  next->bind(next->parameter(":run_id"), run);
  auto row = next->step();
  if (!row) return fail(row.message());
  const int64_t evaluation = next->int64(0);
  auto insert = db_->prepare(
      columns::insert_sql("gate_results", columns::kGateKept, columns::gate_columns()));
  if (!insert) return fail(insert.message());
  const int64_t now = unix_now_ns();
  for (const GateRecord& g : records) {
    insert->reset();
    insert->bind(insert->parameter(":run_id"), run)
        .bind(insert->parameter(":evaluation"), evaluation)
        .bind(insert->parameter(":evaluated_at"), now);
    columns::bind_record(*insert, columns::gate_columns(), g);
    if (auto ok = insert->run(); !ok) {
      return fail("gate " + std::to_string(g.gate_index) + " (" + g.metric + "): " + ok.message());
    }
  }
  if (auto ok = tx->commit(); !ok) return fail(ok.message());
  return {};
}

Expected<std::vector<GateRecord>> Store::gate_results(int64_t run, Evaluation which) {
  const std::string evaluation = which == Evaluation::kFirst ? "min" : "max";
  auto stmt = db_->prepare("SELECT " + columns::names(columns::gate_columns()) +
                           " FROM gate_results WHERE run_id = :run_id AND evaluation = (SELECT " +
                           evaluation +
                           "(evaluation) FROM gate_results WHERE run_id = :run_id) "
                           "ORDER BY gate_index, id");
  if (!stmt) return Error{"reading gate results: " + stmt.message()};
  stmt->bind(stmt->parameter(":run_id"), run);
  std::vector<GateRecord> out;
  while (true) {
    auto row = stmt->step();
    if (!row) return Error{"reading gate results: " + row.message()};
    if (!*row) return out;
    GateRecord g;
    columns::read_record(*stmt, 0, columns::gate_columns(), g);
    out.push_back(std::move(g));
  }
}

Expected<void> Store::store_calibrations(const std::vector<CalibrationRecord>& records) {
  const std::string context = "storing calibrations";
  auto fail = [&](const std::string& message) { return Error{context + ": " + message}; };
  auto tx = sqlite::Transaction::begin(*db_);
  if (!tx) return fail(tx.message());
  auto insert =
      db_->prepare(columns::insert_sql("calibrations", {}, columns::calibration_columns()));
  if (!insert) return fail(insert.message());
  // Read inside the write transaction: a run begun after it gets a larger id.
  auto newest = db_->prepare("SELECT coalesce(max(id), 0) FROM runs");
  if (!newest) return fail(newest.message());
  auto newest_row = newest->step();
  if (!newest_row) return fail(newest_row.message());
  const int64_t last_run_id = newest->int64(0);
  const int64_t now = unix_now_ns();
  for (CalibrationRecord c : records) {
    if (c.calibrated_at_ns == 0) c.calibrated_at_ns = now;
    if (c.last_run_id == 0) c.last_run_id = last_run_id;
    insert->reset();
    columns::bind_record(*insert, columns::calibration_columns(), c);
    if (auto ok = insert->run(); !ok) {
      return fail(c.series.workload + " " + c.series.metric + ": " + ok.message());
    }
  }
  if (auto ok = tx->commit(); !ok) return fail(ok.message());
  return {};
}

Expected<std::optional<CalibrationRecord>> Store::calibration(const SeriesKey& series,
                                                              int64_t before_run) {
  const std::string context = "calibration of " + series.workload + " " + series.metric + ": ";
  auto stmt =
      db_->prepare("SELECT " + columns::names(columns::calibration_columns()) +
                   " FROM calibrations WHERE testbed_id = :testbed_id AND scenario = :scenario AND "
                   "workload = :workload AND variant = :variant AND params_hash = :params_hash AND "
                   "metric = :metric AND last_run_id < :before ORDER BY id DESC LIMIT 1");
  if (!stmt) return Error{context + stmt.message()};
  stmt->bind(stmt->parameter(":testbed_id"), series.testbed_id)
      .bind(stmt->parameter(":scenario"), series.scenario)
      .bind(stmt->parameter(":workload"), series.workload)
      .bind(stmt->parameter(":variant"), series.variant)
      .bind(stmt->parameter(":params_hash"), series.params_hash)
      .bind(stmt->parameter(":metric"), series.metric)
      .bind(stmt->parameter(":before"), before_run > 0 ? before_run : INT64_MAX);
  auto row = stmt->step();
  if (!row) return Error{context + row.message()};
  if (!*row) return std::optional<CalibrationRecord>();
  CalibrationRecord c;
  columns::read_record(*stmt, 0, columns::calibration_columns(), c);
  return std::optional<CalibrationRecord>(std::move(c));
}

}  // namespace benchgate::store
