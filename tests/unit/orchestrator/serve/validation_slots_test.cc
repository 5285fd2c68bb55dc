// How many scenarios `orchestrator serve` validates at once (validation_slots.h): a Submit past
// the bound is refused with RESOURCE_EXHAUSTED once its wait ends, and one that waits when the
// service stops ends at once with UNAVAILABLE. Before the bound, 8 clients each sending a
// 4 MiB file of 1.3 million inline tables were 8 validations at once, 1.24 GB.
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "orchestrator/serve/orchestrator_service.h"
#include "orchestrator/serve/validation_slots.h"

namespace benchgate::serve {
namespace {

using std::chrono::milliseconds;

// Long enough that a test which relied on it running out would hang, not pass.
constexpr milliseconds kForever = std::chrono::minutes(10);

TEST(ValidationSlots, AtMostMaxAreHeldAndOneGivenBackIsTakenAgain) {
  ValidationSlots slots({2, milliseconds(0)});
  std::optional<ValidationSlots::Slot> first = slots.acquire();
  std::optional<ValidationSlots::Slot> second = slots.acquire();
  ASSERT_TRUE(first.has_value());
  ASSERT_TRUE(second.has_value());
  EXPECT_FALSE(slots.acquire().has_value());
  first.reset();
  EXPECT_TRUE(slots.acquire().has_value());  // taken and given back at once
  EXPECT_TRUE(slots.acquire().has_value());
  EXPECT_FALSE(slots.closed());
}

TEST(ValidationSlots, AWaiterTakesTheSlotGivenBack) {
  ValidationSlots slots({1, kForever});
  std::optional<ValidationSlots::Slot> held = slots.acquire();
  ASSERT_TRUE(held.has_value());
  bool got = false;
  std::thread waiter([&] { got = slots.acquire().has_value(); });
  held.reset();
  waiter.join();
  EXPECT_TRUE(got);
}

TEST(ValidationSlots, ClosingEndsEveryWaitWithoutASlotAndHandsNoneOutAgain) {
  ValidationSlots slots({1, kForever});
  std::optional<ValidationSlots::Slot> held = slots.acquire();
  ASSERT_TRUE(held.has_value());
  bool got = true;
  std::thread waiter([&] { got = slots.acquire().has_value(); });
  slots.close();
  waiter.join();
  EXPECT_FALSE(got);
  held.reset();
  EXPECT_FALSE(slots.acquire().has_value());
  EXPECT_TRUE(slots.closed());
}

class FinishingExecutor final : public JobExecutor {
 public:
  void run(Job& job) override {
    job.update([](JobStatus& s) { s.state = JobState::kFinished; });
  }
  void interrupt() override {}
};

grpc::Status validate(OrchestratorService& service) {
  v1::SubmitRequest request;
  request.mutable_content()->set_file_name("client.toml");
  request.mutable_content()->set_text(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"http1\"\ntarget = \"/\"\n");
  request.set_validate_only(true);
  v1::SubmitResponse response;
  return service.Submit(nullptr, &request, &response);
}

TEST(ValidationSlots, ASubmitPastTheBoundIsRefusedForTheClientToRetryAndOneAfterTheStopAtOnce) {
  FinishingExecutor executor;
  JobQueue queue(executor);
  OrchestratorService service(queue, AdmissionPolicy{}, kMaxWatchers, {1, milliseconds(0)});
  {
    std::optional<ValidationSlots::Slot> busy = service.validations().acquire();
    ASSERT_TRUE(busy.has_value());
    const grpc::Status refused = validate(service);
    // RESOURCE_EXHAUSTED: `run --server` exits 3, a submission to send again.
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_EQ(refused.error_message(),
              "the service validates at most 1 submitted scenarios at once, and 1 were being "
              "validated for as long as this one waited; submit again in a moment");
  }
  const grpc::Status taken = validate(service);
  EXPECT_TRUE(taken.ok()) << taken.error_message();

  // Stopping: a Submit that would wait ends at once, whatever the wait.
  OrchestratorService stopping(queue, AdmissionPolicy{}, kMaxWatchers, {1, kForever});
  std::optional<ValidationSlots::Slot> busy = stopping.validations().acquire();
  ASSERT_TRUE(busy.has_value());
  stopping.validations().close();
  const grpc::Status stopped = validate(stopping);
  EXPECT_EQ(stopped.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(stopped.error_message(), "the service is shutting down and accepts no new runs");
  EXPECT_TRUE(queue.list().empty());
}

}  // namespace
}  // namespace benchgate::serve
