// The engine's failure paths, run in one process through fakes of the system under test and
// the worker pool (engine_fakes.h): what each one leaves in the ScenarioResult, exactly (the
// statuses and errors the outputs print and the gates judge).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "engine_fakes.h"
#include "orchestrator/app/interrupt.h"
#include "orchestrator/engine/confirmation.h"
#include "orchestrator/engine/scenario_runner.h"
#include "orchestrator/gating/run_gates.h"

namespace benchgate::engine {
namespace {

using results::WorkloadStatus;
using testing::FakeFactories;
using testing::FakePool;
using testing::FakeSut;

constexpr const char* kMissingProgram = "benchgate-test-no-such-program";

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

scenario::Scenario scenario_of(std::vector<scenario::Workload> workloads) {
  scenario::Scenario s;
  s.name = "fakes";
  s.workloads = std::move(workloads);
  return s;
}

// A router that died, as BuiltinRouter::failure() says it: the one line, and its stderr tail.
Error router_died() {
  return Error{"router (pid 42) killed by signal 9", ErrorKind::kFailed, "router: out of memory\n"};
}

class RunnerFailures : public ::testing::Test {
 protected:
  void SetUp() override {
    log_dir_ = std::filesystem::path(::testing::TempDir()) /
               ("engine-fakes-" + std::to_string(::getpid()));
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

// A repetition in which no operation completed and none failed measured nothing: the workload
// fails saying so, rather than storing an ok repetition of zeros (docs/MEASUREMENT.md
// "Operations, successes and errors"). The repetition is kept as it came; the next workload
// runs.
TEST_F(RunnerFailures, ARepetitionThatMeasuredNothingFailsItsWorkload) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.worker.windows[1].idle = true;  // the second measured window of the first workload
  factories_.pools = {pool};
  auto r = run(scenario_of({workload("idle", 3), workload("after")}));

  ASSERT_EQ(r.workloads.size(), 2u);
  const auto& idle = r.workloads[0];
  EXPECT_EQ(idle.status, WorkloadStatus::kFailed);
  EXPECT_EQ(idle.error,
            "repetition 2 measured nothing: the workers completed no operation in the window and "
            "none failed");
  ASSERT_EQ(idle.repetitions.size(), 2u);  // the third is not run
  EXPECT_EQ(idle.repetitions[0].operations, 100u);
  EXPECT_EQ(idle.repetitions[1].operations, 0u);
  EXPECT_EQ(r.workloads[1].status, WorkloadStatus::kOk);
  EXPECT_FALSE(r.ok());
}

TEST_F(RunnerFailures, ASystemThatDiesMidWindowFailsItsWorkloadAndTheRestAreNotRun) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  // The second measured window (index 1): the router dies while the workers measure.
  pool.worker.windows[1].before = [this] { factories_.made_suts.at(0)->die(router_died()); };
  factories_.pools = {pool};
  auto r = run(scenario_of({workload("w1"), workload("w2")}));

  const std::string died =
      "router (pid 42) killed by signal 9; its stderr ends with:\nrouter: out of memory\n";
  ASSERT_EQ(r.workloads.size(), 2u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[0].error, died);
  EXPECT_EQ(r.workloads[0].repetitions.size(), 1u);  // the window before the death is kept
  EXPECT_EQ(r.workloads[1].status, WorkloadStatus::kFailed);
  // The tail is in the scenario's error once, not repeated in every workload not run.
  EXPECT_EQ(r.workloads[1].error,
            "not run: the system under test failed during workload 'w1': router (pid 42) "
            "killed by signal 9");
  EXPECT_EQ(r.error, died);
  EXPECT_FALSE(r.interrupted);
  EXPECT_FALSE(r.ok());
}

TEST_F(RunnerFailures, ASystemThatExitsMidWindowEndsTheWindowWithoutWaitingForItsWorkers) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  // The router dies and the workers never answer: only the engine's own look at the system
  // ends this window, whose duration and timeout are an hour (ctest's timeout fails a wait).
  pool.worker.windows[0].before = [this] { factories_.made_suts.at(0)->die(router_died()); };
  pool.worker.windows[0].answer = false;
  factories_.pools = {pool};
  scenario::Workload long_window = workload("w1");
  long_window.duration_ns = 3'600'000'000'000;
  long_window.timeout_ns = 7'200'000'000'000;
  auto r = run(scenario_of({long_window}));

  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[0].error,
            "router (pid 42) killed by signal 9; its stderr ends with:\nrouter: out of memory\n");
  EXPECT_TRUE(r.workloads[0].repetitions.empty());
  EXPECT_FALSE(r.ok());
}

TEST_F(RunnerFailures, ASystemStoppedAndContinuedMidWindowKeepsTheWindowFlagged) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  // Stopped for four of the engine's looks at the system (every 50 ms) while the workers
  // measure, then continued: a stopped system has not exited, so its window is not ended.
  pool.worker.windows[0].before = [this] {
    FakeSut& sut = *factories_.made_suts.at(0);
    sut.pause();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    sut.resume();
  };
  factories_.pools = {pool};
  auto r = run(scenario_of({workload("w1", 1)}));

  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kOk) << r.workloads[0].error;
  ASSERT_EQ(r.workloads[0].repetitions.size(), 1u);
  const auto& flags = r.workloads[0].repetitions[0].flags;
  EXPECT_NE(std::find(flags.begin(), flags.end(), results::kProcessStopped), flags.end());
  EXPECT_EQ(r.workloads[0].repetitions[0].stopped, std::vector<std::string>{"router (pid 42)"});
  EXPECT_EQ(r.error, "");
}

TEST_F(RunnerFailures, ASystemStillStoppedAtTheEndOfItsWindowIsTheCause) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.worker.windows[0].before = [this] { factories_.made_suts.at(0)->pause(); };
  factories_.pools = {pool};
  auto r = run(scenario_of({workload("w1", 1), workload("w2", 1)}));

  ASSERT_EQ(r.workloads.size(), 2u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[0].error,
            "router (pid 42) is stopped (SIGSTOP or a debugger) and serves nothing");
  EXPECT_EQ(r.workloads[1].error,
            "not run: the system under test failed during workload 'w1': router (pid 42) is "
            "stopped (SIGSTOP or a debugger) and serves nothing");
}

TEST_F(RunnerFailures, AWorkerThatNeverAnswersFailsAtTheWorkloadDeadlineAndItsPoolIsRenewed) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.worker.silent = {"silent"};
  auto recovers = pool.recovers;
  factories_.pools = {pool};
  scenario::Workload silent = workload("silent");
  silent.timeout_ns = 200'000'000;  // the bound: no test waits on a clock of its own
  auto r = run(scenario_of({silent, workload("after")}));

  ASSERT_EQ(r.workloads.size(), 2u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[0].error,
            "workload timeout (200 ms) passed while waiting for the workers to be ready from "
            "worker 0");
  EXPECT_TRUE(r.workloads[0].repetitions.empty());
  // Its workers took part in a failed workload: the next one replaces them all.
  EXPECT_EQ(*recovers, std::vector<bool>{true});
  EXPECT_EQ(r.workloads[1].status, WorkloadStatus::kOk);
  EXPECT_EQ(r.workloads[1].repetitions.size(), 2u);
  EXPECT_EQ(r.error, "");
  EXPECT_FALSE(r.ok());
}

TEST_F(RunnerFailures, AFailedRecoveryIsTheScenariosErrorAndTheRestAreNotRun) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.recover_fails_at = 1;
  pool.recover_error = Error{"worker 0 exited with status 1 before it was ready",
                             ErrorKind::kFailed, "worker: cannot bind\n"};
  auto recovers = pool.recovers;
  factories_.pools = {pool};
  auto r = run(scenario_of({workload("w1"), workload("w2"), workload("w3")}));

  ASSERT_EQ(r.workloads.size(), 3u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kOk);
  EXPECT_EQ(*recovers, std::vector<bool>{false});  // w1 went well: only the gone are replaced
  EXPECT_EQ(r.error,
            "workers could not be replaced: worker 0 exited with status 1 before it was ready; "
            "its stderr ends with:\nworker: cannot bind\n");
  for (size_t i : {1, 2}) {
    EXPECT_EQ(r.workloads[i].status, WorkloadStatus::kFailed);
    EXPECT_EQ(r.workloads[i].error,
              "not run: workers could not be replaced: worker 0 exited with status 1 before it "
              "was ready");
  }
  EXPECT_FALSE(r.interrupted);
}

TEST_F(RunnerFailures, AnInterruptMidWindowEndsTheRunAsInterruptedAndListsNothingUnrun) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.worker.windows[0].before = [] { app::set_run_cancelled(true); };
  pool.worker.windows[0].answer = false;
  factories_.pools = {pool};
  auto r = run(scenario_of({workload("w1"), workload("w2")}));

  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kInterrupted);
  EXPECT_EQ(r.workloads[0].error, "cancelled through the service");
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.error, "");
  EXPECT_FALSE(r.ok());
}

TEST_F(RunnerFailures, ASystemThatDoesNotStartFailsEveryWorkloadWithTheHeadline) {
  factories_.suts = {FakeSut::Script{Error{"router exited with status 1 before it was ready",
                                           ErrorKind::kFailed, "router: bad flag\n"}}};
  auto r = run(scenario_of({workload("w1"), workload("w2")}));

  EXPECT_EQ(r.error,
            "system under test did not start: router exited with status 1 before it was ready; "
            "its stderr ends with:\nrouter: bad flag\n");
  ASSERT_EQ(r.workloads.size(), 2u);
  for (const auto& w : r.workloads) {
    EXPECT_EQ(w.status, WorkloadStatus::kFailed);
    EXPECT_EQ(w.error,
              "not run: system under test did not start: router exited with status 1 before it "
              "was ready");
  }
  EXPECT_FALSE(r.interrupted);
}

TEST_F(RunnerFailures, AStartEndedByAnInterruptIsInterruptedByItsKind) {
  // Decided on the error's kind: the process-wide interrupt flag is not even set here.
  factories_.suts = {
      FakeSut::Script{Error{"interrupted while waiting for router", ErrorKind::kInterrupted}}};
  auto r = run(scenario_of({workload("w1")}));

  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.error, "interrupted while waiting for router");
  EXPECT_TRUE(r.workloads.empty());
}

TEST_F(RunnerFailures, AWorkerImplementationNotInstalledIsNotConfiguredAndTheOthersRun) {
  factories_.suts = {FakeSut::Script{}};
  factories_.pools = {FakePool::Script{}};
  scenario::Scenario s = scenario_of({workload("theirs"), workload("ours")});
  s.worker_impls["tool"].command = {kMissingProgram};
  s.workloads[0].worker = "tool";
  auto r = run(s);

  ASSERT_EQ(r.workloads.size(), 2u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kNotConfigured);
  EXPECT_EQ(r.workloads[0].error, "not_configured: worker 'tool': '" +
                                      std::string(kMissingProgram) +
                                      "' is not installed (not found on PATH)");
  EXPECT_EQ(r.workloads[1].status, WorkloadStatus::kOk);
  EXPECT_EQ(r.workloads[1].repetitions.size(), 2u);
  EXPECT_TRUE(r.ok());  // a variant with no number fails nothing
}

// A worker implementation that did not start is not started again for its next workload (each
// try would wait its whole startup_timeout); the bundled worker's workloads still run.
TEST_F(RunnerFailures, AWorkerImplementationThatDidNotStartIsNotTriedAgain) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script broken;
  broken.start_error = Error{"worker 0 did not print READY before its deadline"};
  factories_.pools = {FakePool::Script{}, broken, FakePool::Script{}};
  scenario::Scenario s = scenario_of({workload("first"), workload("ours"), workload("second")});
  s.worker_impls["tool"].command = {"sh"};
  s.worker_impls["tool"].startup_timeout_ns = 1'000'000;
  s.workloads[0].worker = "tool";
  s.workloads[2].worker = "tool";
  auto r = run(s);

  EXPECT_EQ(factories_.pool_binaries.size(), 2u) << "the bundled pool and one try of 'tool'";
  ASSERT_EQ(r.workloads.size(), 3u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[0].error.rfind("worker 'tool' did not start", 0), 0u)
      << r.workloads[0].error;
  EXPECT_EQ(r.workloads[1].status, WorkloadStatus::kOk);
  EXPECT_EQ(r.workloads[2].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[2].error, r.workloads[0].error);
}

// An interrupt while a worker implementation's workers start is the run's interrupt, as one
// during a window is: the workload before it stays, that one is not listed, none after it runs.
// It was recorded failed with the interrupt as its error, and the run went on.
TEST_F(RunnerFailures, AnInterruptWhileAWorkerImplementationStartsIsInterruptedNotFailed) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script interrupted;
  interrupted.start_error =
      Error{"interrupted while waiting for worker 0", ErrorKind::kInterrupted};
  factories_.pools = {FakePool::Script{}, interrupted};
  scenario::Scenario s = scenario_of({workload("ours"), workload("theirs"), workload("last")});
  s.worker_impls["tool"].command = {"sh"};
  s.workloads[1].worker = "tool";
  auto r = run(s);

  EXPECT_TRUE(r.interrupted);
  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].spec.name, "ours");
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kOk);
}

// Comparing routers: one not installed, one that does not start; the third still measures.
TEST_F(RunnerFailures, ComparedRoutersThatNeverStartAreRecordedAndTheOthersGoOn) {
  factories_.suts = {FakeSut::Script{},
                     FakeSut::Script{Error{"router exited with status 1 before it was ready",
                                           ErrorKind::kFailed, "router: bad flag\n"}}};
  factories_.pools = {FakePool::Script{}};
  scenario::Scenario s = scenario_of({workload("w1")});
  s.routers["ours"] = {};
  s.routers["theirs"].impl = scenario::RouterImpl::kCommand;
  s.routers["theirs"].requires_programs = {kMissingProgram};
  s.routers["broken"] = {};
  s.compare_routers = {"ours", "theirs", "broken"};
  auto r = run(s);

  EXPECT_EQ(r.variants, s.compare_routers);
  ASSERT_EQ(r.workloads.size(), 3u);
  EXPECT_EQ(r.workloads[0].variant, "ours");
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kOk);
  EXPECT_EQ(r.workloads[0].repetitions.size(), 2u);
  EXPECT_EQ(r.workloads[1].variant, "theirs");
  EXPECT_EQ(r.workloads[1].status, WorkloadStatus::kNotConfigured);
  EXPECT_EQ(r.workloads[1].error, "not_configured: '" + std::string(kMissingProgram) +
                                      "' is not installed (not found on PATH)");
  EXPECT_EQ(r.workloads[2].variant, "broken");
  EXPECT_EQ(r.workloads[2].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[2].error,
            "router 'broken' did not start: router exited with status 1 before it was ready; "
            "its stderr ends with:\nrouter: bad flag\n");
  EXPECT_EQ(r.error, "");  // the shared workers are fine: no error of the comparison's own
  EXPECT_FALSE(r.interrupted);
  EXPECT_FALSE(r.ok());
}

// Comparing routers, the workers are the peer: when they cannot be replaced, no variant can
// measure more, and that is the comparison's own error.
TEST_F(RunnerFailures, ComparedRoutersStopWhenTheSharedWorkersCannotBeReplaced) {
  factories_.suts = {FakeSut::Script{}, FakeSut::Script{}};
  FakePool::Script pool;
  pool.recover_fails_at = 1;
  pool.recover_error = Error{"worker 0 did not answer Describe before its deadline"};
  factories_.pools = {pool};
  scenario::Scenario s = scenario_of({workload("w1")});
  s.routers["a"] = {};
  s.routers["b"] = {};
  s.compare_routers = {"a", "b"};
  auto r = run(s);

  const std::string why =
      "workers could not be replaced: worker 0 did not answer Describe before its deadline";
  ASSERT_EQ(r.workloads.size(), 2u);
  // A ran first (nothing to recover), B's window needed the workers recovered.
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[0].error, why);
  EXPECT_EQ(r.workloads[0].repetitions.size(), 1u);
  EXPECT_EQ(r.workloads[1].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[1].error, why);
  EXPECT_TRUE(r.workloads[1].repetitions.empty());
  EXPECT_EQ(r.error, why);
}

// Comparing workers, the router is the peer: its death ends every variant.
TEST_F(RunnerFailures, ComparedWorkersStopWhenTheSharedRouterDies) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script builtin;
  builtin.worker.windows[0].before = [this] { factories_.made_suts.at(0)->die(router_died()); };
  factories_.pools = {builtin, FakePool::Script{}};
  scenario::Scenario s = scenario_of({workload("w1")});
  s.worker_impls["other"].command = {"true"};  // on PATH; the fake pool runs nothing
  s.compare_workers = {"builtin", "other"};
  auto r = run(s);

  const std::string died =
      "router (pid 42) killed by signal 9; its stderr ends with:\nrouter: out of memory\n";
  ASSERT_EQ(r.workloads.size(), 2u);
  EXPECT_EQ(r.workloads[0].variant, "builtin");
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[0].error, died);
  EXPECT_EQ(r.workloads[1].variant, "other");
  EXPECT_EQ(r.workloads[1].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[1].error, "router failed: " + died);
  EXPECT_TRUE(r.workloads[1].repetitions.empty());
  EXPECT_EQ(r.error, "router failed: " + died);
  EXPECT_EQ(factories_.pool_binaries.size(), 2u);
}

TEST_F(RunnerFailures, AnInterruptedComparisonKeepsWhatItMeasuredAndStops) {
  factories_.suts = {FakeSut::Script{}, FakeSut::Script{}};
  FakePool::Script pool;
  // Windows come A B, B A: the interrupt arrives in B's first window, which never answers.
  pool.worker.windows[1].before = [] { app::set_run_cancelled(true); };
  pool.worker.windows[1].answer = false;
  factories_.pools = {pool};
  scenario::Scenario s = scenario_of({workload("w1"), workload("w2")});
  s.routers["a"] = {};
  s.routers["b"] = {};
  s.compare_routers = {"a", "b"};
  auto r = run(s);

  ASSERT_EQ(r.workloads.size(), 2u);  // w2 is not listed
  // A measured one of its two repetitions: the interrupt cut it short too, though it came in
  // B's window (it was stored `ok` beside B's `interrupted`).
  EXPECT_EQ(r.workloads[0].variant, "a");
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kInterrupted);
  EXPECT_EQ(r.workloads[0].error, "cancelled through the service");
  EXPECT_EQ(r.workloads[0].repetitions.size(), 1u);
  EXPECT_EQ(r.workloads[1].variant, "b");
  EXPECT_EQ(r.workloads[1].status, WorkloadStatus::kInterrupted);
  EXPECT_EQ(r.workloads[1].error, "cancelled through the service");
  EXPECT_TRUE(r.workloads[1].repetitions.empty());
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.error, "");
  EXPECT_FALSE(r.ok());
}

// One rule with a plain run, whose workload that finished before an interrupt stays `ok`: a
// variant that measured every repetition before it stays `ok`, the other is `interrupted`.
TEST_F(RunnerFailures, AVariantThatMeasuredAllItsRepetitionsBeforeAnInterruptStaysOk) {
  factories_.suts = {FakeSut::Script{}, FakeSut::Script{}};
  FakePool::Script pool;
  // Windows come A B, B A: the interrupt arrives in A's second window, after B's second.
  pool.worker.windows[3].before = [] { app::set_run_cancelled(true); };
  pool.worker.windows[3].answer = false;
  factories_.pools = {pool};
  scenario::Scenario s = scenario_of({workload("w1")});
  s.routers["a"] = {};
  s.routers["b"] = {};
  s.compare_routers = {"a", "b"};
  auto r = run(s);

  ASSERT_EQ(r.workloads.size(), 2u);
  EXPECT_EQ(r.workloads[0].variant, "a");
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kInterrupted);
  EXPECT_EQ(r.workloads[0].error, "cancelled through the service");
  EXPECT_EQ(r.workloads[0].repetitions.size(), 1u);
  EXPECT_EQ(r.workloads[1].variant, "b");
  EXPECT_EQ(r.workloads[1].status, WorkloadStatus::kOk) << r.workloads[1].error;
  EXPECT_EQ(r.workloads[1].repetitions.size(), 2u);
  EXPECT_TRUE(r.interrupted);
}

// An interrupt while a compared router starts ends the run as a plain run's at its start does
// (AStartEndedByAnInterruptIsInterruptedByItsKind): interrupted with the interrupt's words, no
// workload listed, no later variant started. Every variant was `failed` before, with the
// interrupt as its error.
TEST_F(RunnerFailures, AComparisonInterruptedAsARouterStartsIsInterruptedNotFailed) {
  factories_.suts = {
      FakeSut::Script{Error{"interrupted while waiting for router", ErrorKind::kInterrupted}},
      FakeSut::Script{}};
  factories_.pools = {FakePool::Script{}};  // never started
  scenario::Scenario s = scenario_of({workload("w1"), workload("w2")});
  s.routers["a"] = {};
  s.routers["b"] = {};
  s.compare_routers = {"a", "b"};
  auto r = run(s);

  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.error, "interrupted while waiting for router");
  EXPECT_TRUE(r.workloads.empty());
  EXPECT_EQ(factories_.made_suts.size(), 1u) << "a router was started after the interrupt";
}

// The same while the workers every compared router shares start, at the first workload (after
// the routers): the workload is not listed, nothing failed.
TEST_F(RunnerFailures, AComparisonInterruptedAsItsWorkersStartIsInterruptedNotFailed) {
  factories_.suts = {FakeSut::Script{}, FakeSut::Script{}};
  FakePool::Script pool;
  pool.start_error = Error{"interrupted while waiting for worker 0", ErrorKind::kInterrupted};
  factories_.pools = {pool};
  scenario::Scenario s = scenario_of({workload("w1")});
  s.routers["a"] = {};
  s.routers["b"] = {};
  s.compare_routers = {"a", "b"};
  auto r = run(s);

  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.error, "interrupted while waiting for worker 0");
  EXPECT_TRUE(r.workloads.empty());
}

}  // namespace
}  // namespace benchgate::engine

namespace benchgate::engine {
namespace {

// --- Remote workers: the ones asked for and not found, and the policy for a lost one -------

scenario::Workload spread(const std::string& name, uint32_t repetitions, uint32_t workers,
                          scenario::WorkerLoss loss = scenario::WorkerLoss::kFail) {
  scenario::Workload w = workload(name, repetitions);
  w.workers = workers;
  w.connections = workers;
  w.on_worker_loss = loss;
  return w;
}

std::vector<uint64_t> operations_of(const results::WorkloadResult& w) {
  std::vector<uint64_t> out;
  for (const auto& rep : w.repetitions) out.push_back(rep.operations);
  return out;
}

std::vector<bool> degraded_of(const results::WorkloadResult& w) {
  std::vector<bool> out;
  for (const auto& rep : w.repetitions) {
    out.push_back(std::find(rep.flags.begin(), rep.flags.end(), results::kDegraded) !=
                  rep.flags.end());
  }
  return out;
}

TEST_F(RunnerFailures, AWorkerLostMidWindowFailsTheWorkloadAndItsWindowIsNeverMerged) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.worker.windows[1].die = {1};  // worker 1 dies in the second repetition
  auto recovers = pool.recovers;
  factories_.pools = {pool};
  auto r = run(scenario_of({spread("lost", 3, 2), spread("after", 1, 2)}));

  ASSERT_EQ(r.workloads.size(), 2u);
  const auto& lost = r.workloads[0];
  EXPECT_EQ(lost.status, WorkloadStatus::kFailed);
  EXPECT_EQ(lost.error.rfind("worker 1 at fake:1 ended its stream: ", 0), 0u) << lost.error;
  EXPECT_NE(lost.error.find("fake worker died"), std::string::npos) << lost.error;
  // The repetition before the loss is kept whole; the one it interrupted is not merged from the
  // worker that answered.
  EXPECT_EQ(operations_of(lost), std::vector<uint64_t>{200});
  EXPECT_EQ(degraded_of(lost), std::vector<bool>{false});
  // The next workload starts from workers asked afresh.
  EXPECT_EQ(*recovers, std::vector<bool>{true});
  EXPECT_EQ(r.workloads[1].status, WorkloadStatus::kOk);
  EXPECT_EQ(operations_of(r.workloads[1]), std::vector<uint64_t>{200});
  EXPECT_FALSE(r.ok());
}

// Asks for one confirming rerun of the first workload it sees, and keeps the rerun's status.
class RerunOnce : public ConfirmationHook {
 public:
  std::string rerun_reason(const results::WorkloadResult&) override {
    return asked_++ == 0 ? "a gate fails" : "";
  }
  RunObserver& rerun_observer() override { return quiet_; }
  void rerun_finished(const results::WorkloadResult&, results::WorkloadResult rerun) override {
    reruns.push_back(rerun.status);
  }
  std::vector<WorkloadStatus> reruns;

 private:
  int asked_ = 0;
  RunObserver quiet_;
};

TEST_F(RunnerFailures, AConfirmingRerunThatLostAWorkerMakesThePoolSuspectForTheNextWorkload) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.worker.windows[1].die = {1};  // window 0 is the measurement, window 1 its rerun
  auto recovers = pool.recovers;
  factories_.pools = {pool};
  RerunOnce hook;
  options_.confirmation = &hook;
  auto r = run(scenario_of({spread("measured", 1, 2), spread("after", 1, 2)}));

  ASSERT_EQ(r.workloads.size(), 2u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kOk);
  EXPECT_EQ(hook.reruns, std::vector<WorkloadStatus>{WorkloadStatus::kFailed});
  // Before the rerun only the gone are replaced (the measurement went well); before the next
  // workload every worker is asked afresh, as after any workload that lost one.
  EXPECT_EQ(*recovers, (std::vector<bool>{false, true}));
  EXPECT_EQ(r.workloads[1].status, WorkloadStatus::kOk);
}

TEST_F(RunnerFailures, WithContinueTheOthersFinishAndEveryRepetitionWithoutTheLostIsDegraded) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.worker.windows[1].die = {1};
  auto recovers = pool.recovers;
  factories_.pools = {pool};
  auto r = run(
      scenario_of({spread("lost", 3, 2, scenario::WorkerLoss::kContinue), spread("after", 1, 2)}));

  ASSERT_EQ(r.workloads.size(), 2u);
  const auto& lost = r.workloads[0];
  EXPECT_EQ(lost.status, WorkloadStatus::kOk) << lost.error;
  // Repetition 2: worker 1's part of the window is dropped, worker 0's kept; 3: worker 0 alone.
  EXPECT_EQ(operations_of(lost), (std::vector<uint64_t>{200, 100, 100}));
  EXPECT_EQ(degraded_of(lost), (std::vector<bool>{false, true, true}));
  EXPECT_TRUE(lost.degraded());
  // Its gates are not judged.
  EXPECT_EQ(gating::values_of(lost).not_judged,
            "repetition 2 was measured without every worker (flag degraded)");
  // The lost worker answers again (the fake's Describe): used again only after that check.
  EXPECT_EQ(*recovers, std::vector<bool>{true});
  EXPECT_EQ(operations_of(r.workloads[1]), std::vector<uint64_t>{200});
  EXPECT_EQ(degraded_of(r.workloads[1]), std::vector<bool>{false});
  EXPECT_TRUE(r.ok());
}

// A worker lost while the engine measures the clocks before a window (its stream ends at a
// clock probe) is lost as in a window: the others measure it, flagged degraded.
TEST_F(RunnerFailures, WithContinueAWorkerLostAtAClockProbeIsLostAndTheOthersMeasure) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.worker.clock_exchange = true;
  pool.worker.windows[1].die_at_probe = {1};
  factories_.pools = {pool};
  auto r = run(scenario_of({spread("lost", 3, 2, scenario::WorkerLoss::kContinue)}));

  ASSERT_EQ(r.workloads.size(), 1u);
  const auto& lost = r.workloads[0];
  EXPECT_EQ(lost.status, WorkloadStatus::kOk) << lost.error;
  EXPECT_EQ(operations_of(lost), (std::vector<uint64_t>{200, 100, 100}));
  EXPECT_EQ(degraded_of(lost), (std::vector<bool>{false, true, true}));
  EXPECT_TRUE(r.ok());
}

TEST_F(RunnerFailures, WithContinueAWorkerSilentAtTheClockExchangeIsLostAndTheOthersMeasure) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.worker.clock_exchange = true;
  pool.worker.windows[1].mute_at_probe = {1};  // lost at the reply deadline (5 s)
  factories_.pools = {pool};
  auto r = run(scenario_of({spread("silent", 3, 2, scenario::WorkerLoss::kContinue)}));

  ASSERT_EQ(r.workloads.size(), 1u);
  const auto& silent = r.workloads[0];
  EXPECT_EQ(silent.status, WorkloadStatus::kOk) << silent.error;
  EXPECT_EQ(operations_of(silent), (std::vector<uint64_t>{200, 100, 100}));
  EXPECT_EQ(degraded_of(silent), (std::vector<bool>{false, true, true}));
}

// One worker's stream ends at the exchange and the other stays silent: nobody replied, so the
// workload fails rather than measuring with no worker at all.
TEST_F(RunnerFailures, WithContinueLosingEveryWorkerAtTheClockExchangeFailsTheWorkload) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.worker.clock_exchange = true;
  pool.worker.windows[1].die_at_probe = {0};
  pool.worker.windows[1].mute_at_probe = {1};
  factories_.pools = {pool};
  auto r = run(scenario_of({spread("gone", 3, 2, scenario::WorkerLoss::kContinue)}));

  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(operations_of(r.workloads[0]), std::vector<uint64_t>{200});
  EXPECT_FALSE(r.ok());
}

TEST_F(RunnerFailures, WithoutContinueAWorkerLostAtAClockProbeFailsTheWorkload) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.worker.clock_exchange = true;
  pool.worker.windows[1].die_at_probe = {1};
  factories_.pools = {pool};
  auto r = run(scenario_of({spread("lost", 3, 2)}));

  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[0].error.rfind("worker 1 at fake:1 ended its stream: ", 0), 0u)
      << r.workloads[0].error;
  EXPECT_EQ(operations_of(r.workloads[0]), std::vector<uint64_t>{200});
}

TEST_F(RunnerFailures, WithContinueAWorkerSilentAtTheWindowDeadlineIsLost) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.worker.windows[0].mute = {0};
  factories_.pools = {pool};
  scenario::Workload w = spread("silent", 1, 2, scenario::WorkerLoss::kContinue);
  w.timeout_ns = 300'000'000;  // the window's deadline
  auto r = run(scenario_of({w}));

  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kOk) << r.workloads[0].error;
  EXPECT_EQ(operations_of(r.workloads[0]), std::vector<uint64_t>{100});
  EXPECT_EQ(degraded_of(r.workloads[0]), std::vector<bool>{true});
}

TEST_F(RunnerFailures, WithContinueLosingEveryWorkerFailsTheWorkload) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.worker.windows[0].die = {0};
  factories_.pools = {pool};
  auto r = run(scenario_of({spread("alone", 2, 1, scenario::WorkerLoss::kContinue)}));

  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[0].error.rfind("every worker of the workload was lost: worker 0 at fake:0 "
                                       "ended its stream: ",
                                       0),
            0u)
      << r.workloads[0].error;
  EXPECT_TRUE(r.workloads[0].repetitions.empty());
}

TEST_F(RunnerFailures, WithContinueADeadSystemUnderTestStillFailsTheWorkload) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.worker.windows[0].before = [this] { factories_.made_suts.at(0)->die(router_died()); };
  pool.worker.windows[0].die = {0};
  factories_.pools = {pool};
  auto r = run(scenario_of({spread("w", 2, 1, scenario::WorkerLoss::kContinue)}));

  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[0].error.rfind("router (pid 42) killed by signal 9", 0), 0u)
      << r.workloads[0].error;
}

// A scenario whose [workers] at finds nobody measures nothing, and never with local workers.
TEST_F(RunnerFailures, RemoteWorkersTheScenarioAsksForAndDoesNotGetAreNotConfigured) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.start_error = Error{"the scenario needs 3 workers but only 0 answered Describe"};
  auto starts = pool.starts;
  factories_.pools = {pool};
  scenario::Scenario s = scenario_of({spread("w1", 1, 2), spread("w2", 1, 1)});
  s.workers.at = {"dns:benchgate-worker:7800"};
  s.workers.at_where = {"s.toml", 3, 6};
  s.workers.count = 3;
  auto r = run(s);

  EXPECT_EQ(factories_.pool_binaries, std::vector<std::string>{"(connecting)"});
  EXPECT_EQ(*starts, std::vector<size_t>{3});  // the scenario's count, above what w1 uses
  ASSERT_EQ(r.workloads.size(), 2u);
  for (const auto& w : r.workloads) {
    EXPECT_EQ(w.status, WorkloadStatus::kNotConfigured);
    EXPECT_EQ(w.error,
              "not_configured: the remote workers of [workers] at (s.toml:3:6) are not there "
              "(the run never measures with local workers instead): the scenario needs 3 "
              "workers but only 0 answered Describe");
  }
  EXPECT_EQ(r.error, "");
  EXPECT_TRUE(r.ok());  // as with any not_configured workload: --strict fails it
}

// The same in a comparison of routers: every variant is not_configured, and that is no error
// of the comparison (it measured nothing, it failed nothing).
TEST_F(RunnerFailures, ComparedRoutersWithoutTheScenariosRemoteWorkersAreNotConfigured) {
  factories_.suts = {FakeSut::Script{}, FakeSut::Script{}};
  FakePool::Script pool;
  pool.start_error = Error{"the scenario needs 2 workers but only 0 answered Describe"};
  factories_.pools = {pool};
  scenario::Scenario s = scenario_of({spread("w1", 2, 2)});
  s.routers["a"] = {};
  s.routers["b"] = {};
  s.compare_routers = {"a", "b"};
  s.workers.at = {"dns:benchgate-worker:7800"};
  s.workers.at_where = {"s.toml", 3, 6};
  s.workers.count = 2;
  auto r = run(s);

  ASSERT_EQ(r.workloads.size(), 2u);
  for (const auto& w : r.workloads) {
    EXPECT_EQ(w.status, WorkloadStatus::kNotConfigured) << w.variant;
    EXPECT_EQ(w.error,
              "not_configured: the remote workers of [workers] at (s.toml:3:6) are not there "
              "(the run never measures with local workers instead): the scenario needs 2 "
              "workers but only 0 answered Describe");
  }
  EXPECT_EQ(r.error, "");
  EXPECT_TRUE(r.ok());
}

// --workers-at and --workers override the scenario; workers the command line named and did not
// get are the run's failure.
TEST_F(RunnerFailures, TheCommandLinesWorkersOverrideTheScenariosAndTheirAbsenceFails) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.start_error = Error{"the scenario needs 4 workers but only 1 answered Describe"};
  auto starts = pool.starts;
  factories_.pools = {pool};
  options_.worker_addresses = {"10.0.0.1:7800"};
  options_.worker_count = 4;
  scenario::Scenario s = scenario_of({spread("w1", 1, 2)});
  s.workers.at = {"dns:benchgate-worker:7800"};
  s.workers.count = 3;
  auto r = run(s);

  EXPECT_EQ(*starts, std::vector<size_t>{4});
  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.error,
            "workers given with --workers-at are not usable: the scenario needs 4 workers but "
            "only 1 answered Describe");
  EXPECT_FALSE(r.ok());
}

// A worker sends one result per window (docs/WORKER_PROTOCOL.md): a second one is a malformed
// result naming the window, wherever it arrives (in its own window, in the clock exchange
// before the next, in the next), rather than replace the first or be taken for a result of
// the wrong window.
TEST_F(RunnerFailures, ASecondResultOfTheRunningWindowIsRefusedRatherThanReplaceTheFirst) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.worker.windows[0].twice = {0, 1};  // both: the first worker to answer has a second
  factories_.pools = {pool};
  auto r = run(scenario_of({spread("double", 2, 2)}));

  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kFailed);
  const std::string& error = r.workloads[0].error;
  EXPECT_TRUE(error == "worker 0 sent a malformed result: a second result for window 0" ||
              error == "worker 1 sent a malformed result: a second result for window 0")
      << error;
  EXPECT_FALSE(r.ok());
}

TEST_F(RunnerFailures, ASecondResultArrivingInTheNextWindowNamesItsOwnWindow) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.worker.windows[0].twice = {0};
  factories_.pools = {pool};
  auto r = run(scenario_of({workload("double")}));

  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[0].error, "worker 0 sent a malformed result: a second result for window 0");
  EXPECT_EQ(operations_of(r.workloads[0]), std::vector<uint64_t>{100});  // window 0, once
}

TEST_F(RunnerFailures, ASecondResultArrivingInTheClockExchangeIsRefusedNotDropped) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.worker.clock_exchange = true;
  pool.worker.windows[0].twice = {0};
  factories_.pools = {pool};
  auto r = run(scenario_of({workload("double")}));

  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[0].error, "worker 0 sent a malformed result: a second result for window 0");
}

// A result of a window that has not begun is not a second one: it keeps its own wording.
TEST_F(RunnerFailures, AResultOfAnotherWindowIsNamedAsSuch) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.worker.windows[1].alter = [](v1::WindowResult& result) { result.set_window(7); };
  factories_.pools = {pool};
  auto r = run(scenario_of({workload("early")}));

  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].error, "worker 0 sent a result for window 7 while window 1 was running");
}

// A workload whose protocol or load model its workers' Describe does not list fails at its
// start, naming the worker, what it lists and what the workload asks for; no window is sent
// to the workers, and the workloads they serve still run.
TEST_F(RunnerFailures, AWorkloadItsWorkersDoNotListFailsAtItsStartAndTheOthersRun) {
  factories_.suts = {FakeSut::Script{}};
  FakePool::Script pool;
  pool.described.add_protocols("http2");
  pool.described.add_load_models("closed");
  factories_.pools = {pool};
  scenario::Workload open = workload("open");
  open.protocol = scenario::Protocol::kHttp2;
  open.rate = 1000;
  scenario::Workload served = workload("served");
  served.protocol = scenario::Protocol::kHttp2;
  auto r = run(scenario_of({workload("http1"), open, served}));

  ASSERT_EQ(r.workloads.size(), 3u);
  EXPECT_EQ(r.workloads[0].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[0].error,
            "worker 'builtin' (command fake-worker --flag) lists protocols http2; workload 'http1' "
            "asks for http1");
  EXPECT_TRUE(r.workloads[0].repetitions.empty());
  EXPECT_EQ(r.workloads[1].status, WorkloadStatus::kFailed);
  EXPECT_EQ(r.workloads[1].error,
            "worker 'builtin' (command fake-worker --flag) lists load models closed; workload "
            "'open' asks for open (it sets a rate)");
  EXPECT_EQ(r.workloads[2].status, WorkloadStatus::kOk) << r.workloads[2].error;
  EXPECT_EQ(operations_of(r.workloads[2]), (std::vector<uint64_t>{100, 100}));
}

}  // namespace
}  // namespace benchgate::engine
