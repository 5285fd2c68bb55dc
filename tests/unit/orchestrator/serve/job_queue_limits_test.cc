// `orchestrator serve`'s queue is bounded (orchestrator/serve/job_queue.h): past --max-queued
// waiting runs a submission is refused with RESOURCE_EXHAUSTED and a message that names the
// flag, and of the ended runs only the newest --keep-finished stay listed. The executor is a
// fake that holds each job until the test lets it end; every wait is bounded.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "orchestrator/serve/orchestrator_service.h"

namespace benchgate::serve {
namespace {

class HeldExecutor final : public JobExecutor {
 public:
  void run(Job& job) override {
    std::unique_lock lock(mutex_);
    ++started_;
    changed_.notify_all();
    changed_.wait_for(lock, std::chrono::seconds(30), [&] { return released_; });
    job.update([](JobStatus& s) { s.state = JobState::kFinished; });
  }
  void interrupt() override {}
  // Until `count` jobs have started (bounded).
  bool wait_started(int count) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(30), [&] { return started_ >= count; });
  }
  void release() {
    std::lock_guard lock(mutex_);
    released_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int started_ = 0;
  bool released_ = false;
};

grpc::Status submit_one(OrchestratorService& service) {
  v1::SubmitRequest request;
  request.mutable_content()->set_file_name("client.toml");
  request.mutable_content()->set_text(R"(name = "s"
[[workloads]]
name = "w"
protocol = "http1"
target = "/bench/hello"
)");
  v1::SubmitResponse response;
  return service.Submit(nullptr, &request, &response);
}

TEST(JobQueueLimits, ASubmissionPastMaxQueuedIsRefusedAndOnlyTheNewestEndedJobsStay) {
  HeldExecutor executor;
  JobQueue queue(executor, JobQueueLimits{2, 1});
  OrchestratorService service(queue, AdmissionPolicy{});

  ASSERT_TRUE(submit_one(service).ok());
  ASSERT_TRUE(executor.wait_started(1)) << "the first job never started";
  ASSERT_TRUE(submit_one(service).ok());
  ASSERT_TRUE(submit_one(service).ok());
  // One runs, two wait: the queue is full.
  const grpc::Status refused = submit_one(service);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(refused.error_message(),
            "the queue is full: 2 runs wait already (serve --max-queued 2); submit again when "
            "one has started");
  EXPECT_EQ(queue.list().size(), 3u) << "a refused submission was queued";

  executor.release();
  for (int i = 0; i < 3000 && !queue.idle(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(queue.idle()) << "the jobs never ended";
  // Three ended, one kept: the newest (ids 1, 2, 3 in submission order).
  const auto listed = queue.list();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed.front().id, 3u);
  EXPECT_EQ(queue.find(1), nullptr);
  EXPECT_NE(queue.find(3), nullptr);
  // Room again: a new submission is taken.
  EXPECT_TRUE(submit_one(service).ok());
}

}  // namespace
}  // namespace benchgate::serve
