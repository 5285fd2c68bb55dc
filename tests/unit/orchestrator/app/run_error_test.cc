// What `runs.error` says for a run without a scenario-level error (orchestrator/app/run_one.h):
// the first failed workload, or the critical gate that is an error (README, "Run status"). The
// engine runs through fakes (tests/unit/orchestrator/engine/engine_fakes.h), the store is a
// real SQLite file.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "engine_fakes.h"
#include "orchestrator/app/run_one.h"
#include "orchestrator/metrics/metrics_observer.h"
#include "orchestrator/report/json_report.h"
#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "store_test_support.h"

namespace benchgate::app {
namespace {

using engine::testing::FakeFactories;
using engine::testing::FakePool;
using engine::testing::FakeSut;

scenario::Scenario one_workload() {
  scenario::Workload w;
  w.name = "w1";
  w.warmup_ns = 0;
  w.duration_ns = 10'000'000;
  w.repetitions = 1;
  w.workers = 1;
  w.connections = 1;
  scenario::Scenario s;
  s.name = "fakes";
  s.workloads = {w};
  return s;
}

class RunError : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = store::Store::open(dir_.file("runs.db"));
    ASSERT_TRUE(opened.ok()) << opened.message();
    store_ = std::move(*opened);
    out_ = std::tmpfile();
    ASSERT_NE(out_, nullptr);
    std::filesystem::create_directories(dir_.file("logs"));
    options_.factories = &factories_;
    options_.log_dir = dir_.file("logs");
  }
  void TearDown() override {
    if (out_ != nullptr) std::fclose(out_);
  }

  // Runs `s` and reads its row back from the database file; `json_error` gets the `error` its
  // --json report says.
  store::RunSummary run(const scenario::Scenario& s, nlohmann::json* json_error = nullptr) {
    report::TerminalReport terminal(out_, out_);
    auto report = run_one(s, RunPolicy{}, options_, *store_, store::testing::test_run_info(),
                          terminal, nullptr);
    if (json_error != nullptr) {
      *json_error = nlohmann::json::parse(
          report::json_report({report}, report.exit_code))["scenarios"][0]["error"];
    }
    auto stored = store_->get_run(report.run_id);
    EXPECT_TRUE(stored.ok()) << stored.message();
    return stored ? stored->run : store::RunSummary{};
  }

  store::testing::TempDir dir_;
  std::unique_ptr<store::Store> store_;
  std::FILE* out_ = nullptr;
  FakeFactories factories_;
  engine::EngineOptions options_;
};

TEST_F(RunError, ARunFailedByAWorkloadStoresThatWorkloadsError) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.worker.windows[0].die = {0};  // the only worker ends its stream in the only window
  factories_.pools = {pool};
  const store::RunSummary row = run(one_workload());
  EXPECT_EQ(row.status, "failed");
  EXPECT_EQ(row.exit_code, 3);
  EXPECT_TRUE(row.error.starts_with("workload 'w1' failed: worker 0")) << row.error;
}

TEST_F(RunError, AnOkRunThatExits3OnACriticalGateErrorStoresTheGatesReason) {
  factories_.suts = {FakeSut::Script{}};
  factories_.pools = {FakePool::Script{}};
  scenario::Scenario s = one_workload();
  scenario::Gate gate;
  gate.workload = "w1";
  gate.metric = "router.cpu_per_request";  // the fake system under test reports no metrics
  gate.max = 1;
  s.gates = {gate};
  const store::RunSummary row = run(s);
  EXPECT_EQ(row.status, "ok");
  EXPECT_EQ(row.exit_code, 3);
  EXPECT_TRUE(
      row.error.starts_with("critical gate router.cpu_per_request on workload 'w1' is an error: "))
      << row.error;
  EXPECT_GT(row.error.size(), std::string("critical gate ... is an error: ").size());
}

// The --json report says why as the store (and so the HTML report) does: one text.
TEST_F(RunError, TheJsonReportSaysTheStoredReasonOfARunThatExits3) {
  factories_.suts = {FakeSut::Script{}};
  factories_.pools = {FakePool::Script{}};
  scenario::Scenario s = one_workload();
  scenario::Gate gate;
  gate.workload = "w1";
  gate.metric = "router.cpu_per_request";  // the fake system under test reports no metrics
  gate.max = 1;
  s.gates = {gate};
  nlohmann::json error;
  const store::RunSummary row = run(s, &error);
  ASSERT_EQ(row.exit_code, 3);
  ASSERT_TRUE(error.is_string()) << error.dump();
  EXPECT_EQ(error.get<std::string>(), row.error);
}

TEST_F(RunError, TheJsonReportSaysTheStoredReasonOfARunFailedByAWorkload) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.worker.windows[0].die = {0};
  factories_.pools = {pool};
  nlohmann::json error;
  const store::RunSummary row = run(one_workload(), &error);
  ASSERT_EQ(row.status, "failed");
  ASSERT_TRUE(error.is_string()) << error.dump();
  EXPECT_EQ(error.get<std::string>(), row.error);
}

TEST_F(RunError, TheJsonReportOfARunThatExits0HasNoError) {
  factories_.suts = {FakeSut::Script{}};
  factories_.pools = {FakePool::Script{}};
  nlohmann::json error;
  const store::RunSummary row = run(one_workload(), &error);
  ASSERT_EQ(row.exit_code, 0);
  EXPECT_TRUE(error.is_null()) << error.dump();
}

TEST_F(RunError, ARunThatExits0StoresNoError) {
  factories_.suts = {FakeSut::Script{}};
  factories_.pools = {FakePool::Script{}};
  const store::RunSummary row = run(one_workload());
  EXPECT_EQ(row.status, "ok");
  EXPECT_EQ(row.exit_code, 0);
  EXPECT_EQ(row.error, "");
}

// Another process's write lock on the database, taken once the run's workload is stored and
// held until the test releases it: the run's end cannot be written. Readers go on beside it
// (WAL), so the run reads back as 'running'.
class LockAfterTheWorkload : public engine::RunObserver {
 public:
  explicit LockAfterTheWorkload(std::string path) : path_(std::move(path)) {}
  void workload_finished(const results::WorkloadResult&) override {
    auto db = store::sqlite::Database::open(path_);
    ASSERT_TRUE(db.ok()) << db.message();
    holder_ = std::move(*db);
    ASSERT_TRUE(holder_->exec("BEGIN IMMEDIATE").ok());
  }
  void release() { holder_.reset(); }

 private:
  std::string path_;
  std::unique_ptr<store::sqlite::Database> holder_;
};

// A run whose end the database never took (locked past the busy timeout, the row left
// 'running' for a later open to call abandoned) exits 3, and its report and
// benchgate_runs_total say 'failed', the status the store would have written, not 'ok'.
TEST_F(RunError, ARunWhoseEndCouldNotBeStoredAtAllIsReportedFailedNotOk) {
  const std::string path = dir_.file("locked.db");
  auto opened = store::Store::open(path, store::OpenOptions{.busy_timeout_ms = 20});
  ASSERT_TRUE(opened.ok()) << opened.message();
  factories_.suts = {FakeSut::Script{}};
  factories_.pools = {FakePool::Script{}};
  LockAfterTheWorkload lock(path);
  report::TerminalReport terminal(out_, out_);
  auto report = run_one(one_workload(), RunPolicy{}, options_, **opened,
                        store::testing::test_run_info(), terminal, &lock);
  lock.release();
  EXPECT_TRUE(report.result.ok()) << "it measured to its end";
  EXPECT_EQ(report.exit_code, 3);
  EXPECT_EQ(report.status, "failed");
  EXPECT_EQ(metrics::MetricsObserver::run_status_label(report), "failed");
  auto stored = (*opened)->get_run(report.run_id);
  ASSERT_TRUE(stored.ok()) << stored.message();
  EXPECT_EQ(stored->run.status, "running") << "no end was written";
  // The reason the store would have held (Store::refused_end_reason), once: "cannot finish
  // run: " and the database's refusal, without finish_run's own prefix.
  EXPECT_EQ(report.error.rfind("cannot finish run: ", 0), 0u) << report.error;
  EXPECT_EQ(report.error.find("finish_run"), std::string::npos) << report.error;
  EXPECT_NE(report.error.find("locked"), std::string::npos) << report.error;
}

}  // namespace
}  // namespace benchgate::app
