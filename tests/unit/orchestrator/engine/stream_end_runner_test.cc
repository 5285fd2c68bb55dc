// How the engine explains a Run stream that its worker ended with an error (a connect it could
// not make), through the fakes of engine_fakes.h: a stream marked as the worker's own
// (common/workload/run_stream_end.h) is reported without waiting for the worker's death, and
// one without the mark (a pluggable or older worker) still waits for it. Counted in looks at
// the worker and the system under test, not in time.
#include <gtest/gtest.h>

#include <filesystem>

#include "engine_fakes.h"
#include "orchestrator/engine/scenario_runner.h"

namespace benchgate::engine {
namespace {

using results::WorkloadStatus;
using testing::FakeFactories;
using testing::FakePool;
using testing::FakeSut;

constexpr const char* kRefused =
    "worker 0 at fake:0 ended its stream: UNAVAILABLE: workload 'refused': cannot connect to "
    "127.0.0.1:9: Connection refused";

class StreamEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    log_dir_ = std::filesystem::path(::testing::TempDir()) /
               ("engine-stream-end-" + std::to_string(::getpid()));
    std::filesystem::create_directories(log_dir_);
    options_.factories = &factories_;
    options_.log_dir = log_dir_.string();
  }
  void TearDown() override { std::filesystem::remove_all(log_dir_); }

  // One workload whose one worker cannot connect; `marked`: it says it ended the stream itself.
  ScenarioResult run_refused(bool marked) {
    factories_.suts = {sut_};
    pool_.worker.cannot_connect = true;
    pool_.worker.marks_its_end = marked;
    factories_.pools = {pool_};
    scenario::Workload w;
    w.name = "refused";
    w.warmup_ns = 0;
    w.duration_ns = 10'000'000;
    w.repetitions = 1;
    w.workers = 1;
    w.connections = 1;
    scenario::Scenario s;
    s.name = "fakes";
    s.workloads = {w};
    RunObserver quiet;
    return run_scenario(s, options_, quiet);
  }

  FakeFactories factories_;
  FakeSut::Script sut_;
  FakePool::Script pool_;
  EngineOptions options_;
  std::filesystem::path log_dir_;
};

TEST_F(StreamEnd, AStreamTheWorkerMarksAsItsOwnEndIsReportedWithoutWaitingForItsDeath) {
  auto r = run_refused(/*marked=*/true);

  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[0].error, kRefused);
  // The worker's process is never looked at: it was alive to mark its status.
  EXPECT_EQ(*pool_.failure_asked, 0);
  // The system under test is, 10 times (a refusal may come from a system that is dying), and
  // once more by the scenario after the failed workload.
  EXPECT_EQ(*sut_.failure_asked, 10 + 1);
}

TEST_F(StreamEnd, AStreamEndedWithoutTheMarkWaitsForTheWorkersDeathAndKeepsItsMessage) {
  auto r = run_refused(/*marked=*/false);

  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[0].error, kRefused);
  // Its process is looked at, as that of a worker whose stream broke as it died.
  EXPECT_GT(*pool_.failure_asked, 0);
}

}  // namespace
}  // namespace benchgate::engine
