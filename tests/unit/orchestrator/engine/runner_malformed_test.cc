// What `run` does with a worker that breaks the protocol's rules on a result, a progress event
// or its ready (workers/result_checks.h, the rules worker-check applies too): the workload
// fails naming the worker, the window and the field, and nothing the worker sent becomes a
// figure. Through the engine's fakes (engine_fakes.h), in one process.
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <memory>

#include "engine_fakes.h"
#include "orchestrator/engine/scenario_runner.h"

namespace benchgate::engine {
namespace {

using results::WorkloadStatus;
using testing::FakeFactories;
using testing::FakePool;
using testing::FakeSut;

class RunnerMalformed : public ::testing::Test {
 protected:
  void SetUp() override {
    log_dir_ = std::filesystem::path(::testing::TempDir()) /
               ("engine-malformed-" + std::to_string(::getpid()));
    std::filesystem::create_directories(log_dir_);
    options_.log_dir = log_dir_.string();
  }
  void TearDown() override { std::filesystem::remove_all(log_dir_); }

  // One workload of one worker, one connection and two 10 ms repetitions (windows 0 and 1, no
  // warm-up), whose worker follows `script`: its result, that the workload failed, and that
  // the first repetition was kept and no later one made.
  results::WorkloadResult run_failing(const FakePool::Script& script) {
    // Fakes of their own for each run: a test may run several.
    factories_ = std::make_unique<FakeFactories>();
    factories_->suts = {FakeSut::Script{}};
    factories_->pools = {script};
    options_.factories = factories_.get();
    scenario::Workload w;
    w.name = "victim";
    w.warmup_ns = 0;
    w.duration_ns = 10'000'000;
    w.repetitions = 2;
    w.workers = 1;
    w.connections = 1;
    scenario::Scenario s;
    s.name = "fakes";
    s.workloads = {w};
    RunObserver quiet;
    auto r = run_scenario(s, options_, quiet);
    EXPECT_FALSE(r.ok());
    if (r.workloads.size() != 1) {
      ADD_FAILURE() << r.workloads.size() << " workloads";
      return results::WorkloadResult();
    }
    EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kFailed);
    return r.workloads[0];
  }

  // The error of a workload whose worker altered its result of window 1 with `alter`.
  std::string refused(std::function<void(v1::WindowResult&)> alter) {
    FakePool::Script script;
    script.worker.windows[1].alter = std::move(alter);
    auto result = run_failing(script);
    EXPECT_EQ(result.repetitions.size(), 1u);  // window 0's, nothing of window 1
    return result.error;
  }

  std::unique_ptr<FakeFactories> factories_;
  EngineOptions options_;
  std::filesystem::path log_dir_;
};

TEST_F(RunnerMalformed, NegativeCpuIsRefusedRatherThanStoredAsAnIdleWorker) {
  EXPECT_EQ(refused([](v1::WindowResult& r) {
              r.set_cpu_user_ns(-5);
              r.set_wall_ns(-1000);
            }),
            "worker 0 sent a malformed result: in window 1, cpu_user_ns -5 ns is negative");
  EXPECT_EQ(refused([](v1::WindowResult& r) {
              r.set_cpu_user_ns(5);
              r.set_wall_ns(0);
            }),
            "worker 0 sent a malformed result: in window 1, wall_ns 0 ns is not above 0 (the "
            "window's wall time, which the CPU is a share of)");
}

TEST_F(RunnerMalformed, AThreadOnACpuLongerThanItsWindowIsRefusedRatherThanFlaggedSaturated) {
  EXPECT_EQ(refused([](v1::WindowResult& r) {
              auto* thread = r.add_thread_cpu();
              thread->set_wall_ns(r.wall_ns());
              thread->set_cpu_ns(50 * r.wall_ns());
            }),
            "worker 0 sent a malformed result: in window 1, thread_cpu[0].cpu_ns 500000000 ns "
            "exceeds its wall_ns 10000000 ns by more than 10 ms (a thread runs on one CPU at a "
            "time; 10 ms: a CPU clock's coarsest tick)");
  EXPECT_EQ(refused([](v1::WindowResult& r) {
              auto* thread = r.add_thread_cpu();
              thread->set_wall_ns(r.wall_ns());
              thread->set_cpu_ns(-1);
            }),
            "worker 0 sent a malformed result: in window 1, thread_cpu[0].cpu_ns -1 ns is "
            "negative");
}

// With the clock exchange the start on the worker's own clock is known: a started_worker_ns an
// hour or more from it is refused, rather than become a start skew of centuries (or overflow
// being converted to the orchestrator's clock).
TEST_F(RunnerMalformed, AStartFarFromTheOneSentOnTheWorkersClockIsRefused) {
  FakePool::Script script;
  script.worker.clock_exchange = true;
  script.worker.windows[1].alter = [](v1::WindowResult& r) {
    r.set_started_worker_ns(std::numeric_limits<int64_t>::max());
  };
  const auto result = run_failing(script);
  EXPECT_EQ(result.repetitions.size(), 1u);
  EXPECT_EQ(result.error.rfind("worker 0 sent a malformed result: in window 1, started_worker_ns "
                               "9223372036854775807 is ",
                               0),
            0u)
      << result.error;
  EXPECT_NE(result.error.find(" ns after the window's end on the worker's clock "
                              "(start_at_worker_ns "),
            std::string::npos)
      << result.error;
}

TEST_F(RunnerMalformed, ADataWindowInSecondsIsRefusedRatherThanDividedBy) {
  std::string start;
  const std::string error = refused([&](v1::WindowResult& r) {
    r.clear_in_window();  // throughput then comes from the data window
    r.set_first_send_unix_ns(r.first_send_unix_ns() / 1'000'000'000);
    r.set_last_receive_unix_ns(r.last_receive_unix_ns() / 1'000'000'000);
    start = std::to_string(r.first_send_unix_ns()) + " is ";
  });
  EXPECT_EQ(
      error.rfind("worker 0 sent a malformed result: in window 1, first_send_unix_ns " + start, 0),
      0u)
      << error;
  EXPECT_NE(error.find(" ns before the window's start, more than 1 h (ns since the Unix epoch, "
                       "CLOCK_REALTIME?)"),
            std::string::npos)
      << error;
}

TEST_F(RunnerMalformed, AStartInMillisecondsIsRefusedRatherThanStoredAsDecadesOfSkew) {
  const std::string error = refused(
      [](v1::WindowResult& r) { r.set_started_unix_ns(r.first_send_unix_ns() / 1'000'000); });
  EXPECT_EQ(error.rfind("worker 0 sent a malformed result: in window 1, started_unix_ns ", 0), 0u)
      << error;
  EXPECT_NE(error.find("before the window's start, more than 1 h"), std::string::npos) << error;
}

TEST_F(RunnerMalformed, FewerBytesThanSuccessesAreRefused) {
  EXPECT_EQ(refused([](v1::WindowResult& r) { r.set_bytes_received(3); }),
            "worker 0 sent a malformed result: in window 1, bytes_received 3 < successes 100 "
            "(every success reads its answer: at least one byte each)");
}

TEST_F(RunnerMalformed, MessagesNameTheWindowAndTheField) {
  EXPECT_EQ(refused([](v1::WindowResult& r) { r.set_successes(r.operations() + 10); }),
            "worker 0 sent a malformed result: in window 1, successes 110 > operations 100");
  EXPECT_EQ(refused([](v1::WindowResult& r) { r.set_operations(r.operations() + 1); }),
            "worker 0 sent a malformed result: in window 1, errors add up to 0 but 1 of 101 "
            "operations failed (operations - successes); every failed operation counts one "
            "error");
  EXPECT_EQ(refused([](v1::WindowResult& r) {
              r.set_operations(r.operations() + 1);
              r.set_successes(r.successes() + 1);
            }),
            "worker 0 sent a malformed result: in window 1, latency holds 100 samples but "
            "successes are 101 (one sample per success)");
}

// A progress event is refused as a result is (worker-check's rule on progress events).
TEST_F(RunnerMalformed, AProgressEventThatContradictsItselfIsRefused) {
  auto progress_error = [&](uint32_t window, int64_t interval_ns) {
    FakePool::Script script;
    v1::Progress progress;
    progress.set_window(window);
    progress.set_interval_ns(interval_ns);
    progress.set_operations(5);
    script.worker.windows[1].progress = progress;
    return run_failing(script).error;
  };
  EXPECT_EQ(progress_error(7, 1'000'000),
            "worker 0 sent a malformed progress report in window 1: progress names window 7");
  EXPECT_EQ(progress_error(1, -1),
            "worker 0 sent a malformed progress report in window 1: progress interval_ns -1 ns "
            "is negative");
}

TEST_F(RunnerMalformed, AReadyWithoutEveryConnectionIsRefused) {
  FakePool::Script script;
  script.worker.ready_connections = 0;
  const auto result = run_failing(script);
  EXPECT_EQ(result.error,
            "worker 0 sent a malformed ready: ready counts 0 connections of the 1 asked (ready "
            "comes once every connection is established)");
  EXPECT_TRUE(result.repetitions.empty());
}

}  // namespace
}  // namespace benchgate::engine
