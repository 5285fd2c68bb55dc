// The column table of every record the store writes and reads back (columns.h): the writer
// binds each column by name from the record, the reader reads the same list back into it.
// Beside each table, the columns the store fills itself (`kept`: a parent's id, an
// evaluation's number and time, ...), which are no field of the record.
#pragma once

#include <string_view>
#include <vector>

#include "orchestrator/store/columns.h"
#include "orchestrator/store/records.h"

namespace benchgate::store {

// One row of router_metrics: a counter's delta over one repetition.
struct RouterCounter {
  std::string name;
  uint64_t value = 0;
  bool operator==(const RouterCounter&) const = default;
};

// One row of workload_figures.
struct WorkloadFigure {
  std::string metric;
  double value = 0;
  bool operator==(const WorkloadFigure&) const = default;
};

// One row of change_series: how far the change-point analysis of one series went, and with
// which parameters (store_changes.cc; schema 0006).
struct ChangeSeriesState {
  ChangeSeriesKey key;
  int64_t points = 0;       // runs analysed
  int64_t last_run_id = 0;  // the newest of them
  std::string parameters;   // the analysis' parameters, as JSON
  int64_t resume_start = 0;
  std::vector<int64_t> stable_weak;  // positions
  int64_t frozen_until = 0;
  int64_t analysed_at_ns = 0;
  bool operator==(const ChangeSeriesState&) const = default;
};

namespace columns {

inline constexpr std::string_view kTestbedKept[] = {"fingerprint", "first_seen"};
inline constexpr std::string_view kRunKept[] = {"owner"};
inline constexpr std::string_view kWorkloadKept[] = {"run_id"};
inline constexpr std::string_view kFigureKept[] = {"workload_id"};
inline constexpr std::string_view kRepetitionKept[] = {"workload_id"};
inline constexpr std::string_view kPerRepetitionKept[] = {"repetition_id"};
inline constexpr std::string_view kGateKept[] = {"run_id", "evaluation", "evaluated_at"};
inline constexpr std::string_view kChangePointKept[] = {"series_id"};
inline constexpr std::string_view kBinaryKept[] = {"run_id"};
// change_series' UNIQUE key: the columns of ChangeSeriesState::key.
inline constexpr std::string_view kChangeSeriesKey[] = {
    "scenario", "testbed_id", "workload", "variant", "params_hash", "metric", "submitted_by"};

// testbeds; kept: fingerprint (the UNIQUE key), first_seen.
Columns<Testbed> testbed_columns();
// runs; the row id is RunSummary::id. kept: owner (read by the sweep of abandoned runs).
Columns<RunSummary> run_columns();
// runs, the columns only RunDetail carries.
Columns<RunDetail> run_text_columns();
// workloads; the row id is StoredWorkload::id. kept: run_id.
Columns<StoredWorkload> workload_columns();
// workload_figures; kept: workload_id.
Columns<WorkloadFigure> figure_columns();
// repetitions; kept: workload_id. The row id keys the three tables below.
Columns<StoredRepetition> repetition_columns();
// router_metrics, timeline, worker_windows; kept: repetition_id.
Columns<RouterCounter> router_counter_columns();
Columns<StoredSecond> timeline_columns();
Columns<StoredWorkerShare> worker_window_columns();
// gate_results; kept: run_id, evaluation, evaluated_at.
Columns<GateRecord> gate_columns();
// calibrations.
Columns<CalibrationRecord> calibration_columns();
// baselines.
Columns<BaselineEntry> baseline_columns();
// change_series; the row id keys change_points.
Columns<ChangeSeriesState> change_series_columns();
// run_binaries; kept: run_id.
Columns<MeasuredBinary> binary_columns();
// change_points; kept: series_id. A point's commits and start time are its runs', joined.
Columns<StoredChangePoint> change_point_columns();

// What the history reads of a run (store_history.cc): columns of runs as run_columns() writes
// them, the row id as the run's id. No table of their own.
Columns<HistoryRun> history_run_columns();
Columns<SeriesRun> series_run_columns();

// Every SQL table the tables above describe, with each column it has: the record's, the
// kept ones and the row id. A migration that adds a column must add it here and to a table.
struct StoredTable {
  std::string_view table;
  std::vector<std::string_view> columns;
};
std::vector<StoredTable> stored_tables();

}  // namespace columns
}  // namespace benchgate::store
