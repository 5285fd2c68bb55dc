// What `orchestrator serve`'s Submit refuses besides the scenario: the values of the flags a
// submission carries, checked before the job is queued as `orchestrator run` checks its flags
// (a bad --promote name was found only when the run ended). The queue's executor is a fake
// that records what it was given to run.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "orchestrator/serve/orchestrator_service.h"
#include "orchestrator/serve/promote_key.h"

namespace benchgate::serve {
namespace {

class RecordingExecutor final : public JobExecutor {
 public:
  void run(Job& job) override {
    {
      std::lock_guard lock(mutex_);
      promoted_.push_back(job.options().promote);
    }
    job.update([](JobStatus& s) { s.state = JobState::kFinished; });
  }
  void interrupt() override {}
  std::vector<std::string> promoted() const {
    std::lock_guard lock(mutex_);
    return promoted_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> promoted_;
};

const char* kScenario = R"(name = "s"
[[workloads]]
name = "w"
protocol = "http1"
target = "/bench/hello"
)";

grpc::Status submit_with(OrchestratorService& service, const std::string& baseline,
                         const std::string& promote) {
  v1::SubmitRequest request;
  request.mutable_content()->set_file_name("client.toml");
  request.mutable_content()->set_text(kScenario);
  request.set_baseline(baseline);
  request.set_promote(promote);
  v1::SubmitResponse response;
  return service.Submit(nullptr, &request, &response);
}

// A file name that is not UTF-8 reaches Submit as bytes, as the service's gRPC server parses
// the request, and is refused naming it: as a string field it failed to parse, with a
// libprotobuf ERROR in the service's log per request and a client told nothing.
TEST(SubmitOptions, AFileNameThatIsNotUtf8IsParsedAndRefusedNamingIt) {
  v1::SubmitRequest sent;
  sent.mutable_content()->set_file_name("bad\xff.toml");
  sent.mutable_content()->set_text(kScenario);
  v1::SubmitRequest received;
  ASSERT_TRUE(received.ParseFromString(sent.SerializeAsString()));
  RecordingExecutor executor;
  JobQueue queue(executor);
  OrchestratorService service(queue, AdmissionPolicy{});
  v1::SubmitResponse response;
  const grpc::Status status = service.Submit(nullptr, &received, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("the file name sent with it ('bad\\xff.toml') has a "
                                        "control character"),
            std::string::npos)
      << status.error_message();
  EXPECT_TRUE(queue.list().empty());
}

TEST(SubmitOptions, ABadPromoteOrBaselineNameIsRefusedBeforeTheJobIsQueued) {
  RecordingExecutor executor;
  JobQueue queue(executor);
  AdmissionPolicy policy;
  policy.allowed_promotions = {"release-1.2"};
  OrchestratorService service(queue, policy);

  const grpc::Status promote = submit_with(service, "", "bad name");
  EXPECT_EQ(promote.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(promote.error_message(),
            "field 'promote': baseline name 'bad name' may contain only letters, digits, '_', "
            "'-' and '.'");
  const grpc::Status baseline = submit_with(service, "main;", "");
  EXPECT_EQ(baseline.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(baseline.error_message().rfind("field 'baseline': baseline name 'main;'", 0), 0u)
      << baseline.error_message();
  EXPECT_TRUE(queue.list().empty()) << "a refused submission was queued";

  // Good names are queued and reach the executor unchanged.
  ASSERT_TRUE(submit_with(service, "main", "release-1.2").ok());
  ASSERT_EQ(queue.list().size(), 1u);
  auto job = queue.find(queue.list().front().id);
  ASSERT_TRUE(job);
  bool ended = false;
  uint64_t seen = 0;
  for (int i = 0; i < 100 && !ended; ++i) {
    job->events_since(seen, std::chrono::milliseconds(100), ended);
  }
  ASSERT_TRUE(ended) << "the fake executor never ran the job";
  EXPECT_EQ(executor.promoted(), std::vector<std::string>{"release-1.2"});
}

// A client's run in a baseline moves the bar of every relative gate judged against it, the
// service's own scenarios' included: before, any client promoted into any baseline. A Submit
// that asks to promote is refused (PERMISSION_DENIED) unless serve --allow-promote names the
// baseline, before anything is queued, and a validate_only one too; asking none, or only to be
// judged against a baseline (`baseline`), is the client's own business.
TEST(SubmitOptions, APromotionIsRefusedUnlessTheOperatorAllowsItsBaseline) {
  RecordingExecutor executor;
  JobQueue queue(executor);
  OrchestratorService none_allowed(queue, AdmissionPolicy{});
  const grpc::Status refused = submit_with(none_allowed, "", "main");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(refused.error_message(),
            "field 'promote': this service lets no client promote its run, to 'main' or any "
            "baseline (a baseline is what relative gates judge against, the service's own "
            "scenarios' included; its operator allows one with serve --allow-promote BASELINE); "
            "nothing was submitted: submit without --promote");
  EXPECT_TRUE(refused.error_details().empty()) << "not a scenario's diagnostics";
  v1::SubmitRequest check;
  check.mutable_content()->set_file_name("client.toml");
  check.mutable_content()->set_text(kScenario);
  check.set_promote("main");
  check.set_validate_only(true);
  v1::SubmitResponse response;
  EXPECT_EQ(none_allowed.Submit(nullptr, &check, &response).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(queue.list().empty()) << "a refused submission was queued";
  ASSERT_TRUE(submit_with(none_allowed, "main", "").ok());

  AdmissionPolicy policy;
  policy.allowed_promotions = {"nightly", "pr-runs"};
  OrchestratorService some_allowed(queue, policy);
  const grpc::Status other = submit_with(some_allowed, "", "main");
  EXPECT_EQ(other.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(other.error_message(),
            "field 'promote': this service lets its clients promote runs only to 'nightly', "
            "'pr-runs' (serve --allow-promote), not to 'main' (a baseline is what relative gates "
            "judge against, the service's own scenarios' included); nothing was submitted: "
            "submit without --promote, or with one of those");
  // Names are compared exactly, as the store keeps them.
  EXPECT_EQ(submit_with(some_allowed, "", "Nightly").error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(queue.list().size(), 1u);
  ASSERT_TRUE(submit_with(some_allowed, "", "pr-runs").ok());
  ASSERT_EQ(queue.list().size(), 2u);
  auto job = queue.find(queue.list().front().id);  // newest first
  ASSERT_TRUE(job);
  bool ended = false;
  uint64_t seen = 0;
  for (int i = 0; i < 100 && !ended; ++i) {
    job->events_since(seen, std::chrono::milliseconds(100), ended);
  }
  ASSERT_TRUE(ended) << "the fake executor never ran the job";
  EXPECT_EQ(executor.promoted(), (std::vector<std::string>{"", "pr-runs"}));
}

// deferred_promote (`run --server --promote NAME` with several files): the same name rule and
// --allow-promote as promote, naming its own field, not beside promote; the job carries the
// name as a promotion it does not make itself.
TEST(SubmitOptions, ADeferredPromotionIsCheckedAsPromoteIsNamingItsField) {
  RecordingExecutor executor;
  JobQueue queue(executor);
  AdmissionPolicy policy;
  policy.allowed_promotions = {"nightly"};
  OrchestratorService service(queue, policy);
  auto submit = [&service](const std::string& promote, const std::string& deferred,
                           const std::string& key = std::string(64, 'k')) {
    v1::SubmitRequest request;
    request.mutable_content()->set_file_name("client.toml");
    request.mutable_content()->set_text(kScenario);
    request.set_promote(promote);
    request.set_deferred_promote(deferred);
    request.set_promote_key(key);
    v1::SubmitResponse response;
    return service.Submit(nullptr, &request, &response);
  };
  const grpc::Status bad = submit("", "bad name");
  EXPECT_EQ(bad.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(bad.error_message().rfind("field 'deferred_promote': baseline name 'bad name' may "
                                      "contain only letters",
                                      0),
            0u)
      << bad.error_message();
  const grpc::Status denied = submit("", "main");
  EXPECT_EQ(denied.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(denied.error_message().rfind("field 'deferred_promote': this service lets its "
                                         "clients promote runs only to 'nightly'",
                                         0),
            0u)
      << denied.error_message();
  const grpc::Status both = submit("nightly", "nightly");
  EXPECT_EQ(both.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(both.error_message(),
            "fields 'promote' and 'deferred_promote' exclude each other: a job promotes its run "
            "itself when it exits 0, or leaves it to a later Promote");
  // The key that lets only this client promote the job later: required, not guessable, and
  // only beside deferred_promote.
  const grpc::Status keyless = submit("", "nightly", "");
  EXPECT_EQ(keyless.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(keyless.error_message(),
            "field 'promote_key' is empty: a job submitted with deferred_promote needs the key "
            "its client's later Promote will carry");
  const grpc::Status short_key = submit("", "nightly", "12345");
  EXPECT_EQ(short_key.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(short_key.error_message(),
            "field 'promote_key' has 5 bytes; at least 16 random bytes, so that no other client "
            "can guess it");
  const grpc::Status stray = submit("nightly", "");
  EXPECT_EQ(stray.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(stray.error_message(),
            "field 'promote_key' is for a job submitted with deferred_promote");
  EXPECT_TRUE(queue.list().empty());
  ASSERT_TRUE(submit("", "nightly").ok());
  auto job = queue.find(queue.list().front().id);
  ASSERT_TRUE(job);
  EXPECT_EQ(job->options().promote, "nightly");
  EXPECT_TRUE(job->options().promote_deferred);
  // Only the key's digest is kept.
  EXPECT_EQ(job->options().promote_key_sha256, promote_key_digest(std::string(64, 'k')));
}

// Several files' deferred jobs are promoted once all have ended: more than the service keeps
// ended jobs (serve --keep-finished) are refused before any is submitted, as a request that
// could never succeed (before, `run --server --promote main a.toml b.toml` against
// --keep-finished 1 ran both and then exited 3, "job 1 is not held").
TEST(SubmitOptions, MoreDeferredJobsThanTheServiceKeepsEndedAreRefusedBeforeAnyIsSubmitted) {
  RecordingExecutor executor;
  JobQueueLimits limits;
  limits.finished_kept = 1;
  JobQueue queue(executor, limits);
  AdmissionPolicy policy;
  policy.allowed_promotions = {"main"};
  OrchestratorService service(queue, policy);
  auto check = [&service](uint32_t jobs, const std::string& deferred) {
    v1::SubmitRequest request;
    request.mutable_content()->set_file_name("client.toml");
    request.mutable_content()->set_text(kScenario);
    request.set_deferred_promote(deferred);
    if (!deferred.empty()) request.set_promote_key(std::string(64, 'k'));
    request.set_validate_only(true);
    request.set_jobs_to_submit(jobs);
    v1::SubmitResponse response;
    return service.Submit(nullptr, &request, &response);
  };
  const grpc::Status two = check(2, "main");
  EXPECT_EQ(two.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(two.error_message(),
            "2 runs to promote together can never all be held until they are promoted: this "
            "service keeps the newest 1 ended jobs (serve --keep-finished 1); promote at most 1 "
            "scenario files at a time");
  EXPECT_TRUE(check(1, "main").ok());
  EXPECT_TRUE(check(2, "").ok());  // not promoted later: nothing to hold
  EXPECT_TRUE(queue.list().empty());
}

// A validate_only Submit checks as Submit does and queues nothing: `run --server a.toml
// b.toml` checks every file so before it submits any, and a refused b.toml leaves no job of
// a.toml started (before, a.toml's job started at once and was cancelled mid-start).
TEST(SubmitOptions, AValidateOnlySubmitChecksAndQueuesNothing) {
  RecordingExecutor executor;
  JobQueue queue(executor);
  OrchestratorService service(queue, AdmissionPolicy{});
  v1::SubmitRequest request;
  request.mutable_content()->set_file_name("client.toml");
  request.mutable_content()->set_text(kScenario);
  request.set_validate_only(true);
  v1::SubmitResponse response;
  response.set_job_id(99);
  ASSERT_TRUE(service.Submit(nullptr, &request, &response).ok());
  EXPECT_EQ(response.job_id(), 0u);
  EXPECT_EQ(response.scenario(), "s");
  EXPECT_EQ(response.queue_position(), 0u);
  EXPECT_TRUE(queue.list().empty()) << "a validate_only submission was queued";

  // Refused as Submit refuses: the scenario, then the fields.
  request.mutable_content()->set_text("name = \"s\"\nbogus = 1\n");
  EXPECT_EQ(service.Submit(nullptr, &request, &response).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  request.mutable_content()->set_text(kScenario);
  request.set_promote("bad name");
  EXPECT_EQ(service.Submit(nullptr, &request, &response).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(queue.list().empty());

  // A full queue or a shutdown, as Submit answers them.
  JobQueue none_waiting(executor, JobQueueLimits{.max_waiting = 0});
  OrchestratorService full(none_waiting, AdmissionPolicy{});
  request.set_promote("");
  EXPECT_EQ(full.Submit(nullptr, &request, &response).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  queue.shutdown();
  EXPECT_EQ(service.Submit(nullptr, &request, &response).error_code(),
            grpc::StatusCode::UNAVAILABLE);
}

constexpr const char* kUnprintable =
    " has a control character (a line break, a tab, an escape) or invalid UTF-8; none is "
    "accepted in what is stored with the run (`runs list` and `runs show` print it)";

// A commit, a branch or a label with a control character was stored as sent and printed raw by
// `runs list` and `runs show`: a forged row, a coloured terminal. Refused now, naming the field
// and showing the value escaped, and nothing is queued.
TEST(SubmitOptions, AControlCharacterInACommitBranchOrLabelIsRefusedNamingTheField) {
  RecordingExecutor executor;
  JobQueue queue(executor);
  OrchestratorService service(queue, AdmissionPolicy{});
  auto submit = [&](const std::string& commit, const std::string& branch,
                    std::map<std::string, std::string> labels) {
    v1::SubmitRequest request;
    request.mutable_content()->set_file_name("client.toml");
    request.mutable_content()->set_text(kScenario);
    request.set_commit(commit);
    request.set_branch(branch);
    for (const auto& [k, v] : labels) (*request.mutable_labels())[k] = v;
    v1::SubmitResponse response;
    return service.Submit(nullptr, &request, &response);
  };
  const grpc::Status commit = submit("a\"b\\\nc\x1b[31m", "", {});
  EXPECT_EQ(commit.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(commit.error_message(),
            std::string("field 'commit' ('a\"b\\\\nc\\x1b[31m')") + kUnprintable);
  const grpc::Status branch = submit("", "br\nanch", {});
  EXPECT_EQ(branch.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(branch.error_message(), std::string("field 'branch' ('br\\nanch')") + kUnprintable);
  const grpc::Status key = submit("", "", {{"k\n", "v"}});
  EXPECT_EQ(key.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(key.error_message(), std::string("field 'labels' ('k\\n=v')") + kUnprintable);
  const grpc::Status value = submit("", "", {{"k", "\x1b]0;title\x07"}});
  EXPECT_EQ(value.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(value.error_message(),
            std::string("field 'labels' ('k=\\x1b]0;title\\x07')") + kUnprintable);
  EXPECT_TRUE(queue.list().empty()) << "a refused submission was queued";
  // Printable text, UTF-8 and a backslash included, is taken as it is.
  EXPECT_TRUE(submit("0123abc-dirty", "feature/é", {{"note", "C:\\temp"}}).ok());
  EXPECT_EQ(queue.list().size(), 1u);
}

// `orchestrator run` checks its flags with the same function: the error names the flag and
// shows the value escaped (exit code 2, nothing started); a label as it was given, KEY=VALUE.
TEST(SubmitOptions, AControlCharacterInAFlagIsRefusedNamingTheFlag) {
  JobOptions commit;
  commit.commit = "a\"b\\\nc\x1b[31m";
  EXPECT_EQ(check_job_options(commit).message(),
            std::string("--commit 'a\"b\\\\nc\\x1b[31m'") + kUnprintable);
  JobOptions branch;
  branch.branch = "br\nanch";
  EXPECT_EQ(check_job_options(branch).message(),
            std::string("--branch 'br\\nanch'") + kUnprintable);
  JobOptions label;
  label.labels = {{"k\n", "v"}};
  EXPECT_EQ(check_job_options(label).message(), std::string("--label 'k\\n=v'") + kUnprintable);
  JobOptions invalid_utf8;
  invalid_utf8.labels = {{"k", "\xff"}};
  EXPECT_EQ(check_job_options(invalid_utf8).message(),
            std::string("--label 'k=\\xff'") + kUnprintable);
  // A baseline name with an escape was refused already, and quoted raw. The flag names what
  // the value is (it read "--promote baseline name '...'").
  JobOptions promote;
  promote.promote = "\x1b[31m";
  EXPECT_EQ(check_job_options(promote).message(),
            "--promote '\\x1b[31m' may contain only letters, digits, '_', '-' and '.'");
  JobOptions baseline;
  baseline.baseline = "a b";
  EXPECT_EQ(check_job_options(baseline).message(),
            "--baseline 'a b' may contain only letters, digits, '_', '-' and '.'");
  JobOptions too_long;
  too_long.baseline = std::string(101, 'x');
  EXPECT_EQ(check_job_options(too_long).message(), "--baseline must have 1 to 100 characters");
  JobOptions fine;
  fine.commit = "0123abc";
  fine.branch = "main";
  fine.labels = {{"ci", "yes"}};
  EXPECT_TRUE(check_job_options(fine));
}

// What a client sends is kept by the service for every job it lists and stored with the run:
// a 300 KB commit or a few MB of labels per job grew serve's memory without bound (and became a
// label of /metrics on every scrape). Each value has a bound, and so has the count of labels.
TEST(SubmitOptions, ACommitBranchOrLabelPastItsBoundIsRefusedNamingItsLength) {
  RecordingExecutor executor;
  JobQueue queue(executor);
  OrchestratorService service(queue, AdmissionPolicy{});
  auto submit = [&](const std::string& commit, const std::string& branch,
                    const std::map<std::string, std::string>& labels) {
    v1::SubmitRequest request;
    request.mutable_content()->set_file_name("client.toml");
    request.mutable_content()->set_text(kScenario);
    request.set_commit(commit);
    request.set_branch(branch);
    for (const auto& [k, v] : labels) (*request.mutable_labels())[k] = v;
    v1::SubmitResponse response;
    return service.Submit(nullptr, &request, &response);
  };
  const grpc::Status commit = submit(std::string(300000, 'a'), "", {});
  EXPECT_EQ(commit.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(commit.error_message(),
            "field 'commit' ('aaaaaaaaaaaaaaaaaaaaaaaa...') has 300000 bytes; a commit may have "
            "at most 256 (it is stored with the run and is a label of the service's metrics)");
  EXPECT_EQ(submit("", std::string(257, 'b'), {}).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(submit("", "", {{std::string(129, 'k'), "v"}}).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  const grpc::Status value = submit("", "", {{"k", std::string(1025, 'v')}});
  EXPECT_EQ(value.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(value.error_message().find("has 1025 bytes; a label's value may have at most 1024"),
            std::string::npos)
      << value.error_message();
  std::map<std::string, std::string> many;
  for (int i = 0; i < 65; ++i) many["k" + std::to_string(i)] = "v";
  const grpc::Status count = submit("", "", many);
  EXPECT_EQ(count.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(count.error_message(), "field 'labels' has 65 labels; a run may have at most 64");
  EXPECT_TRUE(queue.list().empty()) << "a refused submission was queued";
  // At the bounds, everything is taken.
  many.erase("k64");
  EXPECT_TRUE(submit(std::string(256, 'a'), std::string(256, 'b'), many).ok());
  EXPECT_TRUE(submit("", "", {{std::string(128, 'k'), std::string(1024, 'v')}}).ok());
  EXPECT_EQ(queue.list().size(), 2u);
  // `orchestrator run`'s flags are checked by the same function.
  JobOptions flags;
  flags.labels = many;
  flags.labels["k64"] = "v";
  EXPECT_EQ(check_job_options(flags).message(),
            "--label is given 65 times; a run may have at most 64");
}

// A commit or branch `run --server` found in the git work tree is checked as the service checks
// it, before it is sent: the error says it came from git and which flag sends another, not the
// service's "field 'branch'" the user never gave.
TEST(SubmitOptions, ABranchFromGitIsNamedAsGitsWithTheFlagThatReplacesIt) {
  JobOptions from_git;
  from_git.branch = "bad\xff";
  const auto refused = check_job_options(from_git, OptionNames::kFromGitSent);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.message(),
            std::string("the branch the git work tree gives ('bad\\xff', not given as --branch)") +
                kUnprintable + "; give --branch to send another");
  from_git.branch = "main";
  from_git.commit = "abc\n";
  EXPECT_EQ(check_job_options(from_git, OptionNames::kFromGitSent).message(),
            std::string("the commit the git work tree gives ('abc\\n', not given as --commit)") +
                kUnprintable + "; give --commit to send another");
}

// A local run and calibrate store what git gave, and send nothing: the flag gives another to
// store (it said "to send another", the wording of `run --server`).
TEST(SubmitOptions, ABranchFromGitThatALocalRunStoresNamesTheFlagThatStoresAnother) {
  JobOptions from_git;
  from_git.branch = "bad\xff";
  EXPECT_EQ(check_job_options(from_git, OptionNames::kFromGitStored).message(),
            std::string("the branch the git work tree gives ('bad\\xff', not given as --branch)") +
                kUnprintable + "; give --branch to store another");
  from_git.branch = "main";
  from_git.commit = "abc\n";
  EXPECT_EQ(check_job_options(from_git, OptionNames::kFromGitStored).message(),
            std::string("the commit the git work tree gives ('abc\\n', not given as --commit)") +
                kUnprintable + "; give --commit to store another");
}

}  // namespace
}  // namespace benchgate::serve
