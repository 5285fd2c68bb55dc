// The comparison runner (orchestrator/engine/comparison_runner.cc) through the engine's fakes
// (engine_fakes.h): what each compared variant's result carries besides its repetitions.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <vector>

#include "engine_fakes.h"
#include "orchestrator/app/interrupt.h"
#include "orchestrator/engine/scenario_runner.h"

namespace benchgate::engine {
namespace {

using results::WorkloadStatus;
using testing::FakeFactories;
using testing::FakePool;
using testing::FakeSut;

scenario::Workload compared_workload(const std::string& name) {
  scenario::Workload w;
  w.name = name;
  w.warmup_ns = 0;
  w.duration_ns = 10'000'000;
  w.repetitions = 2;
  w.workers = 1;
  w.connections = 1;
  return w;
}

class ComparisonRunner : public ::testing::Test {
 protected:
  void SetUp() override {
    log_dir_ = std::filesystem::path(::testing::TempDir()) /
               ("engine-comparison-" + std::to_string(::getpid()));
    std::filesystem::create_directories(log_dir_);
    options_.factories = &factories_;
    options_.log_dir = log_dir_.string();
  }
  void TearDown() override {
    app::set_run_cancelled(false);
    std::filesystem::remove_all(log_dir_);
  }

  ScenarioResult run(const scenario::Scenario& s) {
    RunObserver quiet;
    return run_scenario(s, options_, quiet);
  }

  FakeFactories factories_;
  EngineOptions options_;
  std::filesystem::path log_dir_;
};

// Every row says where its load came from (docs/MEASUREMENT.md, "Where the load came from"):
// a compared variant as much as a plain workload. The fake workers are at a loopback address.
TEST_F(ComparisonRunner, ComparedRoutersSayWhereTheirLoadCameFrom) {
  factories_.suts = {FakeSut::Script{}, FakeSut::Script{}};
  factories_.pools = {FakePool::Script{}};
  scenario::Scenario s;
  s.name = "fakes";
  s.workloads = {compared_workload("w1")};
  s.routers["a"] = {};
  s.routers["b"] = {};
  s.compare_routers = {"a", "b"};
  auto r = run(s);

  ASSERT_EQ(r.workloads.size(), 2u);
  for (const auto& w : r.workloads) {
    EXPECT_EQ(w.status, WorkloadStatus::kOk) << w.variant << ": " << w.error;
    EXPECT_EQ(w.repetitions.size(), 2u) << w.variant;
    EXPECT_EQ(w.load_from, "local") << w.variant;
  }
}

TEST_F(ComparisonRunner, ComparedWorkersSayWhereTheirLoadCameFrom) {
  factories_.suts = {FakeSut::Script{}};
  factories_.pools = {FakePool::Script{}, FakePool::Script{}};
  scenario::Scenario s;
  s.name = "fakes";
  s.workloads = {compared_workload("w1")};
  s.worker_impls["other"].command = {"true"};  // on PATH; the fake pool runs nothing
  s.compare_workers = {"builtin", "other"};
  auto r = run(s);

  ASSERT_EQ(r.workloads.size(), 2u);
  for (const auto& w : r.workloads) {
    EXPECT_EQ(w.status, WorkloadStatus::kOk) << w.variant << ": " << w.error;
    EXPECT_EQ(w.load_from, "local") << w.variant;
  }
}

// A variant that never measured had no workers: nothing to say where load came from.
TEST_F(ComparisonRunner, AVariantThatNeverRanHasNoLoadOrigin) {
  factories_.suts = {FakeSut::Script{},
                     FakeSut::Script{Error{"router exited with status 1 before it was ready"}}};
  factories_.pools = {FakePool::Script{}};
  scenario::Scenario s;
  s.name = "fakes";
  s.workloads = {compared_workload("w1")};
  s.routers["ours"] = {};
  s.routers["broken"] = {};
  s.compare_routers = {"ours", "broken"};
  auto r = run(s);

  ASSERT_EQ(r.workloads.size(), 2u);
  EXPECT_EQ(r.workloads[0].load_from, "local");
  EXPECT_EQ(r.workloads[1].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[1].load_from, "");
}

// Comparing routers, the workload's own `worker` drives every variant (docs/SCENARIOS.md,
// "Comparing routers: `[routers.NAME]` and `[compare]`"): its windows go to that implementation's
// pool, one shared by every router, and never to the bundled worker's.
TEST_F(ComparisonRunner, ComparedRoutersAreLoadedByTheWorkloadsWorker) {
  auto impl_windows = std::make_shared<std::atomic<int>>(0);
  FakePool::Script impl;
  for (uint32_t window = 0; window < 8; ++window) {
    impl.worker.windows[window].before = [impl_windows] { ++*impl_windows; };
  }
  auto impl_starts = impl.starts;
  factories_.suts = {FakeSut::Script{}, FakeSut::Script{}};
  factories_.pools = {impl};  // no workload uses the bundled worker: no pool of it is made
  scenario::Scenario s;
  s.name = "fakes";
  s.workloads = {compared_workload("w1")};
  s.workloads[0].worker = "other";
  s.worker_impls["other"].command = {"true"};  // on PATH; the fake pool runs nothing
  s.routers["a"] = {};
  s.routers["b"] = {};
  s.compare_routers = {"a", "b"};
  auto r = run(s);

  ASSERT_EQ(r.workloads.size(), 2u);
  for (const auto& w : r.workloads) {
    EXPECT_EQ(w.status, WorkloadStatus::kOk) << w.variant << ": " << w.error;
    EXPECT_EQ(w.repetitions.size(), 2u) << w.variant;
    EXPECT_EQ(w.spec.worker, "other") << w.variant;
  }
  // One pool of the implementation, started once for both routers, ran every window.
  ASSERT_EQ(factories_.pool_binaries.size(), 1u);
  EXPECT_EQ(std::filesystem::path(factories_.pool_binaries[0]).filename(), "true");
  EXPECT_EQ(*impl_starts, std::vector<size_t>{1});
  EXPECT_EQ(impl_windows->load(), 4);
}

// Comparing routers, the shared workers of --workers-at (or [workers] at, or the bundled
// worker) are started at the first workload that uses them: when every workload has its own
// `worker`, remote workers that are down fail nothing.
TEST_F(ComparisonRunner, ComparedRoutersWhoseWorkloadsAllHaveTheirOwnWorkerNeedNoSharedWorkers) {
  FakePool::Script impl;
  auto impl_starts = impl.starts;
  FakePool::Script down;  // the pool a second request would get: it does not start
  down.start_error = Error{"worker 127.0.0.1:1 is not reachable"};
  auto down_starts = down.starts;
  factories_.suts = {FakeSut::Script{}, FakeSut::Script{}};
  factories_.pools = {impl, down};
  options_.worker_addresses = {"127.0.0.1:1"};
  scenario::Scenario s;
  s.name = "fakes";
  s.workloads = {compared_workload("w1"), compared_workload("w2")};
  for (auto& w : s.workloads) w.worker = "other";
  s.worker_impls["other"].command = {"true"};
  s.routers["a"] = {};
  s.routers["b"] = {};
  s.compare_routers = {"a", "b"};
  auto r = run(s);

  ASSERT_EQ(r.workloads.size(), 4u);
  for (const auto& w : r.workloads) {
    EXPECT_EQ(w.status, WorkloadStatus::kOk) << w.spec.name << " " << w.variant << ": " << w.error;
    EXPECT_EQ(w.repetitions.size(), 2u) << w.spec.name << " " << w.variant;
  }
  EXPECT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(factories_.pool_binaries.size(), 1u);  // never a connecting pool
  EXPECT_EQ(std::filesystem::path(factories_.pool_binaries[0]).filename(), "true");
  EXPECT_EQ(*impl_starts, std::vector<size_t>{1});
  EXPECT_TRUE(down_starts->empty());
}

// The workload's implementation not installed: no router variant measures it (never the
// bundled worker instead), and the comparison's other workloads still run.
TEST_F(ComparisonRunner, ComparedRoutersWithAWorkerNotInstalledAreNotConfigured) {
  factories_.suts = {FakeSut::Script{}, FakeSut::Script{}};
  factories_.pools = {FakePool::Script{}};
  scenario::Scenario s;
  s.name = "fakes";
  s.workloads = {compared_workload("absent"), compared_workload("w2")};
  s.workloads[0].worker = "missing";
  s.worker_impls["missing"].command = {"benchgate-no-such-worker-program"};
  s.routers["a"] = {};
  s.routers["b"] = {};
  s.compare_routers = {"a", "b"};
  auto r = run(s);

  ASSERT_EQ(r.workloads.size(), 4u);
  for (size_t i = 0; i < 2; ++i) {
    const auto& w = r.workloads[i];
    EXPECT_EQ(w.spec.name, "absent");
    EXPECT_EQ(w.status, WorkloadStatus::kNotConfigured) << w.variant << ": " << w.error;
    EXPECT_NE(w.error.find("benchgate-no-such-worker-program"), std::string::npos) << w.error;
    EXPECT_TRUE(w.repetitions.empty()) << w.variant;
  }
  for (size_t i = 2; i < 4; ++i) {
    const auto& w = r.workloads[i];
    EXPECT_EQ(w.spec.name, "w2");
    EXPECT_EQ(w.status, WorkloadStatus::kOk) << w.variant << ": " << w.error;
    EXPECT_EQ(w.repetitions.size(), 2u) << w.variant;
  }
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(factories_.pool_binaries.size(), 1u);
}

// The workload's implementation does not start: every variant of each workload using it
// fails, it is not started again for the next one, and a workload of the bundled worker runs.
TEST_F(ComparisonRunner, ComparedRoutersWhoseWorkerDoesNotStartFailEachWorkloadUsingIt) {
  FakePool::Script broken;
  broken.start_error = Error{"worker 0 exited with status 1 before it was ready"};
  auto broken_starts = broken.starts;
  factories_.suts = {FakeSut::Script{}, FakeSut::Script{}};
  factories_.pools = {broken, FakePool::Script{}};  // x1 starts 'other' first, then w2 the bundled
  scenario::Scenario s;
  s.name = "fakes";
  s.workloads = {compared_workload("x1"), compared_workload("w2"), compared_workload("x3")};
  s.workloads[0].worker = "other";
  s.workloads[2].worker = "other";
  s.worker_impls["other"].command = {"true"};
  s.routers["a"] = {};
  s.routers["b"] = {};
  s.compare_routers = {"a", "b"};
  auto r = run(s);

  ASSERT_EQ(r.workloads.size(), 6u);
  for (const auto& w : r.workloads) {
    if (w.spec.name == "w2") {
      EXPECT_EQ(w.status, WorkloadStatus::kOk) << w.variant << ": " << w.error;
      EXPECT_EQ(w.repetitions.size(), 2u) << w.variant;
    } else {
      EXPECT_EQ(w.status, WorkloadStatus::kFailed) << w.spec.name << " " << w.variant;
      EXPECT_NE(w.error.find("worker 'other' did not start"), std::string::npos) << w.error;
      EXPECT_TRUE(w.repetitions.empty()) << w.spec.name << " " << w.variant;
    }
  }
  EXPECT_EQ(broken_starts->size(), 1u);
  EXPECT_FALSE(r.ok());
}

// Each variant carries the threads its workers said they run (Ready.threads), which the reports
// show where they differ from the scenario's: a worker of its own may run fewer than asked.
TEST_F(ComparisonRunner, EachVariantCarriesTheThreadsItsWorkersSaidTheyRun) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script fewer;
  fewer.worker.ready_threads = 1;
  factories_.pools = {FakePool::Script{}, fewer};
  scenario::Scenario s;
  s.name = "fakes";
  scenario::Workload w = compared_workload("w1");
  w.threads = 2;
  w.connections = 2;
  s.workloads = {w};
  s.worker_impls["other"].command = {"true"};  // on PATH; the fake pool runs nothing
  s.compare_workers = {"builtin", "other"};
  auto r = run(s);

  ASSERT_EQ(r.workloads.size(), 2u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kOk) << r.workloads[0].error;
  EXPECT_EQ(r.workloads[0].worker_threads, std::vector<uint32_t>{2});
  EXPECT_EQ(r.workloads[1].status, WorkloadStatus::kOk) << r.workloads[1].error;
  EXPECT_EQ(r.workloads[1].worker_threads, std::vector<uint32_t>{1});
}

}  // namespace
}  // namespace benchgate::engine
