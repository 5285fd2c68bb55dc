// The SQLite result store: every run, workload, repetition, gate verdict and baseline lands
// here (README.md, "Stored results"; schema in schemas/sqlite/). Writes are one transaction per
// unit of work, so a crash never leaves half a workload; gates read series history from it.
//
// One Store is one connection: use it from one thread at a time. Several processes may open
// the same file (WAL mode; writers wait up to the busy timeout for each other).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/util/expected.h"
#include "orchestrator/changes/change_detection.h"
#include "orchestrator/changes/change_gate.h"
#include "orchestrator/results/results.h"
#include "orchestrator/store/records.h"

namespace benchgate::store {

namespace sqlite {
class Database;
}

struct OpenOptions {
  int busy_timeout_ms = 5000;  // how long to wait for another writer before giving up
};

// Baseline names: 1 to 100 letters, digits, '_', '-' and '.'; the error says so.
Expected<void> check_baseline_name(const std::string& name);

class Store {
 public:
  // Opens (creating if needed) and migrates the database, then marks runs whose writer is gone
  // (a killed orchestrator) 'abandoned'. Errors name the path and say what to do: a missing
  // folder, a read-only file or folder, a database locked past the busy timeout, a file that
  // is not SQLite, a schema newer than this build.
  static Expected<std::unique_ptr<Store>> open(const std::string& path,
                                               const OpenOptions& options = {});
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Runs this open marked 'abandoned' (left 'running' by a process that is gone).
  const std::vector<int64_t>& abandoned_runs() const { return abandoned_; }
  int schema_version() const { return schema_version_; }

  // Records a run as 'running' (with its testbed) and returns its id.
  Expected<int64_t> begin_run(const RunInfo& info);
  // Stores one workload with every repetition in ONE transaction: all of it or nothing.
  // The run must be 'running'.
  Expected<void> store_workload(int64_t run, const results::WorkloadResult& workload);
  // status: ok | failed | aborted; error: why it failed (empty when it did not). The run
  // must be 'running'. A run whose end cannot be written as asked (a full disk is retried
  // after a checkpoint first) is ended 'failed' ('aborted' stays) with `failed_exit_code` and
  // the reason in its error where the database takes that, rather than left 'running' for a
  // later open to call 'abandoned', which is for an orchestrator that was killed
  // (schemas/sqlite/0003_run_error.sql). The error is returned either way and says which.
  Expected<void> finish_run(int64_t run, const std::string& status, int exit_code,
                            const std::string& error = "", int failed_exit_code = 3);
  // The status finish_run writes in place of `status` when the end as asked cannot be written:
  // 'failed' ('aborted' stays). A run whose end could not be written at all is reported with it
  // too, never as 'ok' (README, "Run status").
  static std::string refused_end_status(const std::string& status);
  // The reason finish_run stores with it: the run's own `error` and "; " where it has one, then
  // "cannot finish run: " and `why` the end as asked was refused. A run whose end could not be
  // written at all is reported with it too (finish_run's error then has `why` as its cause).
  static std::string refused_end_reason(const std::string& error, const std::string& why);
  // The process that stored a finished run exits with `exit_code` after all (an interrupt
  // arrived after the run was finished, the report files could not be written): the stored exit
  // code is raised to it and `why` added to the run's error, so the run is not a baseline
  // (add_baseline wants exit code 0). Never lowers the stored code; the run must be finished.
  Expected<void> raise_exit_code(int64_t run, int exit_code, const std::string& why);

  // Stores one evaluation of a run's gates (a new evaluation number each call).
  Expected<void> store_gate_results(int64_t run, const std::vector<GateRecord>& records);
  // Which of a run's evaluations: its latest (`orchestrator gate RUN` adds one each time), or
  // its first, the one the run was judged with as it ran (its exit code follows it).
  enum class Evaluation { kLatest, kFirst };
  // That evaluation's records, in gate order; empty when never evaluated.
  Expected<std::vector<GateRecord>> gate_results(int64_t run,
                                                 Evaluation which = Evaluation::kLatest);

  // Adds a run that finished 'ok' with exit code 0 (no critical gate failed, as `run
  // --promote` demands) to a baseline; adding it again is not an error.
  Expected<void> add_baseline(const std::string& name, int64_t run);
  // The same for several runs (the runs of one `orchestrator run --promote`) in ONE
  // transaction: every run is added, or none. `refused` (may be null) is set to the first run
  // that may not join the baseline, or to 0 when what failed was the database, not a run.
  Expected<void> add_baselines(const std::string& name, const std::vector<int64_t>& runs,
                               int64_t* refused = nullptr);
  // Removes a run from a baseline; an error when it was not in it, or when no baseline has the
  // name (then naming the baselines there are).
  Expected<void> remove_baseline(const std::string& name, int64_t run);
  // The names of the baselines, in order.
  Expected<std::vector<std::string>> baseline_names();
  // Entries of one baseline (or every baseline when name is empty), newest run first.
  Expected<std::vector<BaselineEntry>> list_baselines(const std::string& name = "");

  // Newest first; scenario empty: every scenario; before > 0: only runs with a smaller id (the
  // next page after a page whose oldest run is `before`).
  Expected<std::vector<RunSummary>> list_runs(int limit, const std::string& scenario = "",
                                              int64_t before = 0);
  // The latest run of each scenario among those that ended with an exit code (ok, failed or
  // aborted: neither a run still going nor one found abandoned, which have none), newest
  // first, of at most `limit` scenarios (0: all); of `submitted_by`'s side only when given
  // (kOperatorRuns, kClientRuns). What `serve` restores its gauges from (the operator's).
  Expected<std::vector<RunSummary>> latest_ended_runs(int limit,
                                                      const std::string& submitted_by = "");
  // A run with its testbed, workloads and every repetition figure; an error when unknown.
  Expected<RunDetail> get_run(int64_t run);

  // The latest k runs of a baseline on the same testbed and series (finished 'ok', workload
  // 'ok', same params hash), newest first, each with its per-repetition values of the metric.
  // A run whose metric was not collected in every repetition is left out. An unknown metric is
  // an error. Bounded by query.before_run (exclusive); query.through_run is not read.
  Expected<std::vector<HistoryRun>> baseline_history(const HistoryQuery& query);
  // The latest k runs of a series whatever their baselines (query.baseline is unused): same
  // testbed, scenario, workload, variant and params hash, the runs that are history
  // (internal::history_workload_condition: run and workload 'ok', no window flagged
  // process_stopped or degraded, as the change points marked on the chart read), the metric
  // collected; newest first. The report's and the web pages' history charts. Bounded by
  // query.through_run (inclusive); query.before_run is not read.
  Expected<std::vector<SeriesRun>> series_runs(const HistoryQuery& query);
  // The series of the scenario's latest run with workload `workload` of `variant` (any status),
  // of runs of `submitted_by`'s side only when given (kOperatorRuns, kClientRuns; empty:
  // either): its testbed, params hash and side (metric left empty); nothing when no run has
  // it. The web history page's series: found in the store, however many of the other side's
  // runs came after it.
  Expected<std::optional<ChangeSeriesKey>> latest_workload_series(const std::string& scenario,
                                                                  const std::string& workload,
                                                                  const std::string& variant,
                                                                  const std::string& submitted_by);
  // The latency histograms (HdrHistogram V2 compressed) of a stored workload's repetitions,
  // in repetition order; empty ones are left out. Empty when the workload is unknown.
  Expected<std::vector<std::vector<uint8_t>>> latency_histograms(int64_t run,
                                                                 const std::string& workload,
                                                                 const std::string& variant);
  // A stored workload's per-repetition values of a metric (to re-evaluate a run's gates);
  // nothing when the metric was not collected; an error when the workload is unknown.
  Expected<std::optional<std::vector<double>>> run_metric_values(int64_t run,
                                                                 const std::string& workload,
                                                                 const std::string& variant,
                                                                 const std::string& metric);
  // The same with the repetition (its stored idx) each value is of, as
  // results::metric_values_by_repetition gives them (a paired gate pairs by it).
  Expected<std::optional<std::vector<results::RepetitionValue>>> run_metric_values_by_repetition(
      int64_t run, const std::string& workload, const std::string& variant,
      const std::string& metric);

  // Change points (docs/GATES.md, "Change points"; store_changes.cc). After a run finished 'ok':
  // brings the stored change points of every series it belongs to up to date, resuming each
  // series' analysis where the previous run left it. One transaction.
  Expected<void> update_change_points(int64_t run);
  // The same for every series in the store (a filled or upgraded database).
  Expected<void> update_all_change_points();
  // The change points of every series the filter selects, ordered by scenario, testbed,
  // workload, variant, metric. Read from the store when the stored analysis is that of the
  // series as it is now with these options and no branch filter; computed otherwise.
  Expected<std::vector<SeriesChanges>> change_points(const ChangeSeriesFilter& filter,
                                                     const changes::ChangeOptions& options);
  // The options stored change points are computed with.
  static changes::ChangeOptions stored_change_options() { return {}; }
  // A change gate's history (docs/GATES.md, "Change gates"): the values of the series `key` in its
  // latest `limit` runs before run `before_run`, oldest first, each as the change-point
  // analysis reads it. A metric change points are not looked for in is an error.
  Expected<std::vector<changes::HistoryPoint>> change_gate_history(const ChangeSeriesKey& key,
                                                                   int64_t before_run,
                                                                   size_t limit);
  // The metrics change points are looked for in, as gates name them.
  static const std::vector<std::string>& change_metrics();

  // A stored workload's figure of a metric (workload_figures), nothing when not collected;
  // an error when the workload is unknown.
  Expected<std::optional<double>> run_metric_figure(int64_t run, const std::string& workload,
                                                    const std::string& variant,
                                                    const std::string& metric);

  // Stores one calibration per series (`orchestrator calibrate`), each with the newest run
  // stored now (CalibrationRecord::last_run_id) unless the record names one.
  Expected<void> store_calibrations(const std::vector<CalibrationRecord>& records);
  // The latest calibration of a series stored before run `before_run` began (0: the latest of
  // all), nothing when there is none: a run judged again (`orchestrator gate RUN`) is judged
  // with the noise it was judged with, as against the baseline runs stored before it.
  Expected<std::optional<CalibrationRecord>> calibration(const SeriesKey& series,
                                                         int64_t before_run = 0);

  // The connection, for tools and tests that need raw SQL (read-only queries, bulk fills).
  sqlite::Database& database() { return *db_; }

 private:
  Store(std::unique_ptr<sqlite::Database> db, uint64_t instance);
  Expected<void> sweep_abandoned();
  Expected<int64_t> upsert_testbed(const Testbed& testbed);
  Expected<std::string> run_status(int64_t run);
  // add_baselines' check and insert of one run, inside its transaction.
  Expected<void> add_baseline_entry(const std::string& name, int64_t run, bool& refused);

  std::unique_ptr<sqlite::Database> db_;
  uint64_t instance_;  // this Store's id among live Stores of the process (run ownership)
  std::string owner_;  // written into runs.owner
  std::vector<int64_t> abandoned_;
  int schema_version_ = 0;
};

}  // namespace benchgate::store
