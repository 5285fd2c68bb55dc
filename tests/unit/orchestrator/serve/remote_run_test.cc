// `orchestrator run --server` and --promote (orchestrator/serve/remote_run.cc): its exit code
// is 0 only when what the service keeps is a run that exited 0, as the rule of --promote says
// (docs/GATES.md, "Series and baselines"). A fake service on loopback answers the client.
#include "orchestrator/serve/remote_run.h"
#include "common/util/shown_text.h"

#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "benchgate/v1/orchestrator.grpc.pb.h"
#include "orchestrator/app/interrupt.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/serve/orchestrator_service.h"

namespace benchgate::serve {
namespace {

// Takes the submissions as jobs 7, 8, ..., and ends each stream with the job finished, exit 0
// (exit 1 for a file named fails.toml, as a failed critical gate), its run's id the job's plus
// 100. Promote answers `promote_answer` (once; then OK), or as a service older than it. With
// `interrupt_after_settled`, the client is interrupted (as by Ctrl-C) after that status was
// sent and before the stream ends: the service had settled the outcome and refuses the cancel.
class FakeService final : public v1::Orchestrator::Service {
 public:
  bool interrupt_after_settled = false;
  uint64_t interrupt_after_job = 0;  // the same, for this job only
  // As a service older than validate_only: every request is a submission.
  bool ignores_validate_only = false;
  std::atomic<int> submitted{0};  // jobs queued
  std::atomic<int> validated{0};  // validate_only requests answered without a job
  std::atomic<int> cancelled{0};
  std::string last_name, last_text;  // of the last submission
  std::string last_by_name;          // the last submission's scenario name (sent by name)
  std::string promote_fields;        // each submission's promote/deferred_promote, one a line
  std::set<uint64_t> failing;        // jobs of fails.toml
  // Promote: how it answers first, the validate_only requests, the jobs of each other request.
  grpc::StatusCode promote_answer = grpc::StatusCode::OK;
  bool promote_answer_lost = false;  // the first is committed, then answered DEADLINE_EXCEEDED
  std::atomic<int> promote_checks{0};
  bool promote_refused = false;  // the validate_only check refuses the name
  std::vector<std::vector<uint64_t>> promoted;
  std::vector<std::string> submit_keys, promote_keys;  // promote_key of each submission, Promote

  grpc::Status Submit(grpc::ServerContext*, const v1::SubmitRequest* request,
                      v1::SubmitResponse* response) override {
    // A file named refused.toml is refused, as an invalid scenario is.
    if (request->content().file_name().ends_with("refused.toml")) {
      return {grpc::StatusCode::INVALID_ARGUMENT, "refused.toml:1:1: error: refused"};
    }
    // One named full.toml finds the queue full.
    if (request->content().file_name().ends_with("full.toml")) {
      return {grpc::StatusCode::RESOURCE_EXHAUSTED, "the queue is full: 1 run waits already"};
    }
    if (request->validate_only() && !ignores_validate_only) {
      ++validated;
      response->set_job_id(0);
      return grpc::Status::OK;
    }
    ++submitted;
    last_by_name = request->name();
    last_name = request->content().file_name();
    last_text = request->content().text();
    promote_fields += request->promote() + "/" + request->deferred_promote() + "\n";
    submit_keys.push_back(request->promote_key());
    response->set_job_id(6 + submitted);
    if (last_name.ends_with("fails.toml")) failing.insert(response->job_id());
    return grpc::Status::OK;
  }
  grpc::Status Watch(grpc::ServerContext*, const v1::WatchRequest* request,
                     grpc::ServerWriter<v1::WatchEvent>* writer) override {
    v1::WatchEvent event;
    event.mutable_status()->set_job_id(request->job_id());
    event.mutable_status()->set_state(v1::RunStatus::FINISHED);
    event.mutable_status()->set_exit_code(failing.contains(request->job_id()) ? cli::kExitGateFailed
                                                                              : cli::kExitOk);
    event.mutable_status()->set_run_id(static_cast<int64_t>(request->job_id()) + 100);
    writer->Write(event);
    if (interrupt_after_settled || interrupt_after_job == request->job_id()) {
      app::set_run_cancelled(true);
    }
    return grpc::Status::OK;
  }
  grpc::Status Cancel(grpc::ServerContext*, const v1::CancelRequest*,
                      v1::RunStatus* status) override {
    ++cancelled;
    status->set_job_id(7);
    status->set_state(v1::RunStatus::FINISHED);
    return grpc::Status::OK;
  }
  grpc::Status Promote(grpc::ServerContext*, const v1::PromoteRequest* request,
                       v1::PromoteResponse* response) override {
    if (promote_answer == grpc::StatusCode::UNIMPLEMENTED) {
      return {grpc::StatusCode::UNIMPLEMENTED, ""};  // a service older than Promote
    }
    if (request->validate_only()) {
      ++promote_checks;
      if (promote_refused) {
        return {grpc::StatusCode::PERMISSION_DENIED,
                "field 'baseline': this service lets its clients promote runs only to "
                "'nightly' (serve --allow-promote), not to 'main'"};
      }
      return grpc::Status::OK;
    }
    promoted.emplace_back(request->job_ids().begin(), request->job_ids().end());
    promote_keys.push_back(request->promote_key());
    for (uint64_t job : request->job_ids()) response->add_run_ids(static_cast<int64_t>(job) + 100);
    if (promote_answer_lost) {
      promote_answer_lost = false;
      return {grpc::StatusCode::DEADLINE_EXCEEDED, "Deadline Exceeded"};
    }
    if (promoted.size() > 1) response->set_already_promoted(true);
    if (std::exchange(promote_answer, grpc::StatusCode::OK) != grpc::StatusCode::OK) {
      return {grpc::StatusCode::FAILED_PRECONDITION,
              "job 8: baseline add: run 108 has workload 'w' flagged degraded; nothing was "
              "added to 'main'"};
    }
    return grpc::Status::OK;
  }
};

class RemoteRun : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_TRUE(server_);
    dir_ = std::filesystem::temp_directory_path() /
           ("remote_run_test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    app::set_run_cancelled(false);
    server_->Shutdown();
    std::filesystem::remove_all(dir_);
  }
  // The client sends a file's text as it loaded it; the fake service does not read it.
  SubmittedFile file(const std::string& name) {
    return {(dir_ / name).string(), "name = \"" + name + "\"\n"};
  }
  RemoteRunOptions options(std::vector<SubmittedFile> files, const std::string& promote) {
    RemoteRunOptions o;
    o.server = "127.0.0.1:" + std::to_string(port_);
    o.files = std::move(files);
    o.job.promote = promote;
    return o;
  }

  FakeService service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  std::filesystem::path dir_;
};

// Several files' runs are promoted together once the whole invocation exits 0: each job is
// submitted with deferred_promote (not promoting itself), and one Promote names every job.
// Before, --promote with several files was refused (exit 2), nothing submitted.
TEST_F(RemoteRun, SeveralFilesRunsArePromotedTogetherWhenTheInvocationExits0) {
  ::testing::internal::CaptureStdout();
  const int code = remote_run(options({file("a.toml"), file("b.toml")}, "main"));
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(code, cli::kExitOk) << out;
  EXPECT_EQ(service_.submitted.load(), 2);
  EXPECT_EQ(service_.promote_fields, "/main\n/main\n");  // neither job promotes itself
  EXPECT_EQ(service_.promote_checks.load(), 1);
  ASSERT_EQ(service_.promoted.size(), 1u);
  EXPECT_EQ(service_.promoted[0], (std::vector<uint64_t>{7, 8}));
  EXPECT_EQ(out,
            "promoted run 107 (job 7) to baseline 'main'\npromoted run 108 (job 8) to baseline "
            "'main'\n");
  // One secret of this invocation (32 random bytes as hex) goes with every job and with the
  // Promote: only this client can promote them.
  ASSERT_EQ(service_.submit_keys.size(), 2u);
  EXPECT_EQ(service_.submit_keys[0].size(), 64u);
  EXPECT_EQ(service_.submit_keys[1], service_.submit_keys[0]);
  ASSERT_EQ(service_.promote_keys.size(), 1u);
  EXPECT_EQ(service_.promote_keys[0], service_.submit_keys[0]);
}

// A second invocation makes a key of its own: one client's key promotes no other's jobs.
TEST_F(RemoteRun, EachInvocationSendsAKeyOfItsOwn) {
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(remote_run(options({file("a.toml"), file("b.toml")}, "main")), cli::kExitOk);
  EXPECT_EQ(remote_run(options({file("a.toml"), file("b.toml")}, "main")), cli::kExitOk);
  ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(service_.promote_keys.size(), 2u);
  EXPECT_NE(service_.promote_keys[0], service_.promote_keys[1]);
}

// One file's failed gate holds every run back, as a local run holds them: no Promote.
TEST_F(RemoteRun, AFailedGateOfOneFilePromotesNoRun) {
  ::testing::internal::CaptureStdout();
  const int code = remote_run(options({file("a.toml"), file("fails.toml")}, "main"));
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(code, cli::kExitGateFailed) << out;
  EXPECT_TRUE(service_.promoted.empty());
  const std::string why =
      ": the invocation exits 1; --promote adds runs only when the whole invocation exits 0\n";
  EXPECT_EQ(out, "run 107 (job 7) not promoted to 'main'" + why +
                     "run 108 (job 8) not promoted "
                     "to 'main'" +
                     why);
}

// The service refused a job's run: none was added (one transaction there), exit code 3.
TEST_F(RemoteRun, APromotionTheServiceRefusesIsExitCode3) {
  service_.promote_answer = grpc::StatusCode::FAILED_PRECONDITION;
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  const int code = remote_run(options({file("a.toml"), file("b.toml")}, "main"));
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, cli::kExitRunError) << err;
  EXPECT_EQ(out.find("promoted run"), std::string::npos) << out;
  EXPECT_NE(
      err.find("error: cannot promote the runs to 'main' on 127.0.0.1:" + std::to_string(port_) +
               ", none was added: job 8: baseline add: run 108 has workload 'w' flagged "
               "degraded; nothing was added to 'main'\n"),
      std::string::npos)
      << err;
}

// The service committed, and its answer was lost (a deadline passed): the client does not say
// none was added; it asks again, and the service says the jobs were promoted.
TEST_F(RemoteRun, ALostAnswerIsAskedAgainAndTellsWhatWasPromoted) {
  service_.promote_answer_lost = true;
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  const int code = remote_run(options({file("a.toml"), file("b.toml")}, "main"));
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, cli::kExitOk) << err;
  EXPECT_EQ(service_.promoted.size(), 2u);
  EXPECT_NE(err.find("; asking again\n"), std::string::npos) << err;
  EXPECT_EQ(err.find("none was added"), std::string::npos) << err;
  EXPECT_NE(out.find("promoted run 107 (job 7) to baseline 'main' (by an earlier request naming "
                     "these jobs)\n"),
            std::string::npos)
      << out;
}

// Asked again after a lost answer, a refusal of a job (forgotten since, as serve
// --keep-finished forgets) says nothing about what the first request committed: the client
// cannot tell, never "none was added" (before, it said none was added).
TEST_F(RemoteRun, ARefusalOfTheRepeatedPromoteCannotTellWhatTheFirstAdded) {
  service_.promote_answer_lost = true;
  service_.promote_answer = grpc::StatusCode::FAILED_PRECONDITION;
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  const int code = remote_run(options({file("a.toml"), file("b.toml")}, "main"));
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, cli::kExitRunError) << err;
  EXPECT_EQ(service_.promoted.size(), 2u);
  EXPECT_EQ(err.find("none was added:"), std::string::npos) << err;
  EXPECT_NE(err.find("error: cannot tell whether the runs were promoted to 'main' on 127.0.0.1:" +
                     std::to_string(port_) +
                     ": the first answer was lost, and asked again it answered: job 8: "),
            std::string::npos)
      << err;
  EXPECT_EQ(out, "");
}

// A baseline the service does not allow is named as the flag the user gave, not as the
// request's field ('baseline', which would read as --baseline); nothing is submitted.
TEST_F(RemoteRun, ADisallowedPromoteNameIsToldAsTheFlag) {
  service_.promote_refused = true;
  ::testing::internal::CaptureStderr();
  const int code = remote_run(options({file("a.toml"), file("b.toml")}, "main"));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, cli::kExitInvalidInput) << err;
  EXPECT_EQ(service_.submitted.load(), 0);
  EXPECT_EQ(err,
            "error: --promote: this service lets its clients promote runs only to "
            "'nightly' (serve --allow-promote), not to 'main'\n");
}

// Ctrl-C during the last job's stream, once the service had settled it (exit 0): no Promote,
// and the invocation exits 3 as a local one, where it exited 0 with nothing promoted.
TEST_F(RemoteRun, AnInterruptAfterTheLastJobSettledPromotesNoneAndExits3) {
  service_.interrupt_after_job = 8;
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  const int code = remote_run(options({file("a.toml"), file("b.toml")}, "main"));
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, cli::kExitRunError) << err;
  EXPECT_TRUE(service_.promoted.empty());
  EXPECT_NE(out.find("run 108 (job 8) not promoted to 'main': " + app::interrupt_description() +
                     " during this invocation; --promote adds runs only when the whole "
                     "invocation exits 0\n"),
            std::string::npos)
      << out;
}

// A service without Promote could only promote each job on its own: refused before anything
// is submitted, as every such --promote was before.
TEST_F(RemoteRun, PromoteWithSeveralFilesOnAServiceWithoutPromoteIsRefusedFirst) {
  service_.promote_answer = grpc::StatusCode::UNIMPLEMENTED;
  ::testing::internal::CaptureStderr();
  const int code = remote_run(options({file("a.toml"), file("b.toml")}, "main"));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, cli::kExitInvalidInput) << err;
  EXPECT_EQ(service_.submitted.load() + service_.validated.load(), 0);
  EXPECT_NE(err.find("--promote with --server takes one scenario file there, not 2"),
            std::string::npos)
      << err;
}

// One file, or several without --promote, are submitted as before.
TEST_F(RemoteRun, OneFileWithPromoteAndSeveralWithoutAreSubmitted) {
  EXPECT_EQ(remote_run(options({file("a.toml")}, "main")), cli::kExitOk);
  EXPECT_EQ(remote_run(options({file("a.toml"), file("b.toml")}, "")), cli::kExitOk);
  EXPECT_EQ(service_.submitted.load(), 3);
  // The one file's job promotes itself; no Promote is asked.
  EXPECT_EQ(service_.promote_fields, "main/\n/\n/\n");
  EXPECT_EQ(service_.promote_checks.load(), 0);
  EXPECT_TRUE(service_.promoted.empty());
}

// A refused file leaves no job of the files before it: every file is checked (validate_only)
// before any is submitted. Before, a.toml's job was queued at once, started on an idle service
// (its router spawned) and was then cancelled, leaving an aborted run in the store.
TEST_F(RemoteRun, ARefusedFileLeavesNoJobOfTheFilesBeforeIt) {
  ::testing::internal::CaptureStderr();
  const int code = remote_run(options({file("a.toml"), file("refused.toml")}, ""));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, cli::kExitInvalidInput) << err;
  EXPECT_EQ(service_.submitted.load(), 0) << err;
  EXPECT_EQ(service_.cancelled.load(), 0) << err;
  EXPECT_EQ(service_.validated.load(), 1) << err;  // a.toml; refused.toml was refused
  EXPECT_NE(err.find("refused.toml:1:1: error: refused"), std::string::npos) << err;
  EXPECT_EQ(err.find("submitted"), std::string::npos) << err;

  // Every file checked: each is then submitted once.
  EXPECT_EQ(remote_run(options({file("a.toml"), file("b.toml")}, "")), cli::kExitOk);
  EXPECT_EQ(service_.validated.load(), 3);
  EXPECT_EQ(service_.submitted.load(), 2);
}

// README's exit codes: 2 for a submission wrong in itself (resubmitting it would be refused
// again), 3 for one the service could not take now. A full queue is the second: the client
// exits 3, as for a service it cannot reach, and nothing is submitted.
TEST_F(RemoteRun, AFullQueueIsExitCode3AndARefusedScenario2) {
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(remote_run(options({file("full.toml")}, "")), cli::kExitRunError);
  EXPECT_EQ(remote_run(options({file("refused.toml")}, "")), cli::kExitInvalidInput);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("error: the queue is full: 1 run waits already"), std::string::npos) << err;
  EXPECT_EQ(service_.submitted.load(), 0) << err;
}

// A scenario file may be 4 MiB, but a service that receives at most 4 MiB in one request (gRPC's
// default, as the fake's and an older `orchestrator serve`'s) refuses it with its name and
// labels: the client says what limit was hit and what to do, not gRPC's bare "Received message
// larger than max", and exits 2 (sending it again would be refused again), not 3.
TEST_F(RemoteRun, ASubmissionOverTheServicesMessageLimitSaysWhichLimitAndExits2) {
  SubmittedFile big = file("big.toml");
  big.text += "# " + std::string((size_t{4} << 20) - big.text.size() - 3, 'x') + "\n";
  ASSERT_EQ(big.text.size(), size_t{4} << 20);
  ::testing::internal::CaptureStderr();
  const int code = remote_run(options({big}, ""));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, cli::kExitInvalidInput) << err;
  EXPECT_EQ(service_.submitted.load(), 0) << err;
  EXPECT_NE(err.find("error: service 127.0.0.1:" + std::to_string(port_) +
                     " receives at most 4194304 bytes in one request, and this submission of " +
                     big.name + " is "),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("shorten the file"), std::string::npos) << err;
}

// A service older than validate_only queues a job for the check: that job is the file's, not
// submitted a second time, and cancelled when a later file is refused (as before).
TEST_F(RemoteRun, AServiceThatIgnoresValidateOnlyGetsEachFileOnce) {
  service_.ignores_validate_only = true;
  EXPECT_EQ(remote_run(options({file("a.toml"), file("b.toml")}, "")), cli::kExitOk);
  EXPECT_EQ(service_.submitted.load(), 2);
  ::testing::internal::CaptureStderr();
  const int code = remote_run(options({file("a.toml"), file("refused.toml")}, ""));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, cli::kExitInvalidInput) << err;
  EXPECT_EQ(service_.submitted.load(), 3) << err;
  EXPECT_EQ(service_.cancelled.load(), 1) << err;
}

// The text sent is the one the client loaded, under the name it was given: the file is not
// opened again, as a pipe (`run --server HOST <(generate)`, /dev/stdin) can be read only once.
// Before, the file was read a second time here, and a drained pipe sent an empty scenario.
TEST_F(RemoteRun, TheTextAsLoadedIsSentWithoutOpeningTheFileAgain) {
  const SubmittedFile piped{"/dev/fd/63", "name = \"from_a_pipe\"\n"};
  EXPECT_EQ(remote_run(options({piped}, "")), cli::kExitOk);
  EXPECT_EQ(service_.submitted.load(), 1);
  EXPECT_EQ(service_.last_name, "/dev/fd/63");
  EXPECT_EQ(service_.last_text, "name = \"from_a_pipe\"\n");
}

// `run --server ADDR --scenario-name NAME` sends the name, not a text: the service runs the
// file of its --scenarios folder (README: "clients run it by name and cannot change it").
// Before, the client could only send a file's content.
TEST_F(RemoteRun, AScenarioNameIsSentByNameWithNoContent) {
  RemoteRunOptions o = options({SubmittedFile{"quickstart", "", true}}, "");
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(remote_run(o), cli::kExitOk);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(service_.submitted.load(), 1);
  EXPECT_EQ(service_.last_by_name, "quickstart");
  EXPECT_EQ(service_.last_name, "");
  EXPECT_EQ(service_.last_text, "");
  EXPECT_NE(err.find("submitted scenario 'quickstart' of the service to " + o.server + " as job 7"),
            std::string::npos)
      << err;
}

// A file name the service refuses (not UTF-8, a bidi control) is refused by the client itself,
// exit 2, with nothing sent: a name that was not UTF-8 failed to serialize (a libprotobuf ERROR
// and an empty "error: ", exit 3).
TEST_F(RemoteRun, AFileNameTheServiceRefusesIsRefusedBeforeAnythingIsSent) {
  for (const std::string name : {"bad\xff.toml", "evil\xe2\x80\xaeltxt.toml", "a\x1b[2J.toml"}) {
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(remote_run(options({SubmittedFile{name, "name = \"s\"\n", false}}, "")),
              cli::kExitInvalidInput);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(err.rfind("error: the scenario file's name '" + shown_text(name) +
                            "' has a control character",
                        0),
              0u)
        << err;
    EXPECT_EQ(err.find("libprotobuf"), std::string::npos) << err;
  }
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(remote_run(options({SubmittedFile{"\xc2\x9bname", "", true}}, "")),
            cli::kExitInvalidInput);
  EXPECT_NE(::testing::internal::GetCapturedStderr().find(
                "error: the scenario name '\\u009bname' has a control character"),
            std::string::npos);
  EXPECT_EQ(service_.submitted.load() + service_.validated.load(), 0);
}

// The proxy variables a shell or a CI runner exports are for the client's web traffic, not for
// its channel to the service: `grpc_proxy` or `http_proxy` pointing at a proxy that cannot reach
// the service's loopback address made every submission fail (exit 3, "failed to connect"). The
// channel is a control channel (grpc/channel.h), with proxies off, as every other of ours.
TEST_F(RemoteRun, AProxyInTheEnvironmentIsNotUsed) {
  // Set for this test only, and restored after it, whatever it finds.
  struct Variable {
    explicit Variable(const char* name, const char* value) : name(name) {
      if (const char* old = std::getenv(name)) before = old;
      value ? ::setenv(name, value, 1) : ::unsetenv(name);
    }
    ~Variable() { before ? ::setenv(name, before->c_str(), 1) : ::unsetenv(name); }
    const char* name;
    std::optional<std::string> before;
  };
  // Port 1 on loopback: nothing listens there, so a proxied call could not get through.
  const Variable grpc_proxy("grpc_proxy", "http://127.0.0.1:1");
  const Variable http_proxy("http_proxy", "http://127.0.0.1:1");
  const Variable no_grpc_proxy("no_grpc_proxy", nullptr);
  const Variable no_proxy("no_proxy", nullptr);
  const Variable no_proxy_upper("NO_PROXY", nullptr);
  ::testing::internal::CaptureStderr();
  const int code = remote_run(options({file("a.toml")}, ""));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, cli::kExitOk) << err;
  EXPECT_EQ(service_.submitted.load(), 1) << err;
}

// Holds each job it runs until released (bounded), so that submitted jobs stay in the queue.
class JobHoldingExecutor final : public JobExecutor {
 public:
  void run(Job& job) override {
    std::unique_lock lock(mutex_);
    started_ = true;
    changed_.notify_all();
    changed_.wait_for(lock, std::chrono::seconds(30), [this] { return release_; });
    job.update([](JobStatus& s) { s.state = JobState::kFinished; });
  }
  void interrupt() override {}
  // Until a job has started (bounded).
  bool wait_started() {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(30), [this] { return started_; });
  }
  void release() {
    std::lock_guard lock(mutex_);
    release_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool started_ = false;
  bool release_ = false;
};

// More files than `serve --max-queued` could ever hold together: before, the service answered
// as for a queue full now (RESOURCE_EXHAUSTED) and the client exited 3, "try again later",
// though the same request would be refused forever. It is the request's mistake: exit 2,
// naming the count and the limit, and nothing queued. A queue that is only full now stays
// exit 3. The real service on loopback, its executor holding every job.
TEST(RemoteRunQueueRoom, MoreFilesThanTheQueueEverHoldsIsExitCode2AndAFullQueue3) {
  JobHoldingExecutor executor;
  JobQueue queue(executor, JobQueueLimits{.max_waiting = 2});
  AdmissionPolicy policy;
  policy.max_queued = 2;
  OrchestratorService service(queue, policy);
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_TRUE(server);
  auto file = [](const std::string& name) {
    return SubmittedFile{name + ".toml", "name = \"" + name +
                                             "\"\n[[workloads]]\nname = \"w\"\nprotocol = "
                                             "\"http1\"\ntarget = \"/bench/hello\"\n"};
  };
  RemoteRunOptions options;
  options.server = "127.0.0.1:" + std::to_string(port);
  options.files = {file("a"), file("b"), file("c")};
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(remote_run(options), cli::kExitInvalidInput);
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err,
            "error: 3 runs submitted together can never all wait in this service's queue, which "
            "holds at most 2 (serve --max-queued 2); submit at most 2 at a time\n");
  EXPECT_TRUE(queue.list().empty()) << "a job was queued";

  // One job runs (held), two wait: the queue is full now, and two files are refused with exit
  // 3, to submit again later.
  uint32_t position = 0;
  bool full = false;
  ASSERT_TRUE(queue.submit(scenario::Scenario{}, {}, "test", position, full));
  ASSERT_TRUE(executor.wait_started()) << "the first job never started";
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(queue.submit(scenario::Scenario{}, {}, "test", position, full));
  }
  ASSERT_FALSE(queue.would_accept(1, full));
  ASSERT_TRUE(full);
  options.files = {file("a"), file("b")};
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(remote_run(options), cli::kExitRunError);
  err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.rfind("error: the queue has no room for 2 runs: 2 runs wait already", 0), 0u)
      << err;
  EXPECT_EQ(queue.list().size(), 3u);
  executor.release();
  server->Shutdown();
  queue.shutdown();
}

// A name the service's folder does not hold: the service's NOT_FOUND, said as it is, exit 2
// (the same name would be refused again), and nothing queued. The real service on loopback.
TEST(RemoteRunByName, AScenarioTheServiceDoesNotHoldIsExitCode2NamingIt) {
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("remote_run_by_name-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  JobHoldingExecutor executor;
  JobQueue queue(executor, JobQueueLimits{});
  AdmissionPolicy policy;
  policy.scenarios_dir = dir.string();
  OrchestratorService service(queue, policy);
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_TRUE(server);
  RemoteRunOptions options;
  options.server = "127.0.0.1:" + std::to_string(port);
  options.files = {SubmittedFile{"nightly", "", true}};
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(remote_run(options), cli::kExitInvalidInput);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "error: no scenario 'nightly' in the service's scenarios folder\n");
  EXPECT_TRUE(queue.list().empty()) << "a job was queued";
  server->Shutdown();
  queue.shutdown();
  std::filesystem::remove_all(dir);
}

// `run --server` pointed at a port that answers HTTP/1.1 (the service's --metrics-listen or
// --http port, or any web server): before, the user read only gRPC's "Failed parsing HTTP/2"
// or "Trying to connect an http1.x server". The client says the address is not a serve
// endpoint, with gRPC's detail after it, and exits 2 (README, "Exit codes"): --server is
// wrong, as one that is not HOST:PORT is, and the same address answers the same way whenever
// the submission is sent again. It exited 3 before, as for a service that cannot be reached
// now.
TEST(RemoteRunNotAService, AnHttpPortIsSaidNotToBeAServeEndpoint) {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(listener, 8), 0);
  socklen_t length = sizeof address;
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
  // Answers every connection (a few at most: gRPC may retry) as a web server would, then
  // closes it; shutdown() of the listener ends the accept loop.
  std::thread web([listener] {
    for (int i = 0; i < 16; ++i) {
      const int connection = ::accept(listener, nullptr, nullptr);
      if (connection < 0) return;
      char buffer[4096];
      (void)::recv(connection, buffer, sizeof buffer, 0);
      const std::string answer =
          "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
      (void)::send(connection, answer.data(), answer.size(), MSG_NOSIGNAL);
      ::close(connection);
    }
  });
  RemoteRunOptions options;
  options.server = "127.0.0.1:" + std::to_string(ntohs(address.sin_port));
  options.files = {SubmittedFile{"a.toml", "name = \"a\"\n"}};
  ::testing::internal::CaptureStderr();
  const int code = remote_run(options);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ::shutdown(listener, SHUT_RDWR);
  web.join();
  ::close(listener);
  EXPECT_EQ(code, cli::kExitInvalidInput) << err;
  const std::string said = "error: " + options.server +
                           " did not answer as an `orchestrator serve` gRPC endpoint (is it "
                           "serve's --listen address, not its --metrics-listen or --http?): ";
  EXPECT_EQ(err.rfind(said, 0), 0u) << err;
  EXPECT_GT(err.size(), said.size() + 1) << "gRPC's detail is kept: " << err;
}

// Ctrl-C once the service had settled the job (exit 0, promoted): it refuses the cancel and
// keeps the run as it is, so the client exits 0 too, and says why; exiting 3 would fail a
// pipeline on a run that stands promoted.
TEST_F(RemoteRun, ACancelTheServiceRefusedLeavesTheJobsExitCode) {
  service_.interrupt_after_settled = true;
  ::testing::internal::CaptureStderr();
  const int code = remote_run(options({file("a.toml")}, "main"));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, cli::kExitOk) << err;
  EXPECT_NE(err.find("job 7 on 127.0.0.1:" + std::to_string(port_) +
                     " had finished before the cancellation reached it; it keeps its exit code 0"),
            std::string::npos)
      << err;
}

}  // namespace
}  // namespace benchgate::serve
