// `orchestrator serve`'s queue is bounded (orchestrator/serve/job_queue.h): past --max-queued
// waiting runs a submission is refused with RESOURCE_EXHAUSTED and a message that names the
// flag, of the ended runs only the newest --keep-finished stay listed, and their output
// together stays within --keep-output-total-bytes. The executors are fakes that hold each job
// until the test lets it end, or end it at once; every wait is bounded.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <grpcpp/grpcpp.h>

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

// One job waiting is "1 run waits", not "1 runs wait".
TEST(JobQueueLimits, AFullQueueOfOneSaysOneRunWaits) {
  HeldExecutor executor;
  JobQueue queue(executor, JobQueueLimits{1, 1});
  OrchestratorService service(queue, AdmissionPolicy{});
  ASSERT_TRUE(submit_one(service).ok());
  ASSERT_TRUE(executor.wait_started(1)) << "the first job never started";
  ASSERT_TRUE(submit_one(service).ok());
  const grpc::Status refused = submit_one(service);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(refused.error_message(),
            "the queue is full: 1 run waits already (serve --max-queued 1); submit again when "
            "one has started");
  executor.release();
  for (int i = 0; i < 3000 && !queue.idle(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(queue.idle()) << "the jobs never ended";
}

// `run --server a.toml b.toml` asks, before it submits any, whether the queue has room for
// both (Submit with validate_only and jobs_to_submit 2). Against --max-queued 1 the check
// passed for each file alone, the submissions then overflowed the queue, and a.toml's job was
// left started and then aborted. Now the check counts every job the client will submit.
TEST(JobQueueLimits, AValidateOnlyCheckAsksForRoomForEveryJobTheClientWillSubmit) {
  HeldExecutor executor;
  JobQueue queue(executor, JobQueueLimits{1, 1});
  bool full = false;
  EXPECT_TRUE(queue.would_accept(1, full));
  EXPECT_FALSE(full);
  auto two = queue.would_accept(2, full);
  ASSERT_FALSE(two);
  EXPECT_TRUE(full);
  EXPECT_EQ(two.message(),
            "the queue has no room for 2 runs: 0 runs wait already, and at most 1 may (serve "
            "--max-queued 1); submit fewer at once, or again when some have started");
  // No sum that wraps: a count near the type's end is refused too.
  EXPECT_FALSE(queue.would_accept(static_cast<size_t>(-1), full));
  EXPECT_TRUE(full);

  OrchestratorService service(queue, AdmissionPolicy{});
  v1::SubmitRequest request;
  request.mutable_content()->set_file_name("client.toml");
  request.mutable_content()->set_text(R"(name = "s"
[[workloads]]
name = "w"
protocol = "http1"
target = "/bench/hello"
)");
  request.set_validate_only(true);
  v1::SubmitResponse response;
  request.set_jobs_to_submit(2);  // two files
  EXPECT_EQ(service.Submit(nullptr, &request, &response).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  request.set_jobs_to_submit(1);
  EXPECT_TRUE(service.Submit(nullptr, &request, &response).ok());
  request.set_jobs_to_submit(0);  // as an older client sends it: one job
  EXPECT_TRUE(service.Submit(nullptr, &request, &response).ok());
  // Only a check carries the count: a submission queues one job.
  request.set_validate_only(false);
  request.set_jobs_to_submit(2);
  const grpc::Status stray = service.Submit(nullptr, &request, &response);
  EXPECT_EQ(stray.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(stray.error_message(),
            "field 'jobs_to_submit' is for a validate_only request; a submission queues one job");
  EXPECT_TRUE(queue.list().empty()) << "a check or a refused submission was queued";

  // With one job running and one waiting, not even one more fits.
  ASSERT_TRUE(submit_one(service).ok());
  ASSERT_TRUE(executor.wait_started(1)) << "the first job never started";
  ASSERT_TRUE(submit_one(service).ok());
  EXPECT_FALSE(queue.would_accept(1, full));
  EXPECT_TRUE(full);
  executor.release();
  for (int i = 0; i < 3000 && !queue.idle(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(queue.idle()) << "the jobs never ended";
}

// Each job writes this much output and ends at once.
class ChattyExecutor final : public JobExecutor {
 public:
  static constexpr size_t kOutputBytes = 10'000;
  void run(Job& job) override {
    job.emit(JobOutput{false, std::string(kOutputBytes, 'x')});
    job.update([](JobStatus& s) { s.state = JobState::kFinished; });
  }
  void interrupt() override {}
};

// The ended jobs' output together stays within --keep-output-total-bytes: the oldest job's
// output goes first, its final status stays, and its watcher is told what was dropped.
TEST(JobQueueLimits, PastTheTotalBoundTheOldestEndedJobsOutputGoesFirst) {
  ChattyExecutor executor;
  JobQueueLimits limits;
  limits.total_bytes_kept = 25'000;  // two jobs' output and more, not three
  JobQueue queue(executor, limits);
  for (int i = 0; i < 3; ++i) {
    uint32_t position = 0;
    bool full = false;
    ASSERT_TRUE(queue.submit(scenario::Scenario{}, {}, "client", position, full));
  }
  for (int i = 0; i < 3000 && !queue.idle(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(queue.idle()) << "the jobs never ended";

  size_t total = 0;
  for (uint64_t id = 1; id <= 3; ++id) total += queue.find(id)->kept_bytes();
  EXPECT_LE(total, limits.total_bytes_kept);
  auto seen = [&](uint64_t id, std::string& output, JobStatus& last) {
    uint64_t next = 0;
    bool ended = false;
    for (const JobEvent& event :
         queue.find(id)->events_since(next, std::chrono::milliseconds(0), ended)) {
      if (const auto* o = std::get_if<JobOutput>(&event)) output += o->text;
      if (const auto* s = std::get_if<JobStatus>(&event)) last = *s;
    }
    return ended;
  };
  std::string output;
  JobStatus last;
  ASSERT_TRUE(seen(1, output, last));
  EXPECT_EQ(output,
            "[the service keeps 25000 bytes of its ended jobs' output together (serve "
            "--keep-output-total-bytes): 10000 bytes of this job's earlier output were "
            "dropped]\n");
  EXPECT_EQ(last.state, JobState::kFinished) << "the final status stays";
  EXPECT_EQ(last.id, 1u);
  // The newer jobs keep all of theirs.
  for (uint64_t id : {2, 3}) {
    output.clear();
    ASSERT_TRUE(seen(id, output, last));
    EXPECT_EQ(output, std::string(ChattyExecutor::kOutputBytes, 'x')) << id;
    EXPECT_EQ(last.state, JobState::kFinished);
  }
}

// A Watch holds one of the server's threads until its job ends: past the limit one is refused,
// and the count goes down again as streams end. Real gRPC on a loopback port.
TEST(JobQueueLimits, AWatchPastTheMostAtOnceIsRefusedUntilOneEnds) {
  HeldExecutor executor;
  JobQueue queue(executor, JobQueueLimits{2, 4});
  OrchestratorService service(queue, AdmissionPolicy{}, 2);
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_TRUE(server && port != 0);
  auto stub = v1::Orchestrator::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));

  ASSERT_TRUE(submit_one(service).ok());
  ASSERT_TRUE(executor.wait_started(1));
  v1::WatchRequest request;
  request.set_job_id(1);
  struct Stream {
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReader<v1::WatchEvent>> reader;
  };
  auto watch = [&](Stream& stream) {
    stream.context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    stream.reader = stub->Watch(&stream.context, request);
  };
  Stream first, second, third, fourth;
  v1::WatchEvent event;
  // Each stream replays the job's first status at once: once read, its handler is counted.
  watch(first);
  ASSERT_TRUE(first.reader->Read(&event));
  watch(second);
  ASSERT_TRUE(second.reader->Read(&event));
  watch(third);
  EXPECT_FALSE(third.reader->Read(&event));
  const grpc::Status refused = third.reader->Finish();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(refused.error_message(),
            "2 clients are watching runs already, the most the service serves at once; watch "
            "again when one has ended, or ask for the run's status (GetRun)");

  // The job ends, both streams end with it, and a new Watch is served (the ended job's events).
  executor.release();
  for (Stream* stream : {&first, &second}) {
    while (stream->reader->Read(&event)) {
    }
    EXPECT_TRUE(stream->reader->Finish().ok());
  }
  watch(fourth);
  int events = 0;
  while (fourth.reader->Read(&event)) ++events;
  EXPECT_TRUE(fourth.reader->Finish().ok());
  EXPECT_GE(events, 2) << "the first status and the last";
  server->Shutdown();
}

}  // namespace
}  // namespace benchgate::serve
