// The column table of every record the store writes and reads back (columns.h): the writer
// binds each column by name from the record, the reader reads the same list back into it.
// Beside each table, the columns the store fills itself (`kept`: a parent's id, an
// evaluation's number and time, ...), which are no field of the record.
//
// change_series and change_points (store_changes.cc) are not described here yet.
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

namespace columns {

inline constexpr std::string_view kTestbedKept[] = {"fingerprint", "first_seen"};
inline constexpr std::string_view kRunKept[] = {"owner"};
inline constexpr std::string_view kWorkloadKept[] = {"run_id"};
inline constexpr std::string_view kFigureKept[] = {"workload_id"};
inline constexpr std::string_view kRepetitionKept[] = {"workload_id"};
inline constexpr std::string_view kPerRepetitionKept[] = {"repetition_id"};
inline constexpr std::string_view kGateKept[] = {"run_id", "evaluation", "evaluated_at"};

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

// Every SQL table the tables above describe, with each column it has: the record's, the
// kept ones and the row id. A migration that adds a column must add it here and to a table.
struct StoredTable {
  std::string_view table;
  std::vector<std::string_view> columns;
};
std::vector<StoredTable> stored_tables();

}  // namespace columns
}  // namespace benchgate::store
