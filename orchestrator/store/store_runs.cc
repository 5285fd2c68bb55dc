// Runs: begin, finish, list, read back with workloads and repetitions.
#include <sqlite3.h>

#include "orchestrator/store/record_columns.h"
#include "orchestrator/store/sha256.h"
#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/store_internal.h"

namespace benchgate::store {
namespace {

// "runs.id, runs.scenario, ...": the row id, then run_columns().
std::string run_select_list() {
  return "runs.id, " + columns::names(columns::run_columns(), "runs.");
}

RunSummary read_summary(const sqlite::Statement& s) {
  RunSummary r;
  r.id = s.int64(0);
  columns::read_record(s, 1, columns::run_columns(), r);
  return r;
}

// Steps through every row of `stmt`, calling `row` for each; the first error ends it.
template <typename F>
Expected<void> each_row(sqlite::Statement& stmt, F&& row) {
  while (true) {
    auto next = stmt.step();
    if (!next) return next.error();
    if (!*next) return {};
    row(stmt);
  }
}

}  // namespace

Expected<int64_t> Store::upsert_testbed(const Testbed& t) {
  const std::string fingerprint = t.fingerprint();
  auto insert = db_->prepare(
      columns::insert_sql("testbeds", columns::kTestbedKept, columns::testbed_columns()) +
      " ON CONFLICT (fingerprint) DO NOTHING");
  if (!insert) return insert.error();
  insert->bind(insert->parameter(":fingerprint"), fingerprint)
      .bind(insert->parameter(":first_seen"), unix_now_ns());
  columns::bind_record(*insert, columns::testbed_columns(), t);
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
  if (!*row) {
    return Error{"run " + std::to_string(run) + " does not exist", ErrorKind::kInvalidInput};
  }
  return stmt->text(0);
}

Expected<int64_t> Store::begin_run(const RunInfo& info) {
  auto tx = sqlite::Transaction::begin(*db_);
  if (!tx) return Error{"begin_run: " + tx.message()};
  auto testbed = upsert_testbed(info.testbed);
  if (!testbed) return Error{"begin_run: storing the testbed: " + testbed.message()};
  RunSummary summary;
  summary.scenario = info.scenario;
  summary.status = "running";
  summary.started_at_ns = info.started_at_ns != 0 ? info.started_at_ns : unix_now_ns();
  summary.commit = info.commit;
  summary.branch = info.branch;
  summary.labels = info.labels;
  summary.testbed_id = *testbed;
  summary.origin = info.origin;
  RunDetail text;
  text.scenario_text = info.scenario_text;
  text.scenario_hash = sha256_hex(info.scenario_text);
  std::vector<std::string_view> names(std::begin(columns::kRunKept), std::end(columns::kRunKept));
  for (const auto& c : columns::run_text_columns()) names.push_back(c.name);
  auto insert = db_->prepare(columns::insert_sql("runs", names, columns::run_columns()));
  if (!insert) return Error{"begin_run: " + insert.message()};
  insert->bind(insert->parameter(":owner"), owner_);
  columns::bind_record(*insert, columns::run_columns(), summary);
  columns::bind_record(*insert, columns::run_text_columns(), text);
  if (auto ok = insert->run(); !ok) return Error{"begin_run: " + ok.message()};
  const int64_t id = db_->last_insert_rowid();
  // Which binaries the run measured (schema version 19), in the order given.
  if (!info.binaries.empty()) {
    auto binary = db_->prepare(
        columns::insert_sql("run_binaries", columns::kBinaryKept, columns::binary_columns()));
    if (!binary) return Error{"begin_run: " + binary.message()};
    for (const MeasuredBinary& b : info.binaries) {
      binary->reset();
      binary->bind(binary->parameter(":run_id"), id);
      columns::bind_record(*binary, columns::binary_columns(), b);
      if (auto ok = binary->run(); !ok) {
        return Error{"begin_run: storing the " + b.role + " binary: " + ok.message()};
      }
    }
  }
  if (auto ok = tx->commit(); !ok) return Error{"begin_run: " + ok.message()};
  return id;
}

std::string Store::refused_end_status(const std::string& status) {
  return status == "aborted" ? status : "failed";
}

std::string Store::refused_end_reason(const std::string& error, const std::string& why) {
  return (error.empty() ? "" : error + "; ") + "cannot finish run: " + why;
}

Expected<void> Store::finish_run(int64_t run, const std::string& status, int exit_code,
                                 const std::string& error, int failed_exit_code) {
  if (status != "ok" && status != "failed" && status != "aborted") {
    return Error{"finish_run: status must be ok, failed or aborted, not '" + status + "'"};
  }
  // The columns of run_columns() a run's end sets, by name.
  auto update = db_->prepare(
      "UPDATE runs SET status = :status, exit_code = :exit_code, finished_at = :finished_at, "
      "error = :error WHERE id = :id AND status = 'running'");
  if (!update) return Error{"finish_run: " + update.message()};
  auto finish = [&](const std::string& as, int code, const std::string& why) {
    update->reset();
    update->bind(update->parameter(":status"), as)
        .bind(update->parameter(":exit_code"), static_cast<int64_t>(code))
        .bind(update->parameter(":finished_at"), unix_now_ns())
        .bind(update->parameter(":error"), why)
        .bind(update->parameter(":id"), run);
    return update->run();
  };
  // The end as asked could not be written: once more as a failure that says why, which
  // succeeds where the cause has passed (a lock released meanwhile) or was the values.
  auto refused = [&](const std::string& why) -> Error {
    const std::string as = refused_end_status(status);
    if (finish(as, failed_exit_code, refused_end_reason(error, why)) && db_->changes() == 1) {
      return Error{"finish_run: " + why + "; run " + std::to_string(run) + " is stored as " + as +
                   " with exit code " + std::to_string(failed_exit_code)};
    }
    // Not written at all: `why` is the cause, for the caller's refused_end_reason.
    return Error::caused("finish_run", Error{why});
  };
  if (auto ok = finish(status, exit_code, error); !ok) {
    // A full disk: the WAL has no room for the run's end, so it would stay 'running' (and be
    // called 'abandoned' later). Checkpointing the committed frames into the database and
    // truncating the WAL gives back the space the update needs (unless the database file
    // itself had to grow for them).
    if ((db_->last_error_code() & 0xff) != SQLITE_FULL) return refused(ok.message());
    if (auto checkpoint = db_->exec("PRAGMA wal_checkpoint(TRUNCATE)"); !checkpoint) {
      return refused(ok.message());
    }
    if (auto again = finish(status, exit_code, error); !again) return refused(again.message());
  }
  if (db_->changes() == 1) return {};
  auto current = run_status(run);
  if (!current) return Error{"finish_run: " + current.message()};
  return Error{"finish_run: run " + std::to_string(run) + " is not running (status " + *current +
               ")"};
}

Expected<void> Store::raise_exit_code(int64_t run, int exit_code, const std::string& why) {
  const std::string context = "recording the exit code of run " + std::to_string(run);
  auto status = run_status(run);
  if (!status) return Error::caused(context, status.error());
  if (*status == "running") return Error{context + ": the run is not finished"};
  auto update = db_->prepare(
      "UPDATE runs SET exit_code = :exit_code, "
      "error = CASE WHEN error IS NULL OR error = '' THEN :why ELSE error || '; ' || :why END "
      "WHERE id = :id AND (exit_code IS NULL OR exit_code < :exit_code)");
  if (!update) return Error{context + ": " + update.message()};
  update->bind(update->parameter(":exit_code"), static_cast<int64_t>(exit_code))
      .bind(update->parameter(":why"), why)
      .bind(update->parameter(":id"), run);
  if (auto ok = update->run(); !ok) return Error{context + ": " + ok.message()};
  return {};
}

Expected<std::vector<RunSummary>> Store::list_runs(int limit, const std::string& scenario,
                                                   int64_t before) {
  std::string where;
  if (!scenario.empty()) where += "scenario = :scenario";
  if (before > 0) where += std::string(where.empty() ? "" : " AND ") + "id < :before";
  const std::string sql = "SELECT " + run_select_list() + " FROM runs " +
                          (where.empty() ? "" : "WHERE " + where + " ") +
                          "ORDER BY id DESC LIMIT :limit";
  auto stmt = db_->prepare(sql);
  if (!stmt) return Error{"list_runs: " + stmt.message()};
  stmt->bind(stmt->parameter(":limit"), static_cast<int64_t>(limit > 0 ? limit : -1));
  if (!scenario.empty()) stmt->bind(stmt->parameter(":scenario"), scenario);
  if (before > 0) stmt->bind(stmt->parameter(":before"), before);
  std::vector<RunSummary> out;
  if (auto rows =
          each_row(*stmt, [&](const sqlite::Statement& s) { out.push_back(read_summary(s)); });
      !rows) {
    return Error{"list_runs: " + rows.message()};
  }
  return out;
}

Expected<std::vector<RunSummary>> Store::latest_ended_runs(int limit,
                                                           const std::string& submitted_by) {
  // A run's exit code and end are written as it ends (finish_run): a running run has neither,
  // and one a later open found abandoned has no exit code. The side is the one rule
  // (internal::series_side_sql, of a run row `r`).
  const std::string sql =
      "SELECT " + run_select_list() +
      " FROM runs WHERE id IN (SELECT max(r.id) FROM runs r WHERE r.status IN "
      "('ok', 'failed', 'aborted') AND r.exit_code IS NOT NULL AND r.finished_at IS NOT NULL "
      "AND (:submitted_by = '' OR (" +
      internal::series_side_sql() +
      ") = :submitted_by) GROUP BY r.scenario) ORDER BY id DESC LIMIT :limit";
  auto stmt = db_->prepare(sql);
  if (!stmt) return Error{"latest_ended_runs: " + stmt.message()};
  stmt->bind(stmt->parameter(":limit"), static_cast<int64_t>(limit > 0 ? limit : -1));
  stmt->bind(stmt->parameter(":submitted_by"), submitted_by);
  std::vector<RunSummary> out;
  if (auto rows =
          each_row(*stmt, [&](const sqlite::Statement& s) { out.push_back(read_summary(s)); });
      !rows) {
    return Error{"latest_ended_runs: " + rows.message()};
  }
  return out;
}

Expected<RunDetail> Store::get_run(int64_t run) {
  RunDetail detail;
  {
    const int text_first = 1 + static_cast<int>(columns::run_columns().size());
    const int testbed_first = text_first + static_cast<int>(columns::run_text_columns().size());
    auto stmt = db_->prepare("SELECT " + run_select_list() + ", " +
                             columns::names(columns::run_text_columns(), "runs.") + ", " +
                             columns::names(columns::testbed_columns(), "t.") +
                             " FROM runs JOIN testbeds t ON t.id = runs.testbed_id "
                             "WHERE runs.id = :id");
    if (!stmt) return Error{"get_run: " + stmt.message()};
    stmt->bind(stmt->parameter(":id"), run);
    auto row = stmt->step();
    if (!row) return Error{"get_run: " + row.message()};
    if (!*row) {
      return Error{"run " + std::to_string(run) + " does not exist", ErrorKind::kInvalidInput};
    }
    detail.run = read_summary(*stmt);
    columns::read_record(*stmt, text_first, columns::run_text_columns(), detail);
    columns::read_record(*stmt, testbed_first, columns::testbed_columns(), detail.testbed);
  }
  // Each query: the row id (where the table has one), then the record's columns.
  auto workloads = db_->prepare("SELECT id, " + columns::names(columns::workload_columns()) +
                                " FROM workloads WHERE run_id = :run_id ORDER BY id");
  auto figures = db_->prepare("SELECT " + columns::names(columns::figure_columns()) +
                              " FROM workload_figures WHERE workload_id = :workload_id");
  auto reps = db_->prepare("SELECT id, " + columns::names(columns::repetition_columns()) +
                           " FROM repetitions WHERE workload_id = :workload_id ORDER BY idx");
  auto metrics = db_->prepare("SELECT " + columns::names(columns::router_counter_columns()) +
                              " FROM router_metrics WHERE repetition_id = :repetition_id");
  auto seconds =
      db_->prepare("SELECT " + columns::names(columns::timeline_columns()) +
                   " FROM timeline WHERE repetition_id = :repetition_id ORDER BY second");
  auto shares =
      db_->prepare("SELECT " + columns::names(columns::worker_window_columns()) +
                   " FROM worker_windows WHERE repetition_id = :repetition_id ORDER BY worker");
  if (!workloads || !figures || !reps || !metrics || !seconds || !shares) {
    return Error{"get_run: " + db_->last_error()};
  }
  auto fail = [](const Error& e) { return Error{"get_run: " + e.message}; };
  workloads->bind(workloads->parameter(":run_id"), run);
  std::vector<StoredWorkload> stored;
  if (auto ok = each_row(*workloads,
                         [&](const sqlite::Statement& s) {
                           StoredWorkload w;
                           w.id = s.int64(0);
                           columns::read_record(s, 1, columns::workload_columns(), w);
                           stored.push_back(std::move(w));
                         });
      !ok) {
    return fail(ok.error());
  }
  for (StoredWorkload& w : stored) {
    figures->reset();
    figures->bind(figures->parameter(":workload_id"), w.id);
    if (auto ok = each_row(*figures,
                           [&](const sqlite::Statement& s) {
                             WorkloadFigure f;
                             columns::read_record(s, 0, columns::figure_columns(), f);
                             w.figures[f.metric] = f.value;
                           });
        !ok) {
      return fail(ok.error());
    }
    reps->reset();
    reps->bind(reps->parameter(":workload_id"), w.id);
    std::vector<int64_t> rep_ids;
    if (auto ok = each_row(*reps,
                           [&](const sqlite::Statement& s) {
                             rep_ids.push_back(s.int64(0));
                             StoredRepetition r;
                             columns::read_record(s, 1, columns::repetition_columns(), r);
                             w.repetitions.push_back(std::move(r));
                           });
        !ok) {
      return fail(ok.error());
    }
    for (size_t i = 0; i < rep_ids.size(); ++i) {
      StoredRepetition& r = w.repetitions[i];
      // The rows of one child table of this repetition, each read into a record.
      auto children = [&](sqlite::Statement& stmt, auto table, auto add) -> Expected<void> {
        stmt.reset();
        stmt.bind(stmt.parameter(":repetition_id"), rep_ids[i]);
        return each_row(stmt, [&](const sqlite::Statement& s) {
          typename decltype(table)::value_type::Record record;
          columns::read_record(s, 0, table, record);
          add(std::move(record));
        });
      };
      auto timeline = children(*seconds, columns::timeline_columns(),
                               [&](StoredSecond x) { r.timeline.push_back(x); });
      if (!timeline) return fail(timeline.error());
      auto workers = children(*shares, columns::worker_window_columns(),
                              [&](StoredWorkerShare x) { r.workers.push_back(x); });
      if (!workers) return fail(workers.error());
      auto counters = children(*metrics, columns::router_counter_columns(),
                               [&](RouterCounter x) { r.router_metrics[x.name] = x.value; });
      if (!counters) return fail(counters.error());
    }
  }
  detail.workloads = std::move(stored);
  // In the order begin_run stored them; none for a run stored before schema version 19.
  auto binaries = db_->prepare("SELECT " + columns::names(columns::binary_columns()) +
                               " FROM run_binaries WHERE run_id = :run_id ORDER BY rowid");
  if (!binaries) return Error{"get_run: " + binaries.message()};
  binaries->bind(binaries->parameter(":run_id"), run);
  if (auto ok = each_row(*binaries,
                         [&](const sqlite::Statement& s) {
                           MeasuredBinary b;
                           columns::read_record(s, 0, columns::binary_columns(), b);
                           detail.binaries.push_back(std::move(b));
                         });
      !ok) {
    return fail(ok.error());
  }
  return detail;
}

}  // namespace benchgate::store
