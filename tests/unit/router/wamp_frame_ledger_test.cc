// Outbound frames against the buffered-bytes budget: a large frame counts once however many
// queues hold it, until the last lets go; small frames never count; a frame counts its
// buffer's capacity; a frame the budget has no room for is not queued.
#include "router/wamp/frame_ledger.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "router/wamp/connection.h"

namespace benchgate::router::wamp {
namespace {

Frame frame_of(size_t bytes) { return std::make_shared<const std::vector<uint8_t>>(bytes, 'x'); }

TEST(FrameLedger, ALargeFrameInSeveralQueuesCountsOnceUntilTheLastLetsGo) {
  memory::BufferBudget budget(1 << 20);
  FrameLedger ledger(&budget);
  const Frame event = frame_of(300 * 1024);
  OutboundQueue a(128 << 20, ledger, memory::BudgetUser::websocket);
  OutboundQueue b(128 << 20, ledger, memory::BudgetUser::rawsocket);
  OutboundQueue c(128 << 20, ledger, memory::BudgetUser::websocket);
  ASSERT_TRUE(a.push(event));
  ASSERT_TRUE(b.push(event));
  ASSERT_TRUE(c.push(event));
  EXPECT_EQ(budget.in_use(), 300u * 1024);
  a.pop();
  b.clear();
  EXPECT_EQ(budget.in_use(), 300u * 1024);
  c.pop();
  EXPECT_EQ(budget.in_use(), 0u);
}

TEST(FrameLedger, SmallFramesNeverCount) {
  memory::BufferBudget budget(1);
  FrameLedger ledger(&budget);
  OutboundQueue queue(128 << 20, ledger, memory::BudgetUser::rawsocket);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(queue.push(frame_of(memory::kUnbudgetedBytes)));
  EXPECT_EQ(budget.in_use(), 0u);
}

TEST(FrameLedger, AFrameWithoutRoomIsNotQueuedAndIsCountedAsARefusal) {
  memory::BufferBudget budget(1 << 20);
  FrameLedger ledger(&budget);
  OutboundQueue queue(128 << 20, ledger, memory::BudgetUser::websocket);
  ASSERT_TRUE(queue.push(frame_of(700 * 1024)));
  EXPECT_FALSE(queue.push(frame_of(700 * 1024)));
  EXPECT_EQ(queue.size(), 1u);
  EXPECT_EQ(budget.in_use(), 700u * 1024);
  EXPECT_EQ(budget.refusals(memory::BudgetUser::websocket), 1u);
}

TEST(FrameLedger, AQueueGivesBackWhatItHoldsWhenItIsDestroyed) {
  memory::BufferBudget budget(1 << 20);
  FrameLedger ledger(&budget);
  {
    OutboundQueue queue(128 << 20, ledger, memory::BudgetUser::websocket);
    ASSERT_TRUE(queue.push(frame_of(200 * 1024)));
    ASSERT_TRUE(queue.push(frame_of(200 * 1024)));
    EXPECT_EQ(budget.in_use(), 400u * 1024);
  }
  EXPECT_EQ(budget.in_use(), 0u);
}

// A small message in a large buffer (a pooled buffer kept with its capacity) holds the buffer:
// it counts that, and gives the same back.
TEST(FrameLedger, AFrameCountsWhatItsBufferHolds) {
  memory::BufferBudget budget(1 << 20);
  FrameLedger ledger(&budget);
  OutboundQueue queue(128 << 20, ledger, memory::BudgetUser::rawsocket);
  auto buffer = std::make_shared<std::vector<uint8_t>>(10 * 1024, 'x');
  buffer->reserve(256 * 1024);
  const Frame frame = buffer;
  ASSERT_TRUE(queue.push(frame));
  EXPECT_EQ(budget.in_use(), frame->capacity());
  EXPECT_EQ(queue.bytes(), frame->capacity());
  queue.pop();
  EXPECT_EQ(budget.in_use(), 0u);
}

TEST(FrameLedger, WithoutABudgetEveryFrameIsQueued) {
  FrameLedger ledger(nullptr);
  OutboundQueue queue(128 << 20, ledger, memory::BudgetUser::websocket);
  EXPECT_TRUE(queue.push(frame_of(2 << 20)));
}

}  // namespace
}  // namespace benchgate::router::wamp
