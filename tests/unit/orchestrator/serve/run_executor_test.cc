// How a service job's stop is settled (orchestrator/serve/run_executor.cc): a client's cancel
// asked before the job's outcome is final always counts, wherever the run was when it came,
// and the job's exit, its stored run and benchgate_last_run_exit_code then say the same; one
// asked after is refused. The seams (RunExecutor::Seams) put the cancel and the deadline at
// the exact moment, no sleep.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "executor_test_support.h"
#include "orchestrator/cli/exit_codes.h"

namespace benchgate::serve {
namespace {

using testing::ExecutorBench;

// The exit code the store holds for the only run, and the scenario's gauge as scraped.
int stored_exit_code(store::Store& db) {
  auto runs = db.list_runs(10);
  EXPECT_TRUE(runs && runs->size() == 1);
  if (!runs || runs->size() != 1) return -1;
  return runs->front().exit_code.value_or(-1);
}
bool gauge_says(const std::string& scrape, int code) {
  return scrape.find("\nbenchgate_last_run_exit_code{scenario=\"fakes\"} " + std::to_string(code) +
                     "\n") != std::string::npos;
}

// The id of the first job of a fresh queue (JobQueue numbers them from 1). A seam cancels the
// job by this id: it runs on the executor's thread, possibly before submit() has returned the
// job to the test's thread, so it must not read what submit() returns.
constexpr uint64_t kFirstJob = 1;

// A client's cancel of the first job right after the deadline was looked at, before the job's
// outcome is settled.
RunExecutor::Seams cancel_after_the_deadline_check(ExecutorBench& bench) {
  RunExecutor::Seams seams;
  seams.deadline_checked = [&bench] { bench.queue().cancel(kFirstJob); };
  return seams;
}

// Runs the short scenario to its end as the queue's first job, with `seams` set on the
// executor; the test fails where the job was not queued, or not as kFirstJob (the id a seam
// cancels). A scheduled job: the gauges these tests read are the operator's runs' only.
void run_first_job(ExecutorBench& bench, RunExecutor::Seams seams, testing::Ended& ended) {
  bench.executor().set_seams(std::move(seams));
  const auto job = bench.submit(testing::short_scenario(), "scheduled");
  ASSERT_TRUE(job);
  ASSERT_EQ(job->id(), kFirstJob);
  ended = ExecutorBench::wait_end(*job);
}

TEST(RunExecutorStop, ACancelAsTheLateDeadlineIsLookedAtIsNotLost) {
  ExecutorBench bench;
  // --max-run-seconds passes once the run was judged (so it does not count), and the client's
  // cancel comes right after the deadline was looked at, before the job's outcome is settled.
  RunExecutor::Seams seams = cancel_after_the_deadline_check(bench);
  seams.judged = [](const std::function<void()>& pass_deadline) { pass_deadline(); };
  testing::Ended ended;
  ASSERT_NO_FATAL_FAILURE(run_first_job(bench, seams, ended));
  EXPECT_EQ(ended.status.state, JobState::kCancelled);
  EXPECT_EQ(ended.status.exit_code, cli::kExitRunError);
  EXPECT_NE(ended.err.find("run cancelled: every child process was stopped"), std::string::npos)
      << ended.err;
  // One exit code everywhere: the stored run and the gauge say what the job says.
  EXPECT_EQ(stored_exit_code(bench.db()), cli::kExitRunError);
  EXPECT_TRUE(gauge_says(bench.scrape(), cli::kExitRunError)) << bench.scrape();
}

TEST(RunExecutorStop, ACancelOnceTheRunWasJudgedMakesTheJobTheStoredRunAndTheGaugeSay3) {
  ExecutorBench bench;
  testing::Ended ended;
  ASSERT_NO_FATAL_FAILURE(run_first_job(bench, cancel_after_the_deadline_check(bench), ended));
  EXPECT_EQ(ended.status.state, JobState::kCancelled);
  EXPECT_EQ(ended.status.exit_code, cli::kExitRunError);
  EXPECT_EQ(stored_exit_code(bench.db()), cli::kExitRunError);
  EXPECT_TRUE(gauge_says(bench.scrape(), cli::kExitRunError)) << bench.scrape();
}

// A job cancelled while it waited made no run: the scenario's gauges stay what its latest run
// left (README "Running as a service", the cancel table), its exit code 3 is the job's alone.
TEST(RunExecutorStop, AJobCancelledWhileQueuedLeavesTheGaugesAsTheLatestRunLeftThem) {
  ExecutorBench bench;
  std::shared_ptr<Job> queued;
  RunExecutor::Seams seams;
  // While the first job runs: a second one of the same scenario waits, and is cancelled.
  seams.judged = [&](const std::function<void()>&) {
    queued = bench.submit(testing::short_scenario());
    if (queued) bench.queue().cancel(queued->id());
  };
  testing::Ended ended;
  ASSERT_NO_FATAL_FAILURE(run_first_job(bench, seams, ended));
  EXPECT_EQ(ended.status.exit_code, cli::kExitOk) << ended.err;
  ASSERT_TRUE(queued);
  const testing::Ended cancelled = ExecutorBench::wait_end(*queued);
  EXPECT_EQ(cancelled.status.state, JobState::kCancelled);
  EXPECT_EQ(cancelled.status.exit_code, cli::kExitRunError);
  EXPECT_EQ(cancelled.status.run_id, 0);
  EXPECT_EQ(stored_exit_code(bench.db()), cli::kExitOk);  // one stored run, the first
  const std::string scrape = bench.scrape();
  EXPECT_TRUE(gauge_says(scrape, cli::kExitOk)) << scrape;
  EXPECT_NE(scrape.find("\nbenchgate_runs_total{scenario=\"fakes\",status=\"ok\"} 1\n"),
            std::string::npos)
      << scrape;
  EXPECT_NE(scrape.find("\nbenchgate_runs_total{scenario=\"fakes\",status=\"aborted\"} 0\n"),
            std::string::npos)
      << scrape;
}

// The run had measured to its end when the cancel came: the store keeps it `ok` (every
// workload completed, README "Run status") with exit code 3 and the cancel as its reason, and
// benchgate_runs_total counts it with that stored status, not with one of its own.
TEST(RunExecutorStop, ACancelOnceTheRunWasJudgedIsCountedWithTheStatusTheStoreHolds) {
  ExecutorBench bench;
  testing::Ended ended;
  ASSERT_NO_FATAL_FAILURE(run_first_job(bench, cancel_after_the_deadline_check(bench), ended));
  EXPECT_EQ(ended.status.exit_code, cli::kExitRunError);
  auto runs = bench.db().list_runs(10);
  ASSERT_TRUE(runs && runs->size() == 1);
  EXPECT_EQ(runs->front().status, "ok");
  EXPECT_NE(runs->front().error.find("cancelled through the service"), std::string::npos)
      << runs->front().error;
  const std::string scrape = bench.scrape();
  EXPECT_NE(scrape.find("\nbenchgate_runs_total{scenario=\"fakes\",status=\"ok\"} 1\n"),
            std::string::npos)
      << scrape;
  EXPECT_EQ(scrape.find("status=\"failed\"} 1"), std::string::npos) << scrape;
  EXPECT_EQ(scrape.find("status=\"aborted\"} 1"), std::string::npos) << scrape;
}

// SIGTERM (or SIGINT) to the service once the run had measured to its end, before the job's
// outcome was settled: as a cancel then (above), the run stays `ok` in the store and in
// benchgate_runs_total, for every workload completed (README "Run status": a status says how
// the measuring ended), and the job, the stored run and benchgate_last_run_exit_code say 3,
// with the signal as the stored reason. In a child process: the signal's flag stays set for
// the life of the process that caught it.
TEST(RunExecutorStop, ASignalOnceTheRunWasJudgedLeavesItOkWithExitCode3AndTheSignalAsReason) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        app::install_interrupt_handlers();
        bool as_documented = false;
        {  // the bench (its temporary folder) goes before _Exit, which runs no destructor
          ExecutorBench bench;
          RunExecutor::Seams seams;
          seams.judged = [](const std::function<void()>&) { std::raise(SIGTERM); };
          testing::Ended ended;
          run_first_job(bench, seams, ended);
          auto runs = bench.db().list_runs(10);
          const std::string scrape = bench.scrape();
          as_documented =
              ended.status.state == JobState::kCancelled &&
              ended.status.exit_code == cli::kExitRunError && runs && runs->size() == 1 &&
              runs->front().status == "ok" &&
              runs->front().exit_code.value_or(-1) == cli::kExitRunError &&
              runs->front().error == "interrupted by signal 15 (Terminated)" &&
              ended.status.error == runs->front().error && gauge_says(scrape, cli::kExitRunError) &&
              scrape.find("\nbenchgate_runs_total{scenario=\"fakes\",status=\"ok\"} 1\n") !=
                  std::string::npos;
          if (!as_documented) {
            std::fprintf(stderr, "job %d exit %d [%s]; stored %s\n%s",
                         static_cast<int>(ended.status.state), ended.status.exit_code,
                         ended.status.error.c_str(),
                         runs && !runs->empty()
                             ? (runs->front().status + " [" + runs->front().error + "]").c_str()
                             : "none",
                         scrape.c_str());
          }
        }
        std::fflush(stderr);
        std::_Exit(as_documented ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(RunExecutorStop, ADeadlineThatPassedOnceTheRunWasJudgedChangesNothing) {
  ExecutorBench bench;
  RunExecutor::Seams seams;
  seams.judged = [](const std::function<void()>& pass_deadline) { pass_deadline(); };
  bench.executor().set_seams(seams);
  auto job = bench.submit(testing::short_scenario(), "scheduled");  // the gauge is the operator's
  ASSERT_TRUE(job);
  const auto ended = ExecutorBench::wait_end(*job);
  EXPECT_EQ(ended.status.state, JobState::kFinished) << ended.err;
  EXPECT_EQ(ended.status.exit_code, cli::kExitOk) << ended.err;
  EXPECT_EQ(stored_exit_code(bench.db()), cli::kExitOk);
  EXPECT_TRUE(gauge_says(bench.scrape(), cli::kExitOk)) << bench.scrape();
}

TEST(RunExecutorStop, ARunStoppedAtMaxRunSecondsStoresThatReasonNotACancel) {
  ExecutorBench bench;
  JobOptions options;
  options.max_run_ns = 1;  // passed as soon as the run starts
  auto job = bench.submit(testing::short_scenario(), "client", options);
  ASSERT_TRUE(job);
  const auto ended = ExecutorBench::wait_end(*job);
  EXPECT_EQ(ended.status.exit_code, cli::kExitRunError) << ended.err;
  EXPECT_NE(ended.err.find("run stopped: the run went on for this service's --max-run-seconds"),
            std::string::npos)
      << ended.err;
  auto runs = bench.db().list_runs(10);
  ASSERT_TRUE(runs && runs->size() == 1);
  EXPECT_EQ(runs->front().exit_code.value_or(-1), cli::kExitRunError);
  EXPECT_NE(runs->front().error.find("stopped at the service's --max-run-seconds"),
            std::string::npos)
      << runs->front().status << " [" << runs->front().error << "] " << ended.err;
  EXPECT_EQ(runs->front().error.find("cancelled"), std::string::npos) << runs->front().error;
}

// The job's error (GetRun, Watch's last status) is what its stored run says. A cancel that cut a
// wait short (for an external system to accept connections, here the fake's) stored only
// "interrupted while waiting for ...", naming no one who stopped it; a cancel in a window
// stored "cancelled through the service" while the job's error was empty.
TEST(RunExecutorStop, ACancelledJobsErrorIsItsStoredRunsAndSaysTheServiceCancelledIt) {
  for (const bool while_waiting : {true, false}) {
    SCOPED_TRACE(while_waiting ? "while waiting" : "in a window");
    ExecutorBench bench;
    if (while_waiting) {
      bench.factories().suts = {engine::testing::FakeSut::Script{
          Error{"interrupted while waiting for 127.0.0.2:8080 to accept connections",
                ErrorKind::kInterrupted}}};
    }
    Job job(kFirstJob, testing::short_scenario(), {}, "client");
    ASSERT_TRUE(job.request_cancel());  // as JobQueue::cancel asks a running job
    bench.executor().run(job);
    const JobStatus status = job.status();
    EXPECT_EQ(status.state, JobState::kCancelled);
    auto runs = bench.db().list_runs(10);
    ASSERT_TRUE(runs && runs->size() == 1);
    EXPECT_EQ(runs->front().status, "aborted");
    const std::string expected =
        while_waiting ? "cancelled through the service; interrupted while waiting for "
                        "127.0.0.2:8080 to accept connections"
                      : "cancelled through the service";
    EXPECT_EQ(runs->front().error, expected);
    EXPECT_EQ(status.error, expected);
    EXPECT_EQ(status.run_id, runs->front().id);
  }
}

// The job's run id is given as soon as the run is stored, while the job still runs (GetRun,
// ListRuns and the live page show it then); it was 0 until the job ended.
TEST(RunExecutorRunId, TheRunIdIsInTheJobsStatusWhileItRuns) {
  ExecutorBench bench;
  auto job = bench.submit(testing::short_scenario());
  ASSERT_TRUE(job);
  const auto ended = ExecutorBench::wait_end(*job);
  ASSERT_EQ(ended.status.state, JobState::kFinished) << ended.err;
  ASSERT_NE(ended.status.run_id, 0);
  std::vector<int64_t> running_ids;
  uint64_t next = 0;
  bool done = false;
  for (const JobEvent& event : job->events_since(next, std::chrono::milliseconds(0), done)) {
    if (const auto* s = std::get_if<JobStatus>(&event); s && s->state == JobState::kRunning) {
      running_ids.push_back(s->run_id);
    }
  }
  // Started (no run yet), then stored: the id the store gave it.
  EXPECT_EQ(running_ids, (std::vector<int64_t>{0, ended.status.run_id}));
}

// A job's run records who submitted it (runs.origin): a client's run is a point of the
// clients' series only, a scheduled one of the operator's (docs/GATES.md, "Series and
// baselines"). Both were stored alike before, and a client's run joined the operator's series.
TEST(RunExecutorOrigin, AJobsRunIsStoredWithItsJobsOrigin) {
  ExecutorBench bench;
  // Two runs: a system under test and a worker pool scripted for each.
  bench.factories().suts = {engine::testing::FakeSut::Script{}, engine::testing::FakeSut::Script{}};
  bench.factories().pools = {engine::testing::FakePool::Script{},
                             engine::testing::FakePool::Script{}};
  std::vector<std::string> origins;
  for (const char* origin : {"client", "scheduled"}) {
    auto job = bench.submit(testing::short_scenario(), origin);
    ASSERT_TRUE(job);
    const auto ended = ExecutorBench::wait_end(*job);
    ASSERT_EQ(ended.status.state, JobState::kFinished) << ended.err;
    auto run = bench.db().get_run(ended.status.run_id);
    ASSERT_TRUE(run) << run.message();
    origins.push_back(run->run.origin);
  }
  EXPECT_EQ(origins, (std::vector<std::string>{"client", "scheduled"}));
}

// A failed job keeps its children's logs ("job-N" in the service's log folder) for as long as
// the service keeps the job listed (serve --keep-finished), and no longer: they were never
// removed, so a long-running service's failed jobs filled the temporary folder. A job that
// went well keeps none.
TEST(RunExecutorLogs, AFailedJobsLogsGoWhenTheServiceForgetsTheJob) {
  ExecutorBench bench;
  JobQueueLimits limits;
  limits.finished_kept = 1;
  bench.set_queue_limits(limits);
  const Error refused{"the system under test did not start", ErrorKind::kFailed};
  bench.factories().suts = {engine::testing::FakeSut::Script{refused},
                            engine::testing::FakeSut::Script{refused},
                            engine::testing::FakeSut::Script{}};
  bench.factories().pools = {engine::testing::FakePool::Script{},
                             engine::testing::FakePool::Script{},
                             engine::testing::FakePool::Script{}};
  const std::filesystem::path logs = bench.log_dir();
  auto listed = [&bench](uint64_t id) { return bench.queue().find(id) != nullptr; };

  auto first = bench.submit(testing::short_scenario());
  ASSERT_TRUE(first);
  EXPECT_EQ(ExecutorBench::wait_end(*first).status.exit_code, cli::kExitRunError);
  EXPECT_TRUE(std::filesystem::is_directory(logs / "job-1"));

  auto second = bench.submit(testing::short_scenario());
  ASSERT_TRUE(second);
  EXPECT_EQ(ExecutorBench::wait_end(*second).status.exit_code, cli::kExitRunError);
  // The queue forgets job 1 after job 2 has ended, on its own thread: once it has started job
  // 3, it has.
  auto third = bench.submit(testing::short_scenario());
  ASSERT_TRUE(third);
  EXPECT_EQ(ExecutorBench::wait_end(*third).status.exit_code, cli::kExitOk);
  bench.queue().shutdown();  // its thread has gone on from job 3's end, and forgotten job 2
  EXPECT_FALSE(listed(1));
  EXPECT_FALSE(std::filesystem::exists(logs / "job-1"));
  // Job 2 was forgotten once job 3 ended, and job 3 went well: no log folder is left.
  EXPECT_FALSE(listed(2));
  EXPECT_FALSE(std::filesystem::exists(logs / "job-2"));
  EXPECT_TRUE(listed(3));
  EXPECT_FALSE(std::filesystem::exists(logs / "job-3"));
}

TEST(RunExecutorStop, ACancelOnceTheOutcomeIsSettledIsRefused) {
  Job job(1, testing::short_scenario(), {}, "client");
  EXPECT_TRUE(job.request_cancel());
  EXPECT_TRUE(job.close_cancels());
  Job late(2, testing::short_scenario(), {}, "client");
  EXPECT_FALSE(late.close_cancels());
  EXPECT_FALSE(late.request_cancel());
  EXPECT_FALSE(late.cancel_requested());
}

}  // namespace
}  // namespace benchgate::serve
