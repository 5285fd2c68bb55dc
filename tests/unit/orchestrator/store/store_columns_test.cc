// Every field the store writes is read back: each record's column table (record_columns.h)
// round-trips two records whose every field is set to a distinct non-default value; each
// column, read alone from the other record's row, changes the record (so a column that is
// written and not read, or read into nothing, fails); each column's stored value depends on
// the record (so a column bound from nothing fails); the tables cover every column of the
// schema. Then the same through the public API: a workload with every figure, gate records,
// calibrations, runs, baselines and the change points of a series.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "orchestrator/store/record_columns.h"
#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/store_internal.h"
#include "store_test_support.h"

namespace benchgate::store {
namespace {

using columns::Columns;
using testing::TempDir;

class ColumnTables : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Store::open(dir_.file("bench.db"));
    ASSERT_TRUE(s.ok()) << s.message();
    store_ = std::move(*s);
    // The rows below are single records, not a consistent run: their keys point nowhere.
    ASSERT_TRUE(db().exec("PRAGMA foreign_keys = OFF").ok());
  }
  sqlite::Database& db() { return store_->database(); }

  // Writes `record` as the table's only row, its kept columns filled with `key`.
  template <typename R>
  void write_only(std::string_view table, std::span<const std::string_view> kept, Columns<R> cols,
                  const R& record, int64_t key) {
    ASSERT_TRUE(db().exec(("DELETE FROM " + std::string(table)).c_str()).ok());
    auto insert = db().prepare(columns::insert_sql(table, kept, cols));
    ASSERT_TRUE(insert.ok()) << insert.message();
    for (std::string_view k : kept) {
      std::string parameter = ":";  // not ":" + string: GCC 12 warns (-Wrestrict) of its memcpy
      parameter += k;
      const int index = insert->parameter(parameter);
      if (k == "fingerprint" || k == "owner") {
        insert->bind(index, std::string_view("kept-" + std::to_string(key)));
      } else {
        insert->bind(index, key);
      }
    }
    columns::bind_record(*insert, cols, record);
    auto ok = insert->run();
    ASSERT_TRUE(ok.ok()) << table << ": " << ok.message();
  }

  // The table's only row: as a record, and each column's value as SQL's quote() writes it.
  template <typename R>
  std::pair<R, std::vector<std::string>> read_only(std::string_view table, Columns<R> cols) {
    std::string quoted;
    for (const auto& c : cols) quoted += ", quote(" + std::string(c.name) + ")";
    auto select =
        db().prepare("SELECT " + columns::names(cols) + quoted + " FROM " + std::string(table));
    EXPECT_TRUE(select.ok()) << select.message();
    auto row = select->step();
    EXPECT_TRUE(row.ok() && *row) << table;
    R record;
    columns::read_record(*select, 0, cols, record);
    std::vector<std::string> values;
    for (size_t i = 0; i < cols.size(); ++i) {
      values.push_back(select->text(static_cast<int>(cols.size() + i)));
    }
    return {record, values};
  }

  // a and b differ in every field that the table stores, and have no other field set.
  template <typename R>
  void expect_every_column_round_trips(std::string_view table,
                                       std::span<const std::string_view> kept, Columns<R> cols,
                                       const R& a, const R& b) {
    SCOPED_TRACE(std::string(table));
    write_only(table, kept, cols, a, 1);
    auto [read_a, values_a] = read_only(table, cols);
    EXPECT_TRUE(read_a == a) << "a record of " << table << " does not read back as written";
    write_only(table, kept, cols, b, 2);
    // Still positioned on b's row: each column alone, read over a, must change it.
    std::string quoted;
    for (const auto& c : cols) quoted += ", quote(" + std::string(c.name) + ")";
    auto select =
        db().prepare("SELECT " + columns::names(cols) + quoted + " FROM " + std::string(table));
    ASSERT_TRUE(select.ok()) << select.message();
    auto row = select->step();
    ASSERT_TRUE(row.ok() && *row);
    R read_b;
    columns::read_record(*select, 0, cols, read_b);
    EXPECT_TRUE(read_b == b) << "b record of " << table << " does not read back as written";
    for (size_t i = 0; i < cols.size(); ++i) {
      R changed = a;
      cols[i].read(*select, static_cast<int>(i), changed);
      EXPECT_FALSE(changed == a) << table << "." << cols[i].name
                                 << " is written but reading it changes no field";
      EXPECT_NE(select->text(static_cast<int>(cols.size() + i)), values_a[i])
          << table << "." << cols[i].name << " stores the same value for two different records";
    }
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
};

Testbed testbed(int n) {
  const std::string s = std::to_string(n);
  return {"host-" + s,   "cpu-" + s,      static_cast<uint32_t>(n + 2),
          "kernel-" + s, "governor-" + s, "compiler-" + s,
          "flags-" + s};
}

RunSummary run_summary(int n) {
  RunSummary r;
  r.scenario = "scenario-" + std::to_string(n);
  r.status = n == 1 ? "ok" : "failed";
  r.started_at_ns = 1000 + n;
  r.finished_at_ns = 2000 + n;
  r.exit_code = n + 10;
  r.commit = "commit-" + std::to_string(n);
  r.branch = "branch-" + std::to_string(n);
  r.labels = {{"label", std::to_string(n)}};
  r.testbed_id = 30 + n;
  r.error = "error-" + std::to_string(n);
  r.origin = n == 1 ? "scheduled" : "client";
  return r;
}

RunDetail run_text(int n) {
  RunDetail d;
  d.scenario_text = "name = \"s" + std::to_string(n) + "\"\n";
  d.scenario_hash = "hash-" + std::to_string(n);
  return d;
}

StoredWorkload workload_row(int n) {
  const double d = n;
  StoredWorkload w;
  w.name = "workload-" + std::to_string(n);
  w.variant = "variant-" + std::to_string(n);
  w.protocol = n == 1 ? "http1" : "wamp_rpc";
  w.params_json = "{\"n\":" + std::to_string(n) + "}";
  w.params_hash = "params-" + std::to_string(n);
  w.status = n == 1 ? "failed" : "not_configured";
  w.error = "why-" + std::to_string(n);
  w.repetition_count = 3 + n;
  w.ops_per_s_median = 100.5 + d;
  w.ops_per_s_min = 90.5 + d;
  w.ops_per_s_max = 110.5 + d;
  w.bytes_per_s_median = 5000.25 + d;
  w.p50_ns_median = 1000.5 + d;
  w.p90_ns_median = 2000.5 + d;
  w.p99_ns_median = 3000.5 + d;
  w.p999_ns_median = 4000.5 + d;
  w.max_ns_median = 5000.5 + d;
  w.errors_total = 7 + n;
  w.flags = {"flag-" + std::to_string(n)};
  w.latency_hdr = std::vector<uint8_t>{1, 2, static_cast<uint8_t>(n)};
  w.load_from = n == 1 ? "local" : "10.0.0." + std::to_string(n) + ",10.0.0.9";
  w.worker_name = "worker-impl-" + std::to_string(n);
  w.worker_version = "1." + std::to_string(n);
  w.worker_threads = std::vector<int64_t>{n, 1};
  w.sweep_of = "base-" + std::to_string(n);
  w.sweep_parameter = n == 1 ? "request_bytes" : "rate";
  w.sweep_value = 64 + n;
  return w;
}

StoredRepetition repetition_row(int n) {
  const int64_t i = n;
  const double d = n;
  StoredRepetition r;
  r.index = static_cast<uint32_t>(n + 1);
  r.start_ns = 1'700'000'000'000'000'000 + i;
  r.duration_ns = 3'000'000'000 + i;
  r.data_window_ns = 2'900'000'000 + i;
  r.operations = 100 + i;
  r.successes = 90 + i;
  r.errors_total = 10 + i;
  r.errors = {{"timeout", static_cast<uint64_t>(n)}};
  r.bytes_sent = 4000 + i;
  r.bytes_received = 9000 + i;
  r.late_sends = 5 + i;
  r.unsent = 6 + i;
  r.ops_per_s = 30.5 + d;
  r.bytes_per_s = 3000.25 + d;
  r.p50_ns = 50 + i;
  r.p75_ns = 75 + i;
  r.p90_ns = 90 + i;
  r.p95_ns = 95 + i;
  r.p99_ns = 99 + i;
  r.p999_ns = 999 + i;
  r.max_ns = 5000 + i;
  r.mean_ns = 60.5 + d;
  r.latency_hdr = {9, 8, static_cast<uint8_t>(n)};
  r.service_time_hdr = std::vector<uint8_t>{7, static_cast<uint8_t>(n)};
  r.worker_cpu_s = 1.25 + d;
  r.worker_cpu_utilization = 0.25 + d / 10;
  r.router_collected = true;
  r.router_requests = 80 + i;
  r.router_sampled = true;
  r.router_cpu_s = 0.75 + d;
  r.router_rss_bytes = 12'000 + i;
  r.router_handling_hdr = std::vector<uint8_t>{6, static_cast<uint8_t>(n)};
  r.flags = {"flag-" + std::to_string(n)};
  r.stopped = {"worker " + std::to_string(n)};
  r.window_successes = 85 + i;
  r.payload_bytes_per_s = 700.5 + d;
  r.start_skew_ns = -200 - i;
  r.worker_cpu_wait_share = 0.01 * d;
  r.latency_clamped = 2 + i;
  r.not_measured = {n == 1 ? "cpu" : "bytes_sent"};
  r.tool_latency_json = "{\"tool\":\"tool-" + std::to_string(n) + "\"}";
  r.connections = 3 + i;
  r.handshakes = 1 + i;
  r.connect_p50_ns = 40'000 + i;
  r.connect_p99_ns = 90'000 + i;
  r.tls_handshake_p50_ns = 300'000 + i;
  r.tls_handshake_p99_ns = 700'000 + i;
  r.ttfb_p50_ns = 50'000 + i;
  r.ttfb_p99_ns = 120'000 + i;
  r.tls_version = n == 1 ? "TLSv1.3" : "TLSv1.2";
  r.tls_cipher = "cipher-" + std::to_string(n);
  r.alpn = n == 1 ? "h2" : "http/1.1";
  r.requested_streams = 50 + i;
  r.effective_streams = 10 + i;
  r.window_connections = 900 + i;
  r.resumed = 700 + i;
  r.start_spread_ns = 600 + i;
  r.transfers = 31 + i;
  r.transfer_data_bytes = 60'000'000 + i;
  r.transfer_data_ns = 8'000'000 + i;
  r.transfer_lifecycle_bytes = 67'000'000 + i;
  r.transfer_lifecycle_ns = 9'500'000 + i;
  r.sessions = 77 + i;
  r.session_setup_p50_ns = 310'000 + i;
  r.session_setup_p99_ns = 920'000 + i;
  r.connect_hdr = std::vector<uint8_t>{5, static_cast<uint8_t>(n)};
  r.tls_handshake_hdr = std::vector<uint8_t>{4, static_cast<uint8_t>(n)};
  r.ttfb_hdr = std::vector<uint8_t>{3, static_cast<uint8_t>(n)};
  r.session_setup_hdr = std::vector<uint8_t>{2, static_cast<uint8_t>(n)};
  r.callee_invocations = std::vector<int64_t>{400 + i, 600};
  r.sessions_ended = std::vector<StoredSessionsEnded>{
      {i, "ABORT reason-" + std::to_string(n), 2 + static_cast<uint64_t>(n)}};
  return r;
}

StoredSecond second_row(int n) {
  return {static_cast<uint32_t>(n),
          1999.5 + n,
          static_cast<uint64_t>(3 + n),
          20'000 + n,
          41'000 + n,
          90'000 + n};
}

StoredWorkerShare share_row(int n) {
  const uint64_t u = static_cast<uint64_t>(n);
  StoredWorkerShare s;
  s.worker = static_cast<uint32_t>(n);
  s.operations = 900 + u;
  s.successes = 890 + u;
  s.errors = 10 + u;
  s.ops_per_s = 1800.5 + n;
  s.p99_ns = 41'000 + n;
  s.max_ns = 90'000 + n;
  s.cpu_utilization = 0.25 + n;
  s.p50_ns = 20'500 + n;
  s.host = n == 1 ? "local" : "10.0.0." + std::to_string(n) + ":7000";
  s.clock_offset_ns = -1'000'000'000'000 + n;
  s.rtt_ns = 70'000 + n;
  s.start_skew_ns = -300 - n;
  return s;
}

GateRecord gate_row(int n) {
  const double d = n;
  GateRecord g;
  g.gate_index = n + 1;
  g.workload = "workload-" + std::to_string(n);
  g.variant = "variant-" + std::to_string(n);
  g.metric = n == 1 ? "latency.p99" : "throughput.rps";
  g.kind = n == 1 ? "relative" : "change";
  g.threshold = 0.05 * d;
  g.observed = 1234.5 + d;
  g.baseline = "baseline-" + std::to_string(n);
  g.baseline_runs = {7 + n, 8 + n};
  g.baseline_centre = 1300.5 + d;
  g.effect = 0.051 * d;
  g.p_value = 0.004 * d;
  g.alpha = 0.01 * d;
  g.method = "method-" + std::to_string(n);
  g.verdict = n == 1 ? "fail" : "inconclusive";
  g.severity = n == 1 ? "critical" : "warning";
  g.explanation = "explanation-" + std::to_string(n);
  g.underpowered = n == 1;
  g.detectable = 0.2 * d;
  g.effect_low = -0.01 * d;
  g.effect_high = 0.03 * d;
  g.effect_confidence = 0.9 + 0.01 * d;
  g.confirmation = n == 1 ? "confirmed" : "cleared";
  g.confirmation_observed = 1240.5 + d;
  g.confirmation_p_value = 0.002 * d;
  return g;
}

CalibrationRecord calibration_row(int n) {
  const double d = n;
  CalibrationRecord c;
  c.series = {40 + n,
              "scenario-" + std::to_string(n),
              "workload-" + std::to_string(n),
              "variant-" + std::to_string(n),
              "params-" + std::to_string(n),
              "metric-" + std::to_string(n)};
  c.calibrated_at_ns = 5000 + n;
  c.last_run_id = 60 + n;
  c.runs = 4 + n;
  c.run_ids = {1 + n, 2 + n};
  c.mean = 100.5 + d;
  c.cv = 0.02 * d;
  c.log_sd = 0.03 * d;
  c.alpha = 0.001 * d;
  c.detectable_1 = 0.1 * d;
  c.detectable_5 = 0.04 * d;
  return c;
}

BaselineEntry baseline_row(int n) {
  BaselineEntry e;
  e.name = "baseline-" + std::to_string(n);
  e.run_id = 10 + n;
  e.added_at_ns = 6000 + n;
  return e;
}

ChangeSeriesState change_series_row(int n) {
  ChangeSeriesState c;
  c.key = {"scenario-" + std::to_string(n), 50 + n,
           "workload-" + std::to_string(n), "variant-" + std::to_string(n),
           "params-" + std::to_string(n),   n == 1 ? "latency.p99" : "throughput.rps",
           n == 1 ? "operator" : "client"};
  c.points = 20 + n;
  c.last_run_id = 300 + n;
  c.parameters = "{\"alpha\":" + std::to_string(n) + "}";
  c.resume_start = 4 + n;
  c.stable_weak = {6 + n, 9 + n};
  c.frozen_until = 2 + n;
  c.analysed_at_ns = 7000 + n;
  return c;
}

// The fields change_points stores; the commits and start time are the runs' (joined).
StoredChangePoint change_point_row(int n) {
  const double d = n;
  StoredChangePoint c;
  c.run_id = 400 + n;
  c.previous_run_id = 390 + n;
  c.position = 10 + n;
  c.runs_before = 5 + n;
  c.runs_after = 3 + n;
  c.median_before = 1000.5 + d;
  c.median_after = 1500.5 + d;
  c.change = 0.5 + d / 100;
  c.change_low = 0.25 + d / 100;
  c.change_high = 0.75 + d / 100;
  c.p_value = 0.001 * d;
  return c;
}

TEST_F(ColumnTables, EveryColumnOfEveryRecordIsWrittenAndReadBack) {
  using namespace columns;  // NOLINT(google-build-using-namespace)
  expect_every_column_round_trips("testbeds", kTestbedKept, testbed_columns(), testbed(1),
                                  testbed(2));
  // runs is described by two tables: each is checked with the other's required columns
  // filled in like kept ones.
  constexpr std::string_view kWithText[] = {"owner", "scenario_text", "scenario_hash"};
  constexpr std::string_view kWithSummary[] = {"owner", "scenario", "started_at", "testbed_id"};
  expect_every_column_round_trips("runs", kWithText, run_columns(), run_summary(1), run_summary(2));
  expect_every_column_round_trips("runs", kWithSummary, run_text_columns(), run_text(1),
                                  run_text(2));
  expect_every_column_round_trips(
      "run_binaries", kBinaryKept, binary_columns(),
      MeasuredBinary{"router", "/a/router", "--router-bin", "0a1b", std::nullopt, std::nullopt},
      MeasuredBinary{"command new", "/b/router", "command", std::nullopt, "2c3d",
                     "--inject-work-ns 3000"});
  expect_every_column_round_trips("workloads", kWorkloadKept, workload_columns(), workload_row(1),
                                  workload_row(2));
  expect_every_column_round_trips("workload_figures", kFigureKept, figure_columns(),
                                  WorkloadFigure{"latency.p99", 0.5},
                                  WorkloadFigure{"throughput.rps", 2.5});
  expect_every_column_round_trips("repetitions", kRepetitionKept, repetition_columns(),
                                  repetition_row(1), repetition_row(2));
  expect_every_column_round_trips("router_metrics", kPerRepetitionKept, router_counter_columns(),
                                  RouterCounter{"requests", 5}, RouterCounter{"connections", 6});
  expect_every_column_round_trips("timeline", kPerRepetitionKept, timeline_columns(), second_row(1),
                                  second_row(2));
  expect_every_column_round_trips("worker_windows", kPerRepetitionKept, worker_window_columns(),
                                  share_row(1), share_row(2));
  expect_every_column_round_trips("gate_results", kGateKept, gate_columns(), gate_row(1),
                                  gate_row(2));
  expect_every_column_round_trips("calibrations", {}, calibration_columns(), calibration_row(1),
                                  calibration_row(2));
  expect_every_column_round_trips("baselines", {}, baseline_columns(), baseline_row(1),
                                  baseline_row(2));
  expect_every_column_round_trips("change_series", {}, change_series_columns(),
                                  change_series_row(1), change_series_row(2));
  expect_every_column_round_trips("change_points", kChangePointKept, change_point_columns(),
                                  change_point_row(1), change_point_row(2));
}

// The tables the store writes have no column the column tables leave out: a migration that
// adds one must give it a record field, or name it as kept.
TEST_F(ColumnTables, TheColumnTablesCoverEveryColumnOfTheSchema) {
  std::set<std::string> described;
  for (const columns::StoredTable& t : columns::stored_tables()) {
    described.insert(std::string(t.table));
    auto info = db().prepare("SELECT name FROM pragma_table_info(?1)");
    ASSERT_TRUE(info.ok()) << info.message();
    info->bind(1, t.table);
    std::set<std::string> in_schema;
    while (true) {
      auto row = info->step();
      ASSERT_TRUE(row.ok()) << row.message();
      if (!*row) break;
      in_schema.insert(info->text(0));
    }
    const std::set<std::string> in_table(t.columns.begin(), t.columns.end());
    EXPECT_EQ(in_table.size(), t.columns.size()) << t.table << " names a column twice";
    EXPECT_EQ(in_table, in_schema) << t.table;
  }
  // Every table of the schema is described.
  auto tables = db().prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
      "ORDER BY name");
  ASSERT_TRUE(tables.ok());
  std::vector<std::string> others;
  while (true) {
    auto row = tables->step();
    ASSERT_TRUE(row.ok());
    if (!*row) break;
    if (!described.count(tables->text(0))) others.push_back(tables->text(0));
  }
  EXPECT_EQ(others, std::vector<std::string>{});
}

// What the history reads of a run is what the runs table's writer wrote: its columns are
// those of run_columns() (or the row id) and read back the written fields.
TEST_F(ColumnTables, TheHistoryReadsTheRunColumnsTheRunTableWrites) {
  std::set<std::string_view> runs_columns;
  for (const columns::StoredTable& t : columns::stored_tables()) {
    if (t.table == "runs") runs_columns.insert(t.columns.begin(), t.columns.end());
  }
  for (const auto& c : columns::history_run_columns()) EXPECT_TRUE(runs_columns.count(c.name));
  for (const auto& c : columns::series_run_columns()) EXPECT_TRUE(runs_columns.count(c.name));

  constexpr std::string_view kWithText[] = {"owner", "scenario_text", "scenario_hash"};
  const RunSummary written = run_summary(2);
  write_only("runs", kWithText, columns::run_columns(), written, 1);
  auto [series_run, series_values] = read_only("runs", columns::series_run_columns());
  EXPECT_GT(series_run.run_id, 0);
  EXPECT_EQ(series_run.started_at_ns, written.started_at_ns);
  EXPECT_EQ(series_run.commit, written.commit);
  EXPECT_EQ(series_run.branch, written.branch);
  auto [history_run, history_values] = read_only("runs", columns::history_run_columns());
  EXPECT_EQ(history_run.run_id, series_run.run_id);
  EXPECT_EQ(history_run.started_at_ns, written.started_at_ns);
  EXPECT_EQ(history_run.commit, written.commit);
}

// A workload with every figure set, as the engine hands it over: what get_run reads back is
// exactly the record store_workload wrote (stored_workload), children included.
TEST_F(ColumnTables, AWorkloadWithEveryFigureReadsBackAsItWasWritten) {
  auto run = store_->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok()) << run.message();
  results::WorkloadResult workload = testing::test_workload("http_hello", 2, 5);
  workload.variant = "h2load";
  workload.error = "";
  for (results::Repetition& rep : workload.repetitions) {
    rep.service_time = HdrHistogram();
    rep.service_time->record(700 + rep.index);
    rep.router.handling = HdrHistogram();
    rep.router.handling->record(300 + rep.index);
    rep.stopped = {"worker 0"};
    rep.flags = {"process_stopped", "worker_saturated"};
    rep.timeline = {{0, 1999.5, 3, 20'000, 41'000, 90'000},
                    {1, 2100, 0, std::nullopt, std::nullopt, std::nullopt}};
    rep.workers = {{0, 900, 900, 0, 1800.5, 41'000, 90'000, 0.25},
                   {1, 2100, 2097, 3, 4194.0, std::nullopt, std::nullopt, std::nullopt}};
  }
  // The second repetition from a tool: no histogram, its own figures, fields not measured.
  results::Repetition& tool = workload.repetitions[1];
  tool.latency.reset();
  tool.tool_latency = results::ToolLatency{"h2load 1.52", 1000, 2000, 300, 9000, {{"50", 40'000}}};
  tool.not_measured = {"bytes_sent", "cpu"};
  ASSERT_TRUE(store_->store_workload(*run, workload).ok());

  auto detail = store_->get_run(*run);
  ASSERT_TRUE(detail.ok()) << detail.message();
  ASSERT_EQ(detail->workloads.size(), 1u);
  StoredWorkload expected = internal::stored_workload(workload);
  expected.id = detail->workloads[0].id;
  const StoredWorkload& got = detail->workloads[0];
  // Field by field first, so that a failure names what differs.
  ASSERT_EQ(got.repetitions.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const StoredRepetition& r = got.repetitions[i];
    const StoredRepetition& e = expected.repetitions[i];
    EXPECT_EQ(r.not_measured, e.not_measured) << i;
    EXPECT_EQ(r.tool_latency_json, e.tool_latency_json) << i;
    EXPECT_EQ(r.timeline, e.timeline) << i;
    EXPECT_EQ(r.workers, e.workers) << i;
    EXPECT_EQ(r.router_metrics, e.router_metrics) << i;
    EXPECT_EQ(r.stopped, e.stopped) << i;
    EXPECT_TRUE(r == e) << "repetition " << i;
  }
  EXPECT_EQ(got.repetitions[1].not_measured, (std::vector<std::string>{"bytes_sent", "cpu"}));
  ASSERT_TRUE(got.repetitions[1].tool_latency_json.has_value());
  EXPECT_NE(got.repetitions[1].tool_latency_json->find("h2load 1.52"), std::string::npos);
  EXPECT_EQ(got.figures, expected.figures);
  EXPECT_FALSE(got.figures.empty());
  EXPECT_EQ(got.flags, (std::vector<std::string>{"worker_saturated", "process_stopped"}));
  EXPECT_TRUE(got == expected);
}

TEST_F(ColumnTables, RunsGatesCalibrationsAndBaselinesReadBackAsWritten) {
  RunInfo info = testing::test_run_info("every_field");
  info.started_at_ns = 1'700'000'000'000'000'123;
  auto run = store_->begin_run(info);
  ASSERT_TRUE(run.ok()) << run.message();
  ASSERT_TRUE(store_->finish_run(*run, "ok", 0, "").ok());
  auto detail = store_->get_run(*run);
  ASSERT_TRUE(detail.ok()) << detail.message();
  EXPECT_EQ(detail->run.scenario, info.scenario);
  EXPECT_EQ(detail->run.started_at_ns, info.started_at_ns);
  EXPECT_EQ(detail->run.commit, info.commit);
  EXPECT_EQ(detail->run.branch, info.branch);
  EXPECT_EQ(detail->run.labels, info.labels);
  EXPECT_EQ(detail->scenario_text, info.scenario_text);
  EXPECT_TRUE(detail->testbed == info.testbed);
  auto listed = store_->list_runs(1);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_TRUE((*listed)[0] == detail->run);

  const std::vector<GateRecord> gates = {gate_row(1), gate_row(2)};
  ASSERT_TRUE(store_->store_gate_results(*run, gates).ok());
  auto read_gates = store_->gate_results(*run);
  ASSERT_TRUE(read_gates.ok()) << read_gates.message();
  EXPECT_TRUE(*read_gates == gates);

  const CalibrationRecord calibration = calibration_row(3);
  ASSERT_TRUE(store_->store_calibrations({calibration}).ok());
  auto read_calibration = store_->calibration(calibration.series);
  ASSERT_TRUE(read_calibration.ok()) << read_calibration.message();
  ASSERT_TRUE(read_calibration->has_value());
  EXPECT_TRUE(**read_calibration == calibration);

  ASSERT_TRUE(store_->add_baseline("main", *run).ok());
  auto baselines = store_->list_baselines("main");
  ASSERT_TRUE(baselines.ok());
  ASSERT_EQ(baselines->size(), 1u);
  EXPECT_EQ((*baselines)[0].run_id, *run);
  EXPECT_EQ((*baselines)[0].scenario, info.scenario);
  EXPECT_EQ((*baselines)[0].commit, info.commit);
  EXPECT_EQ((*baselines)[0].started_at_ns, info.started_at_ns);
  EXPECT_GT((*baselines)[0].added_at_ns, 0);
}

TEST(NamedParameters, AStatementWithoutTheParameterFailsNamingIt) {
  TempDir dir;
  auto db = sqlite::Database::open(dir.file("x.db"));
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE((*db)->exec("CREATE TABLE t (a INTEGER)").ok());
  auto insert = (*db)->prepare("INSERT INTO t (a) VALUES (:a)");
  ASSERT_TRUE(insert.ok());
  insert->bind(insert->parameter(":b"), int64_t{1});
  auto ok = insert->run();
  ASSERT_FALSE(ok.ok());
  EXPECT_NE(ok.message().find("no parameter :b"), std::string::npos) << ok.message();
}

}  // namespace
}  // namespace benchgate::store
