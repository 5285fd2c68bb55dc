// The comparison runner (orchestrator/engine/comparison_runner.cc) through the engine's fakes
// (engine_fakes.h): what each compared variant's result carries besides its repetitions.
#include <gtest/gtest.h>

#include <filesystem>

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

}  // namespace
}  // namespace benchgate::engine
