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
      "p_value, alpha, method, verdict, severity, explanation) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
      "?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)");
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
        .bind(20, g.explanation);
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
      "explanation FROM gate_results WHERE run_id = ?1 AND evaluation = "
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
    out.push_back(std::move(g));
  }
}

}  // namespace benchgate::store
