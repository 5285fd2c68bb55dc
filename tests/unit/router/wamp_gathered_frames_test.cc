// The buffers of one gathered write (router/wamp/gathered_frames.h): the first queued messages,
// at most kMaxMessages, each behind the header its transport writes for it (with the tag it was
// queued with); an empty message is its header alone; the write's end says how many it carried,
// once.
#include "router/wamp/gathered_frames.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <memory>
#include <vector>

#include "router/wamp/connection.h"

namespace benchgate::router::wamp {
namespace {

Frame message_of(size_t bytes, uint8_t fill) {
  return std::make_shared<const std::vector<uint8_t>>(bytes, fill);
}

// A 2-byte header: the tag, then the message's size.
using TwoBytes = std::array<uint8_t, 2>;
auto tag_and_size = [](const std::vector<uint8_t>& message, uint8_t tag, TwoBytes& header) {
  header = {tag, static_cast<uint8_t>(message.size())};
  return boost::asio::buffer(header);
};

TEST(GatheredFrames, EachQueuedMessageFollowsItsHeaderAndAnEmptyOneIsItsHeaderAlone) {
  memory::BufferBudget budget(1 << 20);
  FrameLedger ledger(&budget);
  OutboundQueue queue(1 << 20, ledger, memory::BudgetUser::rawsocket);
  ASSERT_TRUE(queue.push(message_of(3, 'a'), 1));
  ASSERT_TRUE(queue.push(message_of(0, 0), 2));
  ASSERT_TRUE(queue.push(message_of(5, 'c'), 3));
  GatheredFrames<TwoBytes> frames;
  const auto buffers = frames.gather(queue, tag_and_size);
  ASSERT_EQ(buffers.size(), 5u);
  const std::vector<std::vector<uint8_t>> expected{
      {1, 3}, {'a', 'a', 'a'}, {2, 0}, {3, 5}, {'c', 'c', 'c', 'c', 'c'}};
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(buffers[i].size(), expected[i].size()) << "buffer " << i;
    EXPECT_EQ(std::memcmp(buffers[i].data(), expected[i].data(), expected[i].size()), 0)
        << "buffer " << i;
  }
  EXPECT_EQ(frames.take_written(), 3u);
  EXPECT_EQ(frames.take_written(), 0u) << "a write's messages are popped once";
}

TEST(GatheredFrames, AWriteCarriesAtMostKMaxMessagesAndTheNextStartsAfterThem) {
  memory::BufferBudget budget(1 << 20);
  FrameLedger ledger(&budget);
  OutboundQueue queue(1 << 20, ledger, memory::BudgetUser::websocket);
  const size_t queued = GatheredFrames<TwoBytes>::kMaxMessages + 10;
  for (size_t i = 0; i < queued; ++i) {
    ASSERT_TRUE(queue.push(message_of(1, static_cast<uint8_t>(i))));
  }
  GatheredFrames<TwoBytes> frames;
  EXPECT_EQ(frames.gather(queue, tag_and_size).size(), 2 * GatheredFrames<TwoBytes>::kMaxMessages);
  const size_t written = frames.take_written();
  EXPECT_EQ(written, GatheredFrames<TwoBytes>::kMaxMessages);
  for (size_t i = 0; i < written; ++i) queue.pop();
  const auto rest = frames.gather(queue, tag_and_size);
  ASSERT_EQ(rest.size(), 20u);
  EXPECT_EQ(*static_cast<const uint8_t*>(rest[1].data()),
            static_cast<uint8_t>(GatheredFrames<TwoBytes>::kMaxMessages));
  EXPECT_EQ(frames.take_written(), 10u);
}

}  // namespace
}  // namespace benchgate::router::wamp
