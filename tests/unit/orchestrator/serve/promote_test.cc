// The service's Promote call (orchestrator/serve/orchestrator_service.cc): the runs of jobs
// submitted with deferred_promote join that baseline all together or none, and only jobs this
// service holds, each finished with exit 0 and submitted for that baseline, none promoted
// before. A client names jobs, never runs: no other run can be reached (the reverted c5ecaaa
// took run ids and added any stored run).
#include <gtest/gtest.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "executor_test_support.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/serve/orchestrator_service.h"
#include "orchestrator/serve/promote_key.h"

namespace benchgate::serve {
namespace {

using testing::ExecutorBench;

// The key of the client that submitted the jobs (`run --server` sends 64 hex digits).
const std::string kOwnerKey(64, 'a');

grpc::Status promote(OrchestratorService& service, const std::string& baseline,
                     const std::vector<uint64_t>& jobs, v1::PromoteResponse* response = nullptr,
                     bool validate_only = false, const std::string& key = kOwnerKey) {
  v1::PromoteRequest request;
  request.set_baseline(baseline);
  request.set_promote_key(key);
  for (uint64_t job : jobs) request.add_job_ids(job);
  request.set_validate_only(validate_only);
  v1::PromoteResponse ignored;
  return service.Promote(nullptr, &request, response != nullptr ? response : &ignored);
}

size_t entries(store::Store& db, const std::string& baseline) {
  auto listed = db.list_baselines(baseline);
  EXPECT_TRUE(listed) << listed.message();
  return listed ? listed->size() : 0;
}

JobOptions deferred(const std::string& baseline) {
  JobOptions options;
  options.promote = baseline;
  options.promote_deferred = true;
  options.promote_key_sha256 = promote_key_digest(kOwnerKey);
  return options;
}

AdmissionPolicy allowing(std::vector<std::string> baselines) {
  AdmissionPolicy policy;
  policy.allowed_promotions = std::move(baselines);
  return policy;
}

// `count` runs that go well, each a system under test and a worker pool of the fakes.
void script_runs(ExecutorBench& bench, size_t count) {
  bench.factories().suts.assign(count, engine::testing::FakeSut::Script{});
  bench.factories().pools.assign(count, engine::testing::FakePool::Script{});
}

// Expects a refusal naming `job` and saying `why`, with nothing added to 'main'.
void expect_refused(OrchestratorService& service, store::Store& db,
                    const std::vector<uint64_t>& jobs, uint64_t job, const std::string& why) {
  const grpc::Status status = promote(service, "main", jobs);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << status.error_message();
  EXPECT_EQ(status.error_message(),
            "job " + std::to_string(job) + " " + why + "; nothing was added to 'main'");
  EXPECT_EQ(entries(db, "main"), 0u);
}

TEST(Promote, DeferredJobsRunsJoinTogetherOnceAndAskingAgainSaysSo) {
  ExecutorBench bench;
  script_runs(bench, 2);
  auto a = bench.submit(testing::short_scenario(), "client", deferred("main"));
  auto b = bench.submit(testing::short_scenario(), "client", deferred("main"));
  ASSERT_TRUE(a && b);
  const int64_t run_a = ExecutorBench::wait_end(*a).status.run_id;
  const int64_t run_b = ExecutorBench::wait_end(*b).status.run_id;
  ASSERT_EQ(a->status().exit_code, cli::kExitOk);
  ASSERT_EQ(b->status().exit_code, cli::kExitOk);
  // A deferred job does not promote itself when it exits 0.
  EXPECT_EQ(entries(bench.db(), "main"), 0u);

  OrchestratorService service(bench.queue(), allowing({"main"}));
  service.set_store(&bench.db());
  v1::PromoteResponse response;
  ASSERT_TRUE(promote(service, "main", {b->id(), a->id()}, &response).ok());
  EXPECT_FALSE(response.already_promoted());
  ASSERT_EQ(response.run_ids_size(), 2);
  EXPECT_EQ(response.run_ids(0), run_b);  // in the request's order
  EXPECT_EQ(response.run_ids(1), run_a);
  EXPECT_EQ(entries(bench.db(), "main"), 2u);

  // The same jobs again, in any order (a client whose answer was lost): they were, and nothing
  // is added twice.
  response.Clear();
  ASSERT_TRUE(promote(service, "main", {a->id(), b->id()}, &response).ok());
  EXPECT_TRUE(response.already_promoted());
  EXPECT_EQ(response.run_ids_size(), 2);
  EXPECT_EQ(entries(bench.db(), "main"), 2u);
  // Any other request with a promoted job is refused.
  const grpc::Status again = promote(service, "main", {a->id()});
  EXPECT_EQ(again.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(again.error_message(),
            "job 1 was promoted to 'main' already, by a request naming jobs 1, 2; nothing was "
            "added to 'main'");
}

// Only the client that submitted the jobs, holding its key, promotes them: a third party that
// read the job ids from ListRuns, without the key or with another, is refused naming the job
// and nothing about the key, and adds nothing (before, any client could: a review promoted one
// job of another client's invocation whose other file had failed its gate).
TEST(Promote, OnlyTheClientHoldingTheJobsKeyPromotesThem) {
  ExecutorBench bench;
  script_runs(bench, 2);
  auto a = bench.submit(testing::short_scenario(), "client", deferred("main"));
  auto b = bench.submit(testing::short_scenario(), "client", deferred("main"));
  ASSERT_TRUE(a && b);
  ExecutorBench::wait_end(*a);
  ExecutorBench::wait_end(*b);
  ASSERT_EQ(a->status().exit_code, cli::kExitOk);
  ASSERT_EQ(b->status().exit_code, cli::kExitOk);
  OrchestratorService service(bench.queue(), allowing({"main"}));
  service.set_store(&bench.db());

  const std::string refusal = "job " + std::to_string(a->id()) +
                              " was submitted by another client: only the client that submitted "
                              "it, with its promote_key, may promote it; nothing was added to "
                              "'main'";
  for (const std::string& key : {std::string(), std::string(64, 'b'), kOwnerKey + "a"}) {
    const grpc::Status stranger = promote(service, "main", {a->id()}, nullptr, false, key);
    EXPECT_EQ(stranger.error_code(), grpc::StatusCode::PERMISSION_DENIED) << key;
    EXPECT_EQ(stranger.error_message(), refusal) << key;
  }
  EXPECT_EQ(entries(bench.db(), "main"), 0u);

  v1::PromoteResponse response;
  ASSERT_TRUE(promote(service, "main", {a->id(), b->id()}, &response).ok());
  EXPECT_EQ(response.run_ids_size(), 2);
  EXPECT_EQ(entries(bench.db(), "main"), 2u);
  // Promoted, the jobs' runs are not told to a stranger asking again either.
  response.Clear();
  const grpc::Status again =
      promote(service, "main", {a->id(), b->id()}, &response, false, std::string(64, 'b'));
  EXPECT_EQ(again.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(response.run_ids_size(), 0);
  EXPECT_EQ(entries(bench.db(), "main"), 2u);
}

// Each job that may not join is refused naming it and why, with the good job beside it: none
// is added.
TEST(Promote, EveryJobIsCheckedAndARefusalAddsNone) {
  ExecutorBench bench;
  // Runs: good, self, other, failed (its router does not start), store-refused; then the one
  // held running while the next waits.
  script_runs(bench, 7);
  bench.factories().suts[3].start_error = Error{"the router did not start", ErrorKind::kFailed};
  std::mutex mutex;
  std::condition_variable released_cv;
  bool released = false, started = false;
  bench.factories().suts[5].on_start = [&] {
    std::unique_lock lock(mutex);
    started = true;
    released_cv.notify_all();
    released_cv.wait(lock, [&] { return released; });
  };
  JobOptions self;
  self.promote = "other";
  std::vector<std::shared_ptr<Job>> jobs;
  for (const JobOptions& options :
       {deferred("main"), self, deferred("other"), deferred("main"), deferred("main")}) {
    jobs.push_back(bench.submit(testing::short_scenario(), "client", options));
    ASSERT_TRUE(jobs.back());
    ExecutorBench::wait_end(*jobs.back());
  }
  const uint64_t good = jobs[0]->id();
  ASSERT_EQ(jobs[0]->status().exit_code, cli::kExitOk);
  ASSERT_EQ(jobs[3]->status().exit_code, cli::kExitRunError);
  // Its job said exit 0; the stored run says 3 (as a raise after the job ended would).
  const int64_t raised = jobs[4]->status().run_id;
  ASSERT_TRUE(bench.db().raise_exit_code(raised, cli::kExitRunError, "raised by the test"));

  OrchestratorService service(bench.queue(), allowing({"main", "other"}));
  service.set_store(&bench.db());
  expect_refused(service, bench.db(), {good, 99}, 99,
                 "is not held by this service (unknown, or forgotten: it keeps the newest "
                 "--keep-finished ended jobs)");
  expect_refused(service, bench.db(), {good, jobs[1]->id()}, jobs[1]->id(),
                 "was submitted to promote its own run (promote, not deferred_promote)");
  expect_refused(service, bench.db(), {good, jobs[2]->id()}, jobs[2]->id(),
                 "was submitted with deferred_promote 'other', not 'main'");
  expect_refused(service, bench.db(), {good, jobs[3]->id()}, jobs[3]->id(),
                 "exited 3; only a run that exited 0 joins a baseline, as with run --promote");
  const grpc::Status store_refused = promote(service, "main", {good, jobs[4]->id()});
  EXPECT_EQ(store_refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(store_refused.error_message().rfind("job " + std::to_string(jobs[4]->id()) +
                                                    ": baseline add: run " +
                                                    std::to_string(raised) + " exited 3",
                                                0),
            0u)
      << store_refused.error_message();
  EXPECT_EQ(entries(bench.db(), "main"), 0u);

  // One job runs (held at its router's start), the next waits.
  auto running = bench.submit(testing::short_scenario(), "client", deferred("main"));
  auto waiting = bench.submit(testing::short_scenario(), "client", deferred("main"));
  ASSERT_TRUE(running && waiting);
  {
    std::unique_lock lock(mutex);
    released_cv.wait(lock, [&] { return started; });
  }
  expect_refused(service, bench.db(), {good, running->id()}, running->id(),
                 "is still running: a run joins a baseline once its job exited 0");
  expect_refused(service, bench.db(), {good, waiting->id()}, waiting->id(),
                 "has not started yet: a run joins a baseline once its job exited 0");
  ASSERT_TRUE(bench.queue().cancel(waiting->id()));
  {
    std::lock_guard lock(mutex);
    released = true;
  }
  released_cv.notify_all();
  ExecutorBench::wait_end(*running);
  ExecutorBench::wait_end(*waiting);
  expect_refused(service, bench.db(), {good, waiting->id()}, waiting->id(),
                 "was cancelled (exit code 3)");
  // The good job alone joins.
  EXPECT_TRUE(promote(service, "main", {good}).ok());
  EXPECT_EQ(entries(bench.db(), "main"), 1u);
}

// A job the service forgot (serve --keep-finished) cannot be promoted any more.
TEST(Promote, AJobTheServiceForgotIsRefused) {
  ExecutorBench bench;
  JobQueueLimits limits;
  limits.finished_kept = 1;
  bench.set_queue_limits(limits);
  script_runs(bench, 3);
  std::vector<std::shared_ptr<Job>> jobs;
  for (int i = 0; i < 3; ++i) {
    jobs.push_back(bench.submit(testing::short_scenario(), "client", deferred("main")));
    ASSERT_TRUE(jobs.back());
    ExecutorBench::wait_end(*jobs.back());
  }
  bench.queue().shutdown();  // its thread has gone on from job 3's end, and forgotten job 2
  OrchestratorService service(bench.queue(), allowing({"main"}));
  service.set_store(&bench.db());
  expect_refused(service, bench.db(), {jobs[0]->id(), jobs[2]->id()}, jobs[0]->id(),
                 "is not held by this service (unknown, or forgotten: it keeps the newest "
                 "--keep-finished ended jobs)");
}

// What the request itself gets wrong is refused before any job is looked at.
TEST(Promote, ARequestsOwnMistakesAreRefusedNamingTheField) {
  ExecutorBench bench;
  OrchestratorService service(bench.queue(), allowing({"main"}));
  EXPECT_TRUE(promote(service, "main", {}, nullptr, true).ok());
  const grpc::Status denied = promote(service, "nightly", {}, nullptr, true);
  EXPECT_EQ(denied.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(denied.error_message().rfind("field 'baseline': this service lets its clients "
                                         "promote runs only to 'main' (serve --allow-promote), "
                                         "not to 'nightly'",
                                         0),
            0u)
      << denied.error_message();
  const grpc::Status empty = promote(service, "", {1});
  EXPECT_EQ(empty.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(empty.error_message(), "field 'baseline' is empty: name the baseline");
  const grpc::Status bad = promote(service, "a b", {1});
  EXPECT_EQ(bad.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(bad.error_message().rfind("field 'baseline': baseline name 'a b'", 0), 0u)
      << bad.error_message();
  const grpc::Status none = promote(service, "main", {});
  EXPECT_EQ(none.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(none.error_message(), "field 'job_ids' is empty: name the jobs");
  const grpc::Status twice = promote(service, "main", {1, 2, 1});
  EXPECT_EQ(twice.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(twice.error_message(), "field 'job_ids' names job 1 twice");
  const grpc::Status no_store = promote(service, "main", {1});
  EXPECT_EQ(no_store.error_code(), grpc::StatusCode::UNAVAILABLE);
}

}  // namespace
}  // namespace benchgate::serve
