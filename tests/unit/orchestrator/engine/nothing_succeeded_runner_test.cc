// A workload whose every operation failed fails once its windows are measured
// (results/nothing_succeeded.h), through the engine's fakes (engine_fakes.h): in a plain run,
// in a comparison (over each variant's windows, which it runs one by one), and not with
// expect_failures = true.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/histogram/hdr_histogram.h"
#include "engine_fakes.h"
#include "orchestrator/app/interrupt.h"
#include "orchestrator/engine/scenario_runner.h"

// A namespace of its own: the test programs are unity builds, one unit with the other runner
// tests, whose helpers have these names too.
namespace benchgate::engine::nothing_succeeded_test {

using results::WorkloadStatus;
using testing::FakeFactories;
using testing::FakePool;
using testing::FakeSut;

scenario::Workload workload(const std::string& name, uint32_t repetitions = 2) {
  scenario::Workload w;
  w.name = name;
  w.warmup_ns = 0;
  w.duration_ns = 10'000'000;
  w.repetitions = repetitions;
  w.workers = 1;
  w.connections = 1;
  return w;
}

// The fake worker's 100 operations, every one answered with an unexpected status: no success,
// so an empty latency histogram (latency is of successes only).
void every_request_answered_500(v1::WindowResult& result) {
  result.set_successes(0);
  (*result.mutable_errors())["status"] = result.operations();
  auto bytes = HdrHistogram().encode_compressed();
  result.mutable_latency()->set_hdr_v2_compressed(std::string(bytes.begin(), bytes.end()));
}

class NothingSucceeded : public ::testing::Test {
 protected:
  void SetUp() override {
    log_dir_ = std::filesystem::path(::testing::TempDir()) /
               ("engine-nothing-succeeded-" + std::to_string(::getpid()));
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

  // A comparison of two worker implementations, each its own pool: "builtin" the first,
  // "other" the second.
  scenario::Scenario compared(const scenario::Workload& w) {
    scenario::Scenario s;
    s.name = "fakes";
    s.workloads = {w};
    s.worker_impls["other"].command = {"true"};  // on PATH; the fake pool runs nothing
    s.compare_workers = {"builtin", "other"};
    return s;
  }

  FakeFactories factories_;
  EngineOptions options_;
  std::filesystem::path log_dir_;
};

// Every window of the first workload failed every request: it is failed with the counts and
// the kind, keeps its 3 repetitions as they came, and the run is not ok; the next workload
// runs and is ok.
TEST_F(NothingSucceeded, AWorkloadWhoseEveryRequestFailedFails) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  for (uint32_t window : {0u, 1u, 2u})
    pool.worker.windows[window].alter = every_request_answered_500;
  factories_.pools = {pool};
  scenario::Scenario s;
  s.name = "fakes";
  s.workloads = {workload("refused", 3), workload("after")};
  auto r = run(s);

  ASSERT_EQ(r.workloads.size(), 2u);
  const auto& refused = r.workloads[0];
  EXPECT_EQ(refused.status, WorkloadStatus::kFailed);
  EXPECT_EQ(refused.error,
            "no request succeeded in 3 repetitions: 300 requests, 300 errors (status 300)");
  ASSERT_EQ(refused.repetitions.size(), 3u);
  for (const auto& rep : refused.repetitions) {
    EXPECT_EQ(rep.successes, 0u);
    EXPECT_EQ(rep.errors.at("status"), 100u);
  }
  EXPECT_EQ(r.workloads[1].status, WorkloadStatus::kOk) << r.workloads[1].error;
  EXPECT_EQ(r.workloads[1].repetitions.size(), 2u);
  EXPECT_FALSE(r.ok());
}

// A stop (a Ctrl-C, a service's cancel) that comes once the last window was merged (raised
// by the observer told of it, on the runner's own thread): the windows all completed, so the
// verdict on them stands, failed, not interrupted (which the workload's other failures become
// while the stop flag is up).
TEST_F(NothingSucceeded, AStopAfterTheLastWindowLeavesTheVerdictFailed) {
  struct StopAfterTheLastWindow : RunObserver {
    void window_finished(const scenario::Workload&, const WindowInfo& info,
                         const results::Repetition*) override {
      if (info.measured && info.repetition == 2) app::set_run_cancelled(true);
    }
  } observer;
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  for (uint32_t window : {0u, 1u}) pool.worker.windows[window].alter = every_request_answered_500;
  factories_.pools = {pool};
  scenario::Scenario s;
  s.name = "fakes";
  s.workloads = {workload("refused")};
  auto r = run_scenario(s, options_, observer);

  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[0].error,
            "no request succeeded in 2 repetitions: 200 requests, 200 errors (status 200)");
  EXPECT_EQ(r.workloads[0].repetitions.size(), 2u);
}

// One window with successes among failing ones: judged by its figures, ok as before.
TEST_F(NothingSucceeded, OneWindowWithSuccessesKeepsTheWorkloadOk) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.worker.windows[0].alter = every_request_answered_500;
  factories_.pools = {pool};
  scenario::Scenario s;
  s.name = "fakes";
  s.workloads = {workload("half")};
  auto r = run(s);

  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kOk) << r.workloads[0].error;
  EXPECT_EQ(r.workloads[0].error_count(), 100u);
  EXPECT_TRUE(r.ok());
}

// expect_failures = true: failing is what the workload measures; it stays ok with its errors.
TEST_F(NothingSucceeded, ExpectFailuresKeepsItOk) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  for (uint32_t window : {0u, 1u}) pool.worker.windows[window].alter = every_request_answered_500;
  factories_.pools = {pool};
  scenario::Scenario s;
  s.name = "fakes";
  s.workloads = {workload("expected")};
  s.workloads[0].expect_failures = true;
  auto r = run(s);

  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kOk) << r.workloads[0].error;
  EXPECT_EQ(r.workloads[0].error_count(), 200u);
  EXPECT_TRUE(r.ok());
}

// A comparison runs a variant's windows one at a time, and judges them together: the variant
// whose every window failed is failed after both (not stopped after the first), the other ok.
TEST_F(NothingSucceeded, AComparedVariantWhoseEveryRequestFailedFails) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script failing;
  for (uint32_t window : {0u, 1u}) {
    failing.worker.windows[window].alter = every_request_answered_500;
  }
  factories_.pools = {FakePool::Script{}, failing};
  auto r = run(compared(workload("w1")));

  ASSERT_EQ(r.workloads.size(), 2u);
  EXPECT_EQ(r.workloads[0].variant, "builtin");
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kOk) << r.workloads[0].error;
  EXPECT_EQ(r.workloads[1].variant, "other");
  EXPECT_EQ(r.workloads[1].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[1].error,
            "no request succeeded in 2 repetitions: 200 requests, 200 errors (status 200)");
  EXPECT_EQ(r.workloads[1].repetitions.size(), 2u);
  EXPECT_FALSE(r.ok());
}

// A variant's first window failed every request, its second did not: over its windows
// something succeeded, so it is ok (the rule is the variant's, not each window's).
TEST_F(NothingSucceeded, AComparedVariantWithOneWindowOfSuccessesIsOk) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script first_fails;
  first_fails.worker.windows[0].alter = every_request_answered_500;
  factories_.pools = {FakePool::Script{}, first_fails};
  auto r = run(compared(workload("w1")));

  ASSERT_EQ(r.workloads.size(), 2u);
  for (const auto& w : r.workloads) {
    EXPECT_EQ(w.status, WorkloadStatus::kOk) << w.variant << ": " << w.error;
    EXPECT_EQ(w.repetitions.size(), 2u) << w.variant;
  }
  EXPECT_EQ(r.workloads[1].error_count(), 100u);
  EXPECT_TRUE(r.ok());
}

}  // namespace benchgate::engine::nothing_succeeded_test
