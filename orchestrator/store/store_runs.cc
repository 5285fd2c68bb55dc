// Runs: begin, finish, list, read back with workloads and repetitions.
#include <sqlite3.h>

#include "orchestrator/store/sha256.h"
#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/store_internal.h"

namespace benchgate::store {
namespace {

using namespace internal;  // NOLINT(google-build-using-namespace)

constexpr const char* kRunColumns =
    "runs.id, runs.scenario, runs.status, runs.started_at, runs.finished_at, runs.exit_code, "
    "runs.commit_id, runs.branch, runs.labels, runs.testbed_id, runs.error";

RunSummary read_summary(const sqlite::Statement& s) {
  RunSummary r;
  r.id = s.int64(0);
  r.scenario = s.text(1);
  r.status = s.text(2);
  r.started_at_ns = s.int64(3);
  r.finished_at_ns = s.optional_int64(4);
  if (!s.is_null(5)) r.exit_code = static_cast<int>(s.int64(5));
  r.commit = s.text(6);
  r.branch = s.text(7);
  r.labels = string_map_from_json(s.text(8));
  r.testbed_id = s.int64(9);
  r.error = s.text(10);
  return r;
}

std::optional<std::vector<uint8_t>> optional_blob(const sqlite::Statement& s, int column) {
  if (s.is_null(column)) return std::nullopt;
  return s.blob(column);
}

}  // namespace

Expected<int64_t> Store::upsert_testbed(const Testbed& t) {
  const std::string fingerprint = t.fingerprint();
  auto insert = db_->prepare(
      "INSERT INTO testbeds (fingerprint, host, cpu_model, cores, kernel, governor, compiler, "
      "build_flags, first_seen) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) "
      "ON CONFLICT (fingerprint) DO NOTHING");
  if (!insert) return insert.error();
  insert->bind(1, fingerprint)
      .bind(2, t.host)
      .bind(3, t.cpu_model)
      .bind(4, static_cast<int64_t>(t.cores))
      .bind(5, t.kernel)
      .bind(6, t.governor)
      .bind(7, t.compiler)
      .bind(8, t.build_flags)
      .bind(9, unix_now_ns());
  if (auto ok = insert->run(); !ok) return ok.error();
  auto select = db_->prepare("SELECT id FROM testbeds WHERE fingerprint = ?1");
  if (!select) return select.error();
  select->bind(1, fingerprint);
  auto row = select->step();
  if (!row) return row.error();
  if (!*row) return Error{"testbed " + fingerprint + " vanished after insert"};
  return select->int64(0);
}

Expected<std::string> Store::run_status(int64_t run) {
  auto stmt = db_->prepare("SELECT status FROM runs WHERE id = ?1");
  if (!stmt) return stmt.error();
  stmt->bind(1, run);
  auto row = stmt->step();
  if (!row) return row.error();
  if (!*row) return Error{"run " + std::to_string(run) + " does not exist"};
  return stmt->text(0);
}

Expected<int64_t> Store::begin_run(const RunInfo& info) {
  auto tx = sqlite::Transaction::begin(*db_);
  if (!tx) return Error{"begin_run: " + tx.message()};
  auto testbed = upsert_testbed(info.testbed);
  if (!testbed) return Error{"begin_run: storing the testbed: " + testbed.message()};
  auto insert = db_->prepare(
      "INSERT INTO runs (scenario, scenario_text, scenario_hash, started_at, status, commit_id, "
      "branch, labels, testbed_id, owner) "
      "VALUES (?1, ?2, ?3, ?4, 'running', ?5, ?6, ?7, ?8, ?9)");
  if (!insert) return Error{"begin_run: " + insert.message()};
  insert->bind(1, info.scenario)
      .bind(2, info.scenario_text)
      .bind(3, sha256_hex(info.scenario_text))
      .bind(4, info.started_at_ns != 0 ? info.started_at_ns : unix_now_ns())
      .bind(5, info.commit)
      .bind(6, info.branch)
      .bind(7, to_json(info.labels))
      .bind(8, *testbed)
      .bind(9, owner_);
  if (auto ok = insert->run(); !ok) return Error{"begin_run: " + ok.message()};
  const int64_t id = db_->last_insert_rowid();
  if (auto ok = tx->commit(); !ok) return Error{"begin_run: " + ok.message()};
  return id;
}

Expected<void> Store::finish_run(int64_t run, const std::string& status, int exit_code,
                                 const std::string& error) {
  if (status != "ok" && status != "failed" && status != "aborted") {
    return Error{"finish_run: status must be ok, failed or aborted, not '" + status + "'"};
  }
  auto update = db_->prepare(
      "UPDATE runs SET status = ?1, exit_code = ?2, finished_at = ?3, error = ?5 "
      "WHERE id = ?4 AND status = 'running'");
  if (!update) return Error{"finish_run: " + update.message()};
  auto finish = [&]() {
    update->reset();
    update->bind(1, status).bind(2, static_cast<int64_t>(exit_code)).bind(3, unix_now_ns());
    update->bind(4, run).bind(5, error);
    return update->run();
  };
  if (auto ok = finish(); !ok) {
    // A full disk: the WAL has no room for the run's end, so it would stay 'running' (and be
    // called 'abandoned' later). Checkpointing the committed frames into the database and
    // truncating the WAL gives back the space the update needs (unless the database file
    // itself had to grow for them).
    if ((db_->last_error_code() & 0xff) != SQLITE_FULL) return Error{"finish_run: " + ok.message()};
    if (auto checkpoint = db_->exec("PRAGMA wal_checkpoint(TRUNCATE)"); !checkpoint) {
      return Error{"finish_run: " + ok.message()};
    }
    if (auto again = finish(); !again) return Error{"finish_run: " + again.message()};
  }
  if (db_->changes() == 1) return {};
  auto current = run_status(run);
  if (!current) return Error{"finish_run: " + current.message()};
  return Error{"finish_run: run " + std::to_string(run) + " is not running (status " + *current +
               ")"};
}

Expected<std::vector<RunSummary>> Store::list_runs(int limit, const std::string& scenario) {
  const std::string sql = std::string("SELECT ") + kRunColumns + " FROM runs " +
                          (scenario.empty() ? "" : "WHERE scenario = ?2 ") +
                          "ORDER BY id DESC LIMIT ?1";
  auto stmt = db_->prepare(sql);
  if (!stmt) return Error{"list_runs: " + stmt.message()};
  stmt->bind(1, static_cast<int64_t>(limit > 0 ? limit : -1));
  if (!scenario.empty()) stmt->bind(2, scenario);
  std::vector<RunSummary> out;
  while (true) {
    auto row = stmt->step();
    if (!row) return Error{"list_runs: " + row.message()};
    if (!*row) return out;
    out.push_back(read_summary(*stmt));
  }
}

Expected<RunDetail> Store::get_run(int64_t run) {
  RunDetail detail;
  {
    auto stmt = db_->prepare(
        std::string("SELECT ") + kRunColumns +
        ", scenario_text, scenario_hash, t.host, t.cpu_model, t.cores, t.kernel, t.governor, "
        "t.compiler, t.build_flags FROM runs JOIN testbeds t ON t.id = runs.testbed_id "
        "WHERE runs.id = ?1");
    if (!stmt) return Error{"get_run: " + stmt.message()};
    stmt->bind(1, run);
    auto row = stmt->step();
    if (!row) return Error{"get_run: " + row.message()};
    if (!*row) return Error{"run " + std::to_string(run) + " does not exist"};
    detail.run = read_summary(*stmt);
    detail.scenario_text = stmt->text(11);
    detail.scenario_hash = stmt->text(12);
    Testbed& t = detail.testbed;
    t.host = stmt->text(13);
    t.cpu_model = stmt->text(14);
    t.cores = static_cast<uint32_t>(stmt->int64(15));
    t.kernel = stmt->text(16);
    t.governor = stmt->text(17);
    t.compiler = stmt->text(18);
    t.build_flags = stmt->text(19);
  }
  auto workloads = db_->prepare(
      "SELECT id, name, variant, protocol, params, params_hash, status, error FROM workloads "
      "WHERE run_id = ?1 ORDER BY id");
  auto reps = db_->prepare(
      "SELECT id, idx, start_ns, duration_ns, data_window_ns, operations, successes, "
      "errors_total, errors_by_kind, bytes_sent, bytes_received, late_sends, unsent, ops_per_s, "
      "bytes_per_s, p50_ns, p75_ns, p90_ns, p95_ns, p99_ns, p999_ns, max_ns, mean_ns, "
      "latency_hdr, service_time_hdr, worker_cpu_s, worker_cpu_utilization, router_requests, "
      "router_cpu_s, router_rss_bytes, router_handling_hdr, flags, stopped, window_successes, "
      "payload_bytes_per_s, start_skew_ns, worker_cpu_wait_share, latency_clamped, "
      "not_measured, tool_latency "
      "FROM repetitions WHERE workload_id = ?1 ORDER BY idx");
  auto metrics = db_->prepare("SELECT name, value FROM router_metrics WHERE repetition_id = ?1");
  auto seconds = db_->prepare(
      "SELECT second, ops_per_s, errors, p50_ns, p99_ns, max_ns FROM timeline "
      "WHERE repetition_id = ?1 ORDER BY second");
  auto shares = db_->prepare(
      "SELECT worker, operations, successes, errors_total, ops_per_s, p99_ns, max_ns, "
      "cpu_utilization FROM worker_windows WHERE repetition_id = ?1 ORDER BY worker");
  if (!workloads || !reps || !metrics || !seconds || !shares) {
    return Error{"get_run: " + db_->last_error()};
  }
  workloads->bind(1, run);
  while (true) {
    auto row = workloads->step();
    if (!row) return Error{"get_run: " + row.message()};
    if (!*row) break;
    StoredWorkload w;
    w.id = workloads->int64(0);
    w.name = workloads->text(1);
    w.variant = workloads->text(2);
    w.protocol = workloads->text(3);
    w.params_json = workloads->text(4);
    w.params_hash = workloads->text(5);
    w.status = workloads->text(6);
    w.error = workloads->text(7);
    reps->reset();
    reps->bind(1, w.id);
    while (true) {
      auto rep_row = reps->step();
      if (!rep_row) return Error{"get_run: " + rep_row.message()};
      if (!*rep_row) break;
      const sqlite::Statement& s = *reps;
      StoredRepetition r;
      const int64_t rep_id = s.int64(0);
      r.index = static_cast<uint32_t>(s.int64(1));
      r.start_ns = s.int64(2);
      r.duration_ns = s.int64(3);
      r.data_window_ns = s.optional_int64(4);
      r.operations = as_uint(s.int64(5));
      r.successes = as_uint(s.int64(6));
      r.errors_total = as_uint(s.int64(7));
      r.errors = count_map_from_json(s.text(8));
      if (auto v = s.optional_int64(9)) r.bytes_sent = as_uint(*v);
      if (auto v = s.optional_int64(10)) r.bytes_received = as_uint(*v);
      r.late_sends = as_uint(s.int64(11));
      r.unsent = as_uint(s.int64(12));
      r.ops_per_s = s.real(13);
      r.bytes_per_s = s.optional_real(14);
      r.p50_ns = s.optional_int64(15);
      r.p75_ns = s.optional_int64(16);
      r.p90_ns = s.optional_int64(17);
      r.p95_ns = s.optional_int64(18);
      r.p99_ns = s.optional_int64(19);
      r.p999_ns = s.optional_int64(20);
      r.max_ns = s.optional_int64(21);
      r.mean_ns = s.optional_real(22);
      r.latency_hdr = s.blob(23);
      r.service_time_hdr = optional_blob(s, 24);
      r.worker_cpu_s = s.optional_real(25);
      r.worker_cpu_utilization = s.optional_real(26);
      r.router_collected = !s.is_null(27);
      r.router_requests = as_uint(s.int64(27));
      r.router_sampled = !s.is_null(28);
      r.router_cpu_s = s.real(28);
      r.router_rss_bytes = as_uint(s.int64(29));
      r.router_handling_hdr = optional_blob(s, 30);
      r.flags = strings_from_json(s.text(31));
      r.stopped = strings_from_json(s.text(32));
      if (auto v = s.optional_int64(33)) r.window_successes = as_uint(*v);
      r.payload_bytes_per_s = s.optional_real(34);
      r.start_skew_ns = s.optional_int64(35);
      r.worker_cpu_wait_share = s.optional_real(36);
      r.latency_clamped = as_uint(s.int64(37));
      r.not_measured = strings_from_json(s.text(38));
      if (!s.is_null(39)) r.tool_latency_json = s.text(39);
      seconds->reset();
      seconds->bind(1, rep_id);
      while (true) {
        auto i = seconds->step();
        if (!i) return Error{"get_run: " + i.message()};
        if (!*i) break;
        const sqlite::Statement& q = *seconds;
        r.timeline.push_back(StoredSecond{static_cast<uint32_t>(q.int64(0)), q.real(1),
                                          as_uint(q.int64(2)), q.optional_int64(3),
                                          q.optional_int64(4), q.optional_int64(5)});
      }
      shares->reset();
      shares->bind(1, rep_id);
      while (true) {
        auto i = shares->step();
        if (!i) return Error{"get_run: " + i.message()};
        if (!*i) break;
        const sqlite::Statement& q = *shares;
        r.workers.push_back(StoredWorkerShare{static_cast<uint32_t>(q.int64(0)),
                                              as_uint(q.int64(1)), as_uint(q.int64(2)),
                                              as_uint(q.int64(3)), q.real(4), q.optional_int64(5),
                                              q.optional_int64(6), q.optional_real(7)});
      }
      metrics->reset();
      metrics->bind(1, rep_id);
      while (true) {
        auto m = metrics->step();
        if (!m) return Error{"get_run: " + m.message()};
        if (!*m) break;
        r.router_metrics[metrics->text(0)] = as_uint(metrics->int64(1));
      }
      w.repetitions.push_back(std::move(r));
    }
    detail.workloads.push_back(std::move(w));
  }
  return detail;
}

}  // namespace benchgate::store
