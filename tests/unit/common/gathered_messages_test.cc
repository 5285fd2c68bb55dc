// The buffer list of one gathered write (common/net/gathered_messages.h), which the router's
// connections and the worker's RawSocket channel both fill: each message's buffers in order,
// oldest message first, an empty buffer left out; at most kMaxMessages a write; the write's end
// says how many it carried, once; and the list keeps its place from one write to the next.
#include "common/net/gathered_messages.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace benchgate::net {
namespace {

namespace asio = boost::asio;

// A message as a frame header and two parts of its bytes, either of which may be empty.
struct ThreePartMessage {
  std::string header;
  std::string head;
  std::string tail;
};

auto three_parts_of(const std::vector<ThreePartMessage>& queue) {
  return [&queue](size_t i) {
    const ThreePartMessage& m = queue[i];
    return std::array<asio::const_buffer, 3>{asio::buffer(m.header), asio::buffer(m.head),
                                             asio::buffer(m.tail)};
  };
}

std::vector<std::string> strings_of(std::span<const asio::const_buffer> buffers) {
  std::vector<std::string> strings;
  for (const asio::const_buffer& b : buffers) {
    strings.emplace_back(static_cast<const char*>(b.data()), b.size());
  }
  return strings;
}

TEST(GatheredMessages, EachMessagesBuffersInOrderAndAnEmptyBufferLeftOut) {
  const std::vector<ThreePartMessage> queue{
      {"H1", "ab", "cd"}, {"H2", "", "ef"}, {"H3", "gh", ""}, {"H4", "", ""}, {"", "ij", ""}};
  GatheredMessages messages;
  const auto buffers = messages.gather(queue.size(), three_parts_of(queue));
  const std::vector<std::string> expected{"H1", "ab", "cd", "H2", "ef", "H3", "gh", "H4", "ij"};
  EXPECT_EQ(strings_of(buffers), expected);
  EXPECT_EQ(messages.take_written(), 5u);
  EXPECT_EQ(messages.take_written(), 0u) << "a write's messages are popped once";
}

TEST(GatheredMessages, AWriteCarriesAtMostKMaxMessages) {
  EXPECT_EQ(GatheredMessages::carried(0), 0u);
  EXPECT_EQ(GatheredMessages::carried(3), 3u);
  EXPECT_EQ(GatheredMessages::carried(GatheredMessages::kMaxMessages),
            GatheredMessages::kMaxMessages);
  EXPECT_EQ(GatheredMessages::carried(GatheredMessages::kMaxMessages + 1),
            GatheredMessages::kMaxMessages);

  std::vector<ThreePartMessage> queue;
  for (size_t i = 0; i < GatheredMessages::kMaxMessages + 10; ++i) {
    queue.push_back({"H", std::to_string(i), ""});
  }
  GatheredMessages messages;
  const auto buffers = messages.gather(queue.size(), three_parts_of(queue));
  ASSERT_EQ(buffers.size(), 2 * GatheredMessages::kMaxMessages);
  EXPECT_EQ(strings_of(buffers).back(), std::to_string(GatheredMessages::kMaxMessages - 1));
  EXPECT_EQ(messages.take_written(), GatheredMessages::kMaxMessages);
}

// A gather starts the list afresh (nothing of the write before stays in it) in the storage it
// grew to, so that a write allocates nothing once the list has grown.
TEST(GatheredMessages, TheNextGatherStartsAfreshInTheSameStorage) {
  const std::vector<ThreePartMessage> four{
      {"H1", "a", ""}, {"H2", "b", ""}, {"H3", "c", ""}, {"H4", "d", ""}};
  const std::vector<ThreePartMessage> two{{"H5", "e", "f"}, {"H6", "", ""}};
  GatheredMessages messages;
  const auto first = messages.gather(four.size(), three_parts_of(four));
  ASSERT_EQ(first.size(), 8u);
  EXPECT_EQ(messages.take_written(), 4u);
  const auto second = messages.gather(two.size(), three_parts_of(two));
  EXPECT_EQ(second.data(), first.data());
  EXPECT_EQ(strings_of(second), (std::vector<std::string>{"H5", "e", "f", "H6"}));
  EXPECT_EQ(messages.take_written(), 2u);
}

TEST(GatheredMessages, NoMessagesQueuedIsAnEmptyWrite) {
  const std::vector<ThreePartMessage> none;
  GatheredMessages messages;
  EXPECT_TRUE(messages.gather(none.size(), three_parts_of(none)).empty());
  EXPECT_EQ(messages.take_written(), 0u);
}

}  // namespace
}  // namespace benchgate::net
