// Baselines: named sets of finished runs that relative gates compare against.
#include <algorithm>
#include <string_view>

#include "common/util/baseline_name.h"
#include "common/util/shown_list.h"
#include "common/util/shown_text.h"
#include "common/util/suggest.h"
#include "orchestrator/results/results.h"
#include "orchestrator/store/record_columns.h"
#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/store_internal.h"

namespace benchgate::store {
// Baseline names appear in scenario files and on command lines: keep them plain.
Expected<void> check_baseline_name(const std::string& name) {
  if (std::string why = baseline_name_problem(name); !why.empty()) {
    return Error{std::move(why), ErrorKind::kInvalidInput};
  }
  return {};
}

namespace {

const char* exit_code_meaning(int64_t code) {
  switch (code) {
    case 1:
      return "a critical gate failed";
    case 2:
      return "invalid input";
    case 3:
      return "a run error";
    default:
      return "not 0";
  }
}

// " (did you mean 'main'?); the baselines: 'main', 'v2.3' (...)", or "; this database has no
// baselines": what follows a name no baseline has.
std::string unknown_baseline_hint(const std::string& name, const std::vector<std::string>& names) {
  if (names.empty()) return "; this database has no baselines";
  ShownList listed;
  for (const std::string& n : names) listed.add(n);
  const std::vector<std::string_view> candidates(names.begin(), names.end());
  return did_you_mean(name, candidates) + "; the baselines: " + listed.text() +
         " (`orchestrator baseline list`)";
}

}  // namespace

Expected<void> Store::add_baseline(const std::string& name, int64_t run) {
  return add_baselines(name, {run});
}

Expected<void> Store::add_baselines(const std::string& name, const std::vector<int64_t>& runs,
                                    int64_t* refused) {
  if (refused != nullptr) *refused = 0;
  if (auto ok = check_baseline_name(name); !ok) return ok.error();
  auto tx = sqlite::Transaction::begin(*db_);
  if (!tx) return Error{"baseline add: " + tx.message()};
  for (int64_t run : runs) {
    bool this_run = false;
    if (auto added = add_baseline_entry(name, run, this_run); !added) {
      if (this_run && refused != nullptr) *refused = run;
      return added.error();  // the transaction rolls back: none of the runs was added
    }
  }
  if (auto ok = tx->commit(); !ok) return Error{"baseline add: " + ok.message()};
  return {};
}

Expected<void> Store::add_baseline_entry(const std::string& name, int64_t run, bool& refused) {
  refused = false;
  auto status = run_status(run);
  if (!status) {
    refused = status.error().kind == ErrorKind::kInvalidInput;  // an unknown run
    return Error::caused("baseline add", status.error());
  }
  if (*status != "ok") {
    refused = true;
    return Error{"baseline add: run " + std::to_string(run) + " did not finish ok (status " +
                     *status + "); only successful runs can be a baseline",
                 ErrorKind::kInvalidInput};
  }
  // One rule for `baseline add` and `run --promote`: a run joins a baseline only when it
  // exited 0, i.e. it completed and no critical gate failed.
  auto code = db_->prepare("SELECT exit_code FROM runs WHERE id = ?1");
  if (!code) return Error{"baseline add: " + code.message()};
  code->bind(1, run);
  auto row = code->step();
  if (!row) return Error{"baseline add: " + row.message()};
  if (*row && !code->is_null(0) && code->int64(0) != 0) {
    const int64_t exit_code = code->int64(0);
    refused = true;
    return Error{"baseline add: run " + std::to_string(run) + " exited " +
                     std::to_string(exit_code) + " (" + exit_code_meaning(exit_code) +
                     "); only runs that exited 0 can be a baseline, as with run --promote",
                 ErrorKind::kInvalidInput};
  }
  // A run measured without every worker (on_worker_loss = "continue") had less load than its
  // scenario asks for: it is never a baseline (docs/GATES.md, "Verdicts").
  auto degraded = db_->prepare(
      "SELECT w.name FROM workloads w WHERE w.run_id = ?1 AND EXISTS "
      "(SELECT 1 FROM json_each(w.flags) WHERE value = ?2) ORDER BY w.id LIMIT 1");
  if (!degraded) return Error{"baseline add: " + degraded.message()};
  degraded->bind(1, run).bind(2, results::kDegraded);
  auto lost = degraded->step();
  if (!lost) return Error{"baseline add: " + lost.message()};
  if (*lost) {
    refused = true;
    return Error{"baseline add: run " + std::to_string(run) + " has workload '" +
                 degraded->text(0) +
                 "' flagged degraded (measured after a worker was lost); such a run is never a "
                 "baseline"};
  }
  auto insert = db_->prepare(columns::insert_sql("baselines", {}, columns::baseline_columns()) +
                             " ON CONFLICT (name, run_id) DO NOTHING");
  if (!insert) return Error{"baseline add: " + insert.message()};
  BaselineEntry entry;
  entry.name = name;
  entry.run_id = run;
  entry.added_at_ns = unix_now_ns();
  columns::bind_record(*insert, columns::baseline_columns(), entry);
  if (auto ok = insert->run(); !ok) return Error{"baseline add: " + ok.message()};
  return {};
}

Expected<void> Store::remove_baseline(const std::string& name, int64_t run) {
  auto stmt = db_->prepare("DELETE FROM baselines WHERE name = ?1 AND run_id = ?2");
  if (!stmt) return Error{"baseline remove: " + stmt.message()};
  stmt->bind(1, name).bind(2, run);
  if (auto ok = stmt->run(); !ok) return Error{"baseline remove: " + ok.message()};
  if (db_->changes() == 0) {
    // A misspelt name is not "run N is not in baseline 'mian'": say no such baseline exists.
    auto names = baseline_names();
    if (!names) return Error{"baseline remove: " + names.message()};
    if (std::find(names->begin(), names->end(), name) == names->end()) {
      return Error{"baseline remove: there is no baseline named '" + shown_text(name) + "'" +
                       unknown_baseline_hint(name, *names),
                   ErrorKind::kInvalidInput};
    }
    return Error{
        "baseline remove: run " + std::to_string(run) + " is not in baseline '" + name + "'",
        ErrorKind::kInvalidInput};
  }
  return {};
}

Expected<std::vector<std::string>> Store::baseline_names() {
  auto stmt = db_->prepare("SELECT DISTINCT name FROM baselines ORDER BY name");
  if (!stmt) return Error{stmt.message()};
  std::vector<std::string> out;
  while (true) {
    auto row = stmt->step();
    if (!row) return Error{row.message()};
    if (!*row) return out;
    out.push_back(stmt->text(0));
  }
}

Expected<std::vector<BaselineEntry>> Store::list_baselines(const std::string& name) {
  // The baseline's columns, then what the entry shows of its run.
  const int run_first = static_cast<int>(columns::baseline_columns().size());
  const std::string sql = "SELECT " + columns::names(columns::baseline_columns(), "b.") +
                          ", r.scenario, r.commit_id, r.started_at "
                          "FROM baselines b JOIN runs r ON r.id = b.run_id " +
                          (name.empty() ? "" : "WHERE b.name = :name ") +
                          "ORDER BY b.name, b.run_id DESC";
  auto stmt = db_->prepare(sql);
  if (!stmt) return Error{"baseline list: " + stmt.message()};
  if (!name.empty()) stmt->bind(stmt->parameter(":name"), name);
  std::vector<BaselineEntry> out;
  while (true) {
    auto row = stmt->step();
    if (!row) return Error{"baseline list: " + row.message()};
    if (!*row) return out;
    BaselineEntry e;
    columns::read_record(*stmt, 0, columns::baseline_columns(), e);
    e.scenario = stmt->text(run_first);
    e.commit = stmt->text(run_first + 1);
    e.started_at_ns = stmt->int64(run_first + 2);
    out.push_back(std::move(e));
  }
}

}  // namespace benchgate::store
