// Schema version 2: a not_configured workload is stored as such, results from workers that wrap
// a tool keep what the tool did not measure NULL (never 0), and migrating a version 1 database
// keeps every row (the tables are rebuilt with foreign keys off).
#include <gtest/gtest.h>

#include "orchestrator/store/migrations.h"
#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "store_test_support.h"

namespace benchgate::store {
namespace {

using testing::TempDir;

int64_t count(sqlite::Database& db, const std::string& sql) {
  auto stmt = db.prepare(sql.c_str());
  EXPECT_TRUE(stmt.ok()) << (stmt ? "" : stmt.message());
  auto row = stmt->step();
  EXPECT_TRUE(row.ok() && *row);
  return stmt->int64(0);
}

// A repetition as the h2load/wrk adapters deliver it: no histogram, the tool's figures.
results::Repetition tool_repetition() {
  results::Repetition r;
  r.duration_ns = 2'000'000'000;
  r.operations = 1000;
  r.successes = 1000;
  r.bytes_received = 50'000;
  r.bytes_sent = 0;
  r.tool_latency =
      results::ToolLatency{"wrk 4.1.0", 100, 2000, 300, 9000, {{"50", 1900}, {"99", 8000}}};
  r.not_measured = {"bytes_sent", "cpu", "data_window"};
  return r;
}

TEST(AdapterResults, ANotConfiguredWorkloadIsStoredAndReadBackAsNotConfigured) {
  TempDir dir;
  auto store = Store::open(dir.file("b.db"));
  ASSERT_TRUE(store.ok()) << store.message();
  auto run = (*store)->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok()) << run.message();
  results::WorkloadResult w;
  w.spec = testing::test_workload_spec("hello");
  w.variant = "h2load";
  w.status = results::WorkloadStatus::kNotConfigured;
  w.error = "not_configured: worker 'h2load': 'h2load' is not installed (not found on PATH)";
  ASSERT_TRUE((*store)->store_workload(*run, w).ok());
  auto detail = (*store)->get_run(*run);
  ASSERT_TRUE(detail.ok()) << detail.message();
  ASSERT_EQ(detail->workloads.size(), 1u);
  EXPECT_EQ(detail->workloads[0].status, "not_configured");
  EXPECT_EQ(detail->workloads[0].error, w.error);
}

TEST(AdapterResults, FiguresAToolDidNotMeasureAreNullNeverZero) {
  TempDir dir;
  auto store = Store::open(dir.file("b.db"));
  ASSERT_TRUE(store.ok()) << store.message();
  auto run = (*store)->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok()) << run.message();
  results::WorkloadResult w;
  w.spec = testing::test_workload_spec("hello");
  w.variant = "wrk";
  w.repetitions = {tool_repetition(), tool_repetition()};
  w.repetitions[1].index = 1;
  ASSERT_TRUE((*store)->store_workload(*run, w).ok());
  sqlite::Database& db = (*store)->database();
  EXPECT_EQ(count(db,
                  "SELECT count(*) FROM repetitions WHERE bytes_sent IS NULL AND "
                  "worker_cpu_utilization IS NULL AND data_window_ns IS NULL AND "
                  "p95_ns IS NULL AND p999_ns IS NULL"),
            2);
  EXPECT_EQ(count(db,
                  "SELECT count(*) FROM repetitions WHERE p50_ns = 1900 AND p99_ns = 8000 "
                  "AND max_ns = 9000 AND mean_ns = 2000 AND bytes_received = 50000 "
                  "AND ops_per_s = 500"),
            2);
  EXPECT_EQ(count(db,
                  "SELECT count(*) FROM repetitions WHERE "
                  "json_extract(tool_latency, '$.tool') = 'wrk 4.1.0' AND "
                  "json_extract(tool_latency, '$.stdev_ns') = 300 AND "
                  "not_measured = '[\"bytes_sent\",\"cpu\",\"data_window\"]'"),
            2);
  EXPECT_EQ(count(db,
                  "SELECT count(*) FROM workloads WHERE p50_ns_median = 1900 AND "
                  "p999_ns_median IS NULL AND status = 'ok'"),
            1);
  // Read back, what was not measured stays absent rather than turning into 0.
  auto detail = (*store)->get_run(*run);
  ASSERT_TRUE(detail.ok()) << detail.message();
  const StoredRepetition& rep = detail->workloads.at(0).repetitions.at(0);
  EXPECT_FALSE(rep.bytes_sent.has_value());
  EXPECT_EQ(rep.bytes_received, 50'000u);
  EXPECT_FALSE(rep.data_window_ns.has_value());
  EXPECT_FALSE(rep.worker_cpu_s.has_value());
  EXPECT_FALSE(rep.worker_cpu_utilization.has_value());
  EXPECT_FALSE(rep.p95_ns.has_value());
}

TEST(AdapterResults, MigratingAVersion1DatabaseKeepsEveryRowAndReference) {
  TempDir dir;
  const std::string path = dir.file("old.db");
  {
    auto db = sqlite::Database::open(path);
    ASSERT_TRUE(db.ok()) << db.message();
    ASSERT_TRUE((*db)->exec("PRAGMA foreign_keys = ON").ok());
    const auto& all = embedded_migrations();
    ASSERT_GE(all.size(), 2u);
    auto v1 = apply_migrations(**db, {all[0]});
    ASSERT_TRUE(v1.ok()) << v1.message();
    ASSERT_TRUE((*db)
                    ->exec("INSERT INTO testbeds VALUES (1, 'f', 'h', 'c', 1, 'k', 'g', 'cc', "
                           "'-O2', 0);"
                           "INSERT INTO runs (id, scenario, scenario_text, scenario_hash, "
                           "started_at, status, testbed_id) VALUES (1, 's', '', '', 0, 'ok', 1);"
                           "INSERT INTO workloads (id, run_id, name, protocol, params, "
                           "params_hash, status) VALUES (1, 1, 'w', 'http1', '{}', 'h', 'ok');"
                           "INSERT INTO repetitions (id, workload_id, idx, start_ns, duration_ns, "
                           "data_window_ns, operations, successes, errors_total, bytes_sent, "
                           "bytes_received, ops_per_s, bytes_per_s, latency_hdr, worker_cpu_s, "
                           "worker_cpu_utilization) VALUES (1, 1, 0, 0, 1, 1, 5, 5, 0, 10, 20, "
                           "5.0, 20.0, x'00', 0.1, 0.2);"
                           "INSERT INTO router_metrics VALUES (1, 'http_requests', 5);")
                    .ok());
  }
  auto store = Store::open(path);
  ASSERT_TRUE(store.ok()) << store.message();
  sqlite::Database& db = (*store)->database();
  EXPECT_EQ(count(db, "PRAGMA user_version"), latest_schema_version());
  EXPECT_EQ(count(db,
                  "SELECT count(*) FROM repetitions WHERE bytes_sent = 10 AND "
                  "not_measured = '[]' AND tool_latency IS NULL"),
            1);
  EXPECT_EQ(count(db, "SELECT count(*) FROM router_metrics"), 1);
  EXPECT_EQ(count(db, "SELECT count(*) FROM workload_summary"), 1);
  EXPECT_EQ(count(db, "PRAGMA foreign_keys"), 1);  // back on after migrating
  // The references still cascade: deleting the run removes everything under it.
  ASSERT_TRUE(db.exec("DELETE FROM runs WHERE id = 1").ok());
  EXPECT_EQ(count(db, "SELECT count(*) FROM workloads"), 0);
  EXPECT_EQ(count(db, "SELECT count(*) FROM repetitions"), 0);
  EXPECT_EQ(count(db, "SELECT count(*) FROM router_metrics"), 0);
}

}  // namespace
}  // namespace benchgate::store
