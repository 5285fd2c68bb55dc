// What `orchestrator serve`'s Submit refuses besides the scenario: the values of the flags a
// submission carries, checked before the job is queued as `orchestrator run` checks its flags
// (a bad --promote name was found only when the run ended). The queue's executor is a fake
// that records what it was given to run.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "orchestrator/serve/orchestrator_service.h"

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

TEST(SubmitOptions, ABadPromoteOrBaselineNameIsRefusedBeforeTheJobIsQueued) {
  RecordingExecutor executor;
  JobQueue queue(executor);
  OrchestratorService service(queue, AdmissionPolicy{});

  const grpc::Status promote = submit_with(service, "", "bad name");
  EXPECT_EQ(promote.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(promote.error_message(),
            "--promote baseline name 'bad name' may contain only letters, digits, '_', '-' and "
            "'.'");
  const grpc::Status baseline = submit_with(service, "main;", "");
  EXPECT_EQ(baseline.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(baseline.error_message().rfind("--baseline baseline name 'main;'", 0), 0u)
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

}  // namespace
}  // namespace benchgate::serve
