// Schema migrations: applied in order, version in user_version, idempotent, never downgraded.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "orchestrator/store/migrations.h"
#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/store_internal.h"
#include "store_test_support.h"

namespace benchgate::store {
namespace {

using testing::TempDir;

int64_t query_int(sqlite::Database& db, const char* sql) {
  auto stmt = db.prepare(sql);
  EXPECT_TRUE(stmt.ok()) << (stmt ? "" : stmt.message());
  auto row = stmt->step();
  EXPECT_TRUE(row.ok() && *row);
  return stmt->int64(0);
}

std::string query_text(sqlite::Database& db, const char* sql) {
  auto stmt = db.prepare(sql);
  EXPECT_TRUE(stmt.ok()) << (stmt ? "" : stmt.message());
  auto row = stmt->step();
  EXPECT_TRUE(row.ok() && *row);
  return stmt->text(0);
}

// Testbed 1, which the rows of each older store below refer to.
const std::string kTestbed =
    "INSERT INTO testbeds (id, fingerprint, host, cpu_model, cores, kernel, governor, compiler, "
    "build_flags, first_seen) VALUES (1, 'f', 'h', 'c', 2, 'k', 'g', 'cc', '-O3', 0);";
// Run 1 on testbed 1, commit abc on main.
const std::string kRun =
    "INSERT INTO runs (id, scenario, scenario_text, scenario_hash, started_at, status, "
    "commit_id, branch, testbed_id) VALUES (1, 's', '', '', 100, 'ok', 'abc', 'main', 1);";

// Each test of one migration writes the file a build before it left (write_old), then migrates
// it: through apply_migrations (old_), or as this build opens a store (open_migrated).
class Migrations : public ::testing::Test {
 protected:
  // old.db as a build before migration `version` left it: every migration before that one
  // applied, then `rows` stored. `name` is the migration's, so that a renumbering is caught here
  // rather than testing another. Call through ASSERT_NO_FATAL_FAILURE.
  void write_old(int version, std::string_view name, const std::string& rows) {
    const auto& all = embedded_migrations();
    ASSERT_GE(all.size(), static_cast<size_t>(version));
    ASSERT_EQ(all[version - 1].name, name);
    auto db = sqlite::Database::open(dir_.file("old.db"));
    ASSERT_TRUE(db.ok()) << db.message();
    auto before =
        apply_migrations(**db, std::vector<Migration>(all.begin(), all.begin() + version - 1));
    ASSERT_TRUE(before.ok()) << before.message();
    ASSERT_EQ(*before, version - 1);
    ASSERT_TRUE((*db)->exec(rows.c_str()).ok());
    old_ = std::move(*db);
  }

  // old.db opened as this build opens a store (every later migration applied), write_old's
  // connection closed first. Call through ASSERT_NO_FATAL_FAILURE.
  void open_migrated() {
    old_.reset();
    auto store = Store::open(dir_.file("old.db"));
    ASSERT_TRUE(store.ok()) << store.message();
    store_ = std::move(*store);
    EXPECT_EQ(store_->schema_version(), latest_schema_version());
  }

  TempDir dir_;
  std::unique_ptr<sqlite::Database> old_;  // write_old's connection
  std::unique_ptr<Store> store_;           // open_migrated's
};

TEST_F(Migrations, EmbeddedMigrationsAreNumberedFromOneWithoutGaps) {
  const auto& all = embedded_migrations();
  ASSERT_FALSE(all.empty());
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].version, static_cast<int>(i) + 1);
  EXPECT_EQ(all.front().name, "0001_initial");
  EXPECT_EQ(latest_schema_version(), all.back().version);
}

TEST_F(Migrations, OpeningANewFileAppliesEveryMigrationAndSetsUserVersion) {
  auto store = Store::open(dir_.file("b.db"));
  ASSERT_TRUE(store.ok()) << store.message();
  EXPECT_EQ((*store)->schema_version(), latest_schema_version());
  sqlite::Database& db = (*store)->database();
  EXPECT_EQ(query_int(db, "PRAGMA user_version"), latest_schema_version());
  EXPECT_EQ(query_text(db, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(query_int(db, "PRAGMA foreign_keys"), 1);
  for (const char* table : {"testbeds", "runs", "workloads", "repetitions", "router_metrics",
                            "gate_results", "baselines"}) {
    auto stmt = db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1");
    ASSERT_TRUE(stmt.ok());
    stmt->bind(1, std::string_view(table));
    ASSERT_TRUE(*stmt->step());
    EXPECT_EQ(stmt->int64(0), 1) << table;
  }
  for (const char* view : {"latest_runs", "workload_summary", "series_history"}) {
    auto stmt = db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name = ?1");
    ASSERT_TRUE(stmt.ok());
    stmt->bind(1, std::string_view(view));
    ASSERT_TRUE(*stmt->step());
    EXPECT_EQ(stmt->int64(0), 1) << view;
  }
  EXPECT_EQ(query_text(db, "PRAGMA integrity_check"), "ok");
}

TEST_F(Migrations, ReopeningAMigratedDatabaseChangesNothing) {
  {
    auto store = Store::open(dir_.file("b.db"));
    ASSERT_TRUE(store.ok()) << store.message();
  }
  auto store = Store::open(dir_.file("b.db"));
  ASSERT_TRUE(store.ok()) << store.message();
  EXPECT_EQ(query_int((*store)->database(), "PRAGMA user_version"), latest_schema_version());
}

TEST_F(Migrations, LaterMigrationsApplyInOrderFromTheStoredVersion) {
  auto db = sqlite::Database::open(dir_.file("m.db"));
  ASSERT_TRUE(db.ok());
  const std::vector<Migration> first = {{1, "0001_a", "CREATE TABLE a (x INTEGER);"}};
  auto v1 = apply_migrations(**db, first);
  ASSERT_TRUE(v1.ok()) << v1.message();
  EXPECT_EQ(*v1, 1);
  const std::vector<Migration> both = {{1, "0001_a", "CREATE TABLE a (x INTEGER);"},
                                       {2, "0002_b", "ALTER TABLE a ADD COLUMN y TEXT;"}};
  auto v2 = apply_migrations(**db, both);
  ASSERT_TRUE(v2.ok()) << v2.message();
  EXPECT_EQ(*v2, 2);
  EXPECT_TRUE((*db)->exec("INSERT INTO a (x, y) VALUES (1, 'z')").ok());
}

TEST_F(Migrations, AFailingMigrationLeavesTheVersionAndSchemaUnchanged) {
  auto db = sqlite::Database::open(dir_.file("m.db"));
  ASSERT_TRUE(db.ok());
  const std::vector<Migration> broken = {
      {1, "0001_a", "CREATE TABLE a (x INTEGER); CREATE TABLE a (y INTEGER);"}};
  auto v = apply_migrations(**db, broken);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.message().find("0001_a"), std::string::npos) << v.message();
  EXPECT_EQ(query_int(**db, "PRAGMA user_version"), 0);
  EXPECT_EQ(query_int(**db, "SELECT count(*) FROM sqlite_master WHERE name = 'a'"), 0);
}

TEST_F(Migrations, ADatabaseNewerThanThisBuildIsRefused) {
  // A store (benchgate's tables) that a later build moved to a version this one does not know.
  { ASSERT_TRUE(Store::open(dir_.file("new.db")).ok()); }
  {
    auto db = sqlite::Database::open(dir_.file("new.db"));
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->exec("PRAGMA user_version = 999").ok());
  }
  auto store = Store::open(dir_.file("new.db"));
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.message().find("newer"), std::string::npos) << store.message();
}

// The change-gates migration rebuilds gate_results to allow kind 'change': a result stored
// before it keeps every value, and afterwards a 'change' row is accepted.
TEST_F(Migrations, TheChangeGatesMigrationKeepsEveryStoredGateResult) {
  const auto& all = embedded_migrations();
  auto at = std::find_if(all.begin(), all.end(), [](const Migration& m) {
    return m.name.size() > 13 && m.name.substr(m.name.size() - 13) == "_change_gates";
  });
  ASSERT_NE(at, all.end());
  ASSERT_NO_FATAL_FAILURE(write_old(
      static_cast<int>(at - all.begin()) + 1, at->name,
      "INSERT INTO testbeds (id, fingerprint, host, cpu_model, cores, kernel, governor, compiler, "
      "build_flags, first_seen) VALUES (1, 'f', 'h', 'c', 2, 'k', 'unknown', 'g', '-O2', 1); "
      "INSERT INTO runs (id, scenario, scenario_text, scenario_hash, started_at, testbed_id) "
      "VALUES (7, 's', '', 'x', 1, 1);"
      "INSERT INTO gate_results (run_id, evaluated_at, gate_index, workload, metric, kind, "
      "threshold, observed, baseline, baseline_runs, p_value, alpha, method, verdict, severity, "
      "explanation) VALUES (7, 99, 2, 'w', 'latency.p99', 'relative', 0.5, 0.25, 'main', "
      "'[1,2]', 0.003, 0.01, 't-test', 'fail', 'critical', 'why')"));
  sqlite::Database& db = *old_;
  EXPECT_FALSE(db.exec("INSERT INTO gate_results (run_id, evaluated_at, gate_index, workload, "
                       "metric, kind, verdict, severity) VALUES (7, 99, 3, 'w', 'latency.p99', "
                       "'change', 'fail', 'critical')")
                   .ok());
  auto after = apply_migrations(db, all);
  ASSERT_TRUE(after.ok()) << after.message();
  EXPECT_EQ(query_text(db,
                       "SELECT run_id || '|' || evaluated_at || '|' || gate_index || '|' || "
                       "workload || '|' || kind || '|' || threshold || '|' || observed || '|' || "
                       "baseline || '|' || baseline_runs || '|' || p_value || '|' || alpha || "
                       "'|' || method || '|' || verdict || '|' || severity || '|' || explanation "
                       "FROM gate_results"),
            "7|99|2|w|relative|0.5|0.25|main|[1,2]|0.003|0.01|t-test|fail|critical|why");
  EXPECT_TRUE(db.exec("INSERT INTO gate_results (run_id, evaluated_at, gate_index, workload, "
                      "metric, kind, verdict, severity) VALUES (7, 99, 3, 'w', 'latency.p99', "
                      "'change', 'fail', 'critical')")
                  .ok());
  EXPECT_EQ(query_int(db,
                      "SELECT count(*) FROM sqlite_master WHERE name = "
                      "'gate_results_by_run'"),
            1);
}

// Schema version 8 fills in the figures of runs stored before it from their repetitions, with
// the definitions of results::metric_figure (errors summed, totals over totals, the peak), and
// leaves out the latency figures SQL cannot recompute from a histogram.
TEST_F(Migrations, TheFiguresVersionFillsInTheFiguresOfEarlierRuns) {
  const std::string rows =
      kTestbed +
      "INSERT INTO runs (id, scenario, scenario_text, scenario_hash, started_at, status, "
      "testbed_id) VALUES (1, 's', '', '', 0, 'ok', 1);"
      "INSERT INTO workloads (id, run_id, name, protocol, params, params_hash, status, "
      "repetition_count, ops_per_s_median, bytes_per_s_median, p99_ns_median, errors_total) "
      "VALUES (1, 1, 'w', 'http1', '{}', 'p', 'ok', 3, 1000, 5000, 1000000, 500);"
      "INSERT INTO repetitions (workload_id, idx, start_ns, duration_ns, data_window_ns, "
      "operations, successes, errors_total, bytes_sent, bytes_received, ops_per_s, latency_hdr, "
      "worker_cpu_s, worker_cpu_utilization, router_requests, router_cpu_s, router_rss_bytes) "
      "VALUES (1, 0, 0, 1, 1, 100, 100, 0, 0, 0, 900, x'', 1, 0.25, 100, 0.5, 2000),"
      "(1, 1, 0, 1, 1, 600, 100, 500, 0, 0, 1000, x'', 1, 0.5, 600, 1.0, 3000),"
      "(1, 2, 0, 1, 1, 100, 100, 0, 0, 0, 1100, x'', 1, 0.3, 100, 0.5, 1000);";
  ASSERT_NO_FATAL_FAILURE(write_old(8, "0008_gate_figures_calibration", rows));
  sqlite::Database& db = *old_;
  auto latest = apply_migrations(db, embedded_migrations());
  ASSERT_TRUE(latest.ok()) << latest.message();
  auto stmt = db.prepare("SELECT metric, value FROM workload_figures ORDER BY metric");
  ASSERT_TRUE(stmt.ok()) << stmt.message();
  std::map<std::string, double> figures;
  while (true) {
    auto row = stmt->step();
    ASSERT_TRUE(row.ok());
    if (!*row) break;
    figures[stmt->text(0)] = stmt->real(1);
  }
  const std::map<std::string, double> expected = {{"errors.count", 500},
                                                  {"errors.rate", 500.0 / 800},
                                                  {"router.cpu_per_request", 2.0 / 800},
                                                  {"router.rss_bytes", 3000},
                                                  {"throughput.bytes_per_s", 5000},
                                                  {"throughput.rps", 1000},
                                                  {"worker.cpu_utilization", 0.5}};
  EXPECT_EQ(figures, expected);  // no latency figure: not the median of percentiles
  EXPECT_EQ(query_int(db,
                      "SELECT count(*) FROM series_history WHERE metric = 'errors.count' "
                      "AND value = 500"),
            1);
  EXPECT_EQ(query_text(db, "SELECT typeof(p99_s) FROM workload_summary"), "null");
}

// Schema version 17 bounds each calibration by the runs stored before it (Store::calibration);
// one stored before that version is bounded by the runs that had started when it was stored.
TEST_F(Migrations, TheCalibrationBoundVersionBoundsEarlierCalibrationsByTheRunsStartedBefore) {
  const std::string rows =
      kTestbed +
      "INSERT INTO runs (id, scenario, scenario_text, scenario_hash, started_at, status, "
      "testbed_id) VALUES (1, 's', '', '', 100, 'ok', 1), (2, 's', '', '', 200, 'ok', 1), "
      "(3, 's', '', '', 300, 'ok', 1);"
      "INSERT INTO calibrations (id, testbed_id, scenario, workload, variant, params_hash, "
      "metric, calibrated_at, runs, run_ids, mean, cv, log_sd, alpha, detectable_1, "
      "detectable_5) VALUES (1, 1, 's', 'w', 'default', 'p', 'throughput.rps', 250, 2, "
      "'[1,2]', 1000, 0.01, 0.01, 0.01, 0.05, 0.02),"
      "(2, 1, 's', 'w', 'default', 'p', 'latency.p99', 50, 2, '[1,2]', 1, 0.01, 0.01, 0.01, "
      "0.05, 0.02);";
  ASSERT_NO_FATAL_FAILURE(write_old(17, "0017_calibration_bound", rows));
  auto latest = apply_migrations(*old_, embedded_migrations());
  ASSERT_TRUE(latest.ok()) << latest.message();
  EXPECT_EQ(query_int(*old_, "SELECT last_run_id FROM calibrations WHERE id = 1"), 2);
  EXPECT_EQ(query_int(*old_, "SELECT last_run_id FROM calibrations WHERE id = 2"), 0);
}

// The binaries version (0019) keeps a store of version 18 readable: its runs read back with no
// binary (not recorded), and a run stored afterwards records its own.
TEST_F(Migrations, TheBinariesVersionKeepsEarlierRunsReadableWithoutBinaries) {
  ASSERT_NO_FATAL_FAILURE(write_old(19, "0019_run_binaries", kTestbed + kRun));
  ASSERT_EQ(query_int(*old_, "SELECT count(*) FROM sqlite_master WHERE name = 'run_binaries'"), 0);
  ASSERT_NO_FATAL_FAILURE(open_migrated());
  auto old_run = store_->get_run(1);
  ASSERT_TRUE(old_run.ok()) << old_run.message();
  EXPECT_EQ(old_run->run.commit, "abc");
  EXPECT_TRUE(old_run->binaries.empty());

  RunInfo info = testing::test_run_info();
  info.binaries = {{"router", "/x/router", "--router-bin", "00ff", std::nullopt}};
  auto run = store_->begin_run(info);
  ASSERT_TRUE(run.ok()) << run.message();
  auto detail = store_->get_run(*run);
  ASSERT_TRUE(detail.ok()) << detail.message();
  EXPECT_EQ(detail->binaries, info.binaries);
  // The binaries go with their run.
  ASSERT_TRUE(store_->database().exec("PRAGMA foreign_keys = ON").ok());
  ASSERT_TRUE(store_->database()
                  .exec(("DELETE FROM runs WHERE id = " + std::to_string(*run)).c_str())
                  .ok());
  EXPECT_EQ(query_int(store_->database(), "SELECT count(*) FROM run_binaries"), 0);
}

// The arguments version (0020) keeps a store of version 19 readable: a command binary stored
// before it reads back with no arguments (not recorded), and a run stored afterwards keeps its
// command's arguments, which tell two variants of one program apart.
TEST_F(Migrations, TheArgumentsVersionKeepsEarlierBinariesReadableWithoutArguments) {
  ASSERT_NO_FATAL_FAILURE(
      write_old(20, "0020_binary_arguments",
                kTestbed + kRun +
                    "INSERT INTO run_binaries (run_id, role, path, origin, build_id) VALUES "
                    "(1, 'command new', '/x/router', 'command', '00ff');"));
  ASSERT_NO_FATAL_FAILURE(open_migrated());
  auto old_run = store_->get_run(1);
  ASSERT_TRUE(old_run.ok()) << old_run.message();
  ASSERT_EQ(old_run->binaries.size(), 1u);
  EXPECT_EQ(old_run->binaries[0].build_id, "00ff");
  EXPECT_FALSE(old_run->binaries[0].arguments.has_value());

  RunInfo info = testing::test_run_info();
  info.binaries = {{"command new", "/x/router", "command", "00ff", std::nullopt}};
  info.binaries[0].arguments = "--inject-work-ns 3000";
  auto run = store_->begin_run(info);
  ASSERT_TRUE(run.ok()) << run.message();
  auto detail = store_->get_run(*run);
  ASSERT_TRUE(detail.ok()) << detail.message();
  EXPECT_EQ(detail->binaries, info.binaries);
}

// The sessions-ended and Describe version (0022) keeps a store of version 21 readable: a
// repetition stored before it reads back with no sessions ended (NULL: not stored, which the
// reports say) and its workload with no Describe name or version; a workload stored afterwards
// keeps both.
TEST_F(Migrations, TheSessionsEndedVersionKeepsEarlierRunsReadableAndStoresTheNewFacts) {
  ASSERT_NO_FATAL_FAILURE(write_old(
      22, "0022_sessions_ended_worker_describe",
      kTestbed + kRun +
          "INSERT INTO workloads (id, run_id, name, protocol, params, params_hash, status) VALUES "
          "(1, 1, 'rpc', 'wamp_rpc', '{}', 'h', 'ok');"
          "INSERT INTO repetitions (workload_id, idx, start_ns, duration_ns, data_window_ns, "
          "operations, successes, errors_total, errors_by_kind, bytes_sent, bytes_received, "
          "ops_per_s, bytes_per_s, latency_hdr, worker_cpu_s, worker_cpu_utilization) VALUES "
          "(1, 0, 100, 1000, 1000, 10, 7, 3, '{\"protocol\":3}', 0, 0, 7.0, 0.0, x'00', 0.1, "
          "0.1);"));
  ASSERT_NO_FATAL_FAILURE(open_migrated());
  auto old_run = store_->get_run(1);
  ASSERT_TRUE(old_run.ok()) << old_run.message();
  ASSERT_EQ(old_run->workloads.size(), 1u);
  EXPECT_FALSE(old_run->workloads[0].worker_name.has_value());
  EXPECT_FALSE(old_run->workloads[0].worker_version.has_value());
  ASSERT_EQ(old_run->workloads[0].repetitions.size(), 1u);
  EXPECT_EQ(old_run->workloads[0].repetitions[0].errors_total, 3u);
  EXPECT_FALSE(old_run->workloads[0].repetitions[0].sessions_ended.has_value());

  auto run = store_->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok()) << run.message();
  results::WorkloadResult w;
  w.spec.name = "rpc";
  w.spec.protocol = scenario::Protocol::kWampRpc;
  w.worker_name = "kv-worker";
  w.worker_version = "1.2";
  results::Repetition ended;
  ended.operations = 10;
  ended.errors["protocol"] = 3;
  ended.sessions_ended = {{0, "GOODBYE wamp.close.close_realm", 3}};
  results::Repetition quiet;
  quiet.index = 1;
  quiet.operations = quiet.successes = 10;
  w.repetitions = {ended, quiet};
  ASSERT_TRUE(store_->store_workload(*run, w).ok());
  auto detail = store_->get_run(*run);
  ASSERT_TRUE(detail.ok()) << detail.message();
  ASSERT_EQ(detail->workloads.size(), 1u);
  const StoredWorkload& stored = detail->workloads[0];
  EXPECT_EQ(stored.worker_name, "kv-worker");
  EXPECT_EQ(stored.worker_version, "1.2");
  ASSERT_EQ(stored.repetitions.size(), 2u);
  EXPECT_EQ(stored.repetitions[0].sessions_ended,
            (std::vector<StoredSessionsEnded>{{0, "GOODBYE wamp.close.close_realm", 3}}));
  // None ended is stored as none, not as not stored.
  EXPECT_EQ(stored.repetitions[1].sessions_ended, std::vector<StoredSessionsEnded>{});
  EXPECT_EQ(query_text(store_->database(),
                       "SELECT sessions_ended FROM repetitions WHERE idx = 0 AND workload_id = "
                       "(SELECT max(id) FROM workloads)"),
            "[{\"reason\":\"GOODBYE wamp.close.close_realm\",\"sessions\":3,\"worker\":0}]");
}

// Version 23 keeps every run, with no origin (who started it was not recorded; it called them
// all local, which serve's jobs and clients may not have been), and every stored change-point
// analysis with its id, now of the operator's series, its change points still pointing at it;
// a new run records its origin, and the schema refuses any other.
TEST_F(Migrations, TheOriginVersionLeavesEarlierRunsUnrecordedAndKeepsTheirChangePoints) {
  ASSERT_NO_FATAL_FAILURE(write_old(
      23, "0023_run_origin",
      kTestbed +
          "INSERT INTO runs (id, scenario, scenario_text, scenario_hash, started_at, status, "
          "commit_id, branch, testbed_id) VALUES (1, 's', '', '', 100, 'ok', 'a', 'main', 1), "
          "(2, 's', '', '', 200, 'ok', 'b', 'main', 1);"
          "INSERT INTO change_series (id, scenario, testbed_id, workload, variant, params_hash, "
          "metric, points, last_run_id, parameters, resume_start, analysed_at) VALUES (7, 's', 1, "
          "'w', 'default', 'h', 'throughput.rps', 2, 2, '{}', 0, 300);"
          "INSERT INTO change_points (series_id, run_id, previous_run_id, position, runs_before, "
          "runs_after, median_before, median_after, p_value) VALUES (7, 2, 1, 1, 1, 1, 10, 20, "
          "0.001);"));
  ASSERT_NO_FATAL_FAILURE(open_migrated());
  sqlite::Database& db = store_->database();
  // Who started the earlier runs was not recorded (serve's jobs and clients may have): no
  // origin, not 'local', and counted as the operator's by the one side rule.
  EXPECT_EQ(query_int(db, "SELECT count(*) FROM runs WHERE origin IS NULL"), 2);
  const std::string side = "SELECT " + internal::series_side_sql() + " FROM runs r WHERE id = 1";
  EXPECT_EQ(query_text(db, side.c_str()), "operator");
  auto old_run = store_->get_run(1);
  ASSERT_TRUE(old_run.ok()) << old_run.message();
  EXPECT_EQ(old_run->run.origin, "");
  EXPECT_EQ(query_text(db, "SELECT submitted_by FROM change_series WHERE id = 7"), "operator");
  EXPECT_EQ(query_int(db, "SELECT count(*) FROM change_points WHERE series_id = 7"), 1);
  EXPECT_EQ(query_int(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);

  RunInfo client = testing::test_run_info();
  client.origin = "client";
  auto run = store_->begin_run(client);
  ASSERT_TRUE(run.ok()) << run.message();
  auto stored = store_->get_run(*run);
  ASSERT_TRUE(stored.ok()) << stored.message();
  EXPECT_EQ(stored->run.origin, "client");
  RunInfo unknown = testing::test_run_info();
  unknown.origin = "somebody";
  EXPECT_FALSE(store_->begin_run(unknown).ok());
}

// Version 24 keeps earlier workloads readable, their workers' threads not stored (not "none"),
// and stores each worker's Ready.threads in worker order; the column takes only JSON.
TEST_F(Migrations, TheWorkerThreadsVersionKeepsEarlierWorkloadsReadableWithoutThem) {
  ASSERT_NO_FATAL_FAILURE(write_old(
      24, "0024_worker_threads",
      kTestbed + kRun +
          "INSERT INTO workloads (id, run_id, name, protocol, params, params_hash, status) VALUES "
          "(1, 1, 'pubsub', 'wamp_pubsub', '{}', 'h', 'ok');"));
  ASSERT_NO_FATAL_FAILURE(open_migrated());
  auto old_run = store_->get_run(1);
  ASSERT_TRUE(old_run.ok()) << old_run.message();
  ASSERT_EQ(old_run->workloads.size(), 1u);
  EXPECT_FALSE(old_run->workloads[0].worker_threads.has_value());

  auto run = store_->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok()) << run.message();
  results::WorkloadResult w;
  w.spec.name = "pubsub";
  w.spec.protocol = scenario::Protocol::kWampPubSub;
  w.spec.threads = 8;
  w.worker_threads = {3, 2};
  ASSERT_TRUE(store_->store_workload(*run, w).ok());
  auto detail = store_->get_run(*run);
  ASSERT_TRUE(detail.ok()) << detail.message();
  ASSERT_EQ(detail->workloads.size(), 1u);
  EXPECT_EQ(detail->workloads[0].worker_threads, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(query_text(store_->database(),
                       "SELECT worker_threads FROM workloads WHERE id = (SELECT max(id) FROM "
                       "workloads)"),
            "[3,2]");
  EXPECT_FALSE(
      store_->database().exec("UPDATE workloads SET worker_threads = 'three' WHERE id = 1").ok());
}

// Version 25 adds the index a scenario's newest run is found through (runs_by_scenario_newest)
// to a store that has runs: the web history page's lookup finds the newest of them across
// testbeds, as before. The newest run is on testbed 2 of 3, so it is neither the first row of
// runs_by_scenario (testbed first) nor its last.
TEST_F(Migrations, TheNewestRunIndexVersionServesAStoreThatHasRuns) {
  ASSERT_NO_FATAL_FAILURE(write_old(
      25, "0025_runs_by_scenario_newest",
      std::string(
          "INSERT INTO testbeds (id, fingerprint, host, cpu_model, cores, kernel, governor, "
          "compiler, build_flags, first_seen) VALUES (1, 'f', 'h', 'c', 2, 'k', 'g', 'cc', '-O3', "
          "0), (2, 'g', 'h2', 'c', 2, 'k', 'g', 'cc', '-O3', 0), (3, 'i', 'h3', 'c', 2, 'k', 'g', "
          "'cc', '-O3', 0);"
          "INSERT INTO runs (id, scenario, scenario_text, scenario_hash, started_at, status, "
          "commit_id, branch, testbed_id, origin) VALUES (1, 's', '', '', 100, 'ok', 'a', 'main', "
          "1, 'local'), (2, 's', '', '', 200, 'ok', 'b', 'main', 3, 'local'), (3, 's', '', '', "
          "300, 'ok', 'c', 'main', 2, 'local');"
          "INSERT INTO workloads (id, run_id, name, protocol, params, params_hash, status) VALUES "
          "(1, 1, 'w', 'http1', '{}', 'first', 'ok'), (2, 2, 'w', 'http1', '{}', 'last', 'ok'), "
          "(3, 3, 'w', 'http1', '{}', 'newest', 'ok');")));
  ASSERT_NO_FATAL_FAILURE(open_migrated());
  EXPECT_EQ(query_int(store_->database(),
                      "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = "
                      "'runs_by_scenario_newest'"),
            1);
  auto found = store_->latest_workload_series("s", "w", "default", "");
  ASSERT_TRUE(found.ok()) << found.message();
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->testbed_id, 2);
  EXPECT_EQ((*found)->params_hash, "newest");
}

// Version 26 keeps earlier workloads readable, their sweep not stored, and stores the sweep a
// workload is one value of as the scenario's expansion set it; sweep_value takes only a
// non-negative integer.
TEST_F(Migrations, TheSweepVersionKeepsEarlierWorkloadsReadableWithoutTheirSweep) {
  ASSERT_NO_FATAL_FAILURE(write_old(
      26, "0026_workload_sweep",
      kTestbed +
          "INSERT INTO runs (id, scenario, scenario_text, scenario_hash, started_at, status, "
          "commit_id, branch, testbed_id, origin) VALUES (1, 's', '', '', 100, 'ok', 'abc', "
          "'main', 1, 'local');"
          "INSERT INTO workloads (id, run_id, name, protocol, params, params_hash, status) VALUES "
          "(1, 1, 'echo@request_bytes=64', 'http1', '{}', 'h', 'ok');"));
  ASSERT_NO_FATAL_FAILURE(open_migrated());
  auto old_run = store_->get_run(1);
  ASSERT_TRUE(old_run.ok()) << old_run.message();
  ASSERT_EQ(old_run->workloads.size(), 1u);
  EXPECT_FALSE(old_run->workloads[0].sweep_of.has_value());
  EXPECT_FALSE(old_run->workloads[0].sweep_parameter.has_value());
  EXPECT_FALSE(old_run->workloads[0].sweep_value.has_value());

  auto run = store_->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok()) << run.message();
  results::WorkloadResult swept, plain;
  swept.spec.name = "echo@request_bytes=4096";
  swept.spec.sweep_of = "echo";
  swept.spec.sweep_parameter = "request_bytes";
  swept.spec.sweep_value = 4096;
  plain.spec.name = "hello";
  ASSERT_TRUE(store_->store_workload(*run, swept).ok());
  ASSERT_TRUE(store_->store_workload(*run, plain).ok());
  auto detail = store_->get_run(*run);
  ASSERT_TRUE(detail.ok()) << detail.message();
  ASSERT_EQ(detail->workloads.size(), 2u);
  EXPECT_EQ(detail->workloads[0].sweep_of, "echo");
  EXPECT_EQ(detail->workloads[0].sweep_parameter, "request_bytes");
  EXPECT_EQ(detail->workloads[0].sweep_value, 4096u);
  // A workload of no sweep stores none (NULL, as a run stored before).
  EXPECT_FALSE(detail->workloads[1].sweep_of.has_value());
  EXPECT_FALSE(detail->workloads[1].sweep_parameter.has_value());
  EXPECT_FALSE(detail->workloads[1].sweep_value.has_value());
  EXPECT_EQ(query_int(store_->database(),
                      "SELECT count(*) FROM workloads WHERE sweep_of IS NULL AND sweep_parameter "
                      "IS NULL AND sweep_value IS NULL"),
            2);
  for (const char* value : {"'large'", "-1", "2.5"}) {
    const std::string sql =
        std::string("UPDATE workloads SET sweep_value = ") + value + " WHERE sweep_of = 'echo'";
    EXPECT_FALSE(store_->database().exec(sql.c_str()).ok()) << value;
  }
  // Only a parameter the scenario loader sweeps (scenario/sweep_section.cc) is stored.
  for (const char* parameter : {"'connections'", "'rate'", "'request_bytes'"}) {
    const std::string sql = std::string("UPDATE workloads SET sweep_parameter = ") + parameter +
                            " WHERE sweep_of = 'echo'";
    EXPECT_TRUE(store_->database().exec(sql.c_str()).ok()) << parameter;
  }
  for (const char* parameter : {"'threads'", "'Rate'", "''"}) {
    const std::string sql = std::string("UPDATE workloads SET sweep_parameter = ") + parameter +
                            " WHERE sweep_of = 'echo'";
    EXPECT_FALSE(store_->database().exec(sql.c_str()).ok()) << parameter;
  }
  // The three are a workload's sweep together, or none: a part of one is refused.
  for (const char* column : {"sweep_of", "sweep_parameter", "sweep_value"}) {
    const std::string unset =
        std::string("UPDATE workloads SET ") + column + " = NULL WHERE sweep_of = 'echo'";
    EXPECT_FALSE(store_->database().exec(unset.c_str()).ok()) << column;
  }
  for (const char* set : {"sweep_of = 'hello'", "sweep_parameter = 'rate'", "sweep_value = 1"}) {
    const std::string sql = std::string("UPDATE workloads SET ") + set + " WHERE sweep_of IS NULL";
    EXPECT_FALSE(store_->database().exec(sql.c_str()).ok()) << set;
  }
  EXPECT_EQ(query_int(store_->database(),
                      "SELECT count(*) FROM workloads WHERE sweep_of = 'echo' AND sweep_parameter "
                      "= 'request_bytes' AND sweep_value = 4096"),
            1);
  EXPECT_EQ(query_int(store_->database(),
                      "SELECT count(*) FROM workloads WHERE sweep_of IS NULL AND sweep_parameter "
                      "IS NULL AND sweep_value IS NULL"),
            2);
}

}  // namespace
}  // namespace benchgate::store
