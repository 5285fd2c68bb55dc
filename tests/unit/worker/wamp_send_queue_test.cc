// The worker's WAMP send queue (worker/wamp/send_queue.h): a gathered write under way points into
// the entries it carries (their frame headers, their bytes), so an entry must stay where it is
// when a message queued meanwhile grows the ring. Before, growing moved the entries into a new
// ring and freed the old one: the rest of the write sent freed memory, and the router read a
// frame header of garbage (seen as a session that joined again after a link closed mid-write,
// tests/unit/worker/wamp_session_end_test.cc).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "worker/wamp/send_queue.h"

namespace benchgate::worker::wamp {
namespace {

TEST(WampSendQueue, AnEntryStaysWhereItIsWhenTheRingGrows) {
  SendQueue queue;
  std::vector<const OutMessage*> entries;
  std::vector<const uint8_t*> frames;
  for (uint8_t i = 0; i < 8; ++i) {  // the first ring's size
    OutMessage& m = queue.push();
    m.frame = {0, 0, 0, i};
    m.head.assign(100, i);
    entries.push_back(&m);
    frames.push_back(m.frame.data());
  }
  queue.pop();  // a ring that wrapped: its first entry is not at its start
  queue.push().frame = {0, 0, 0, 8};
  for (uint8_t i = 9; i < 40; ++i) queue.push().frame = {0, 0, 0, i};  // grows, twice
  ASSERT_EQ(queue.size(), 39u);
  for (size_t i = 1; i < entries.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(&queue.at(i - 1), entries[i]);
    EXPECT_EQ(queue.at(i - 1).frame.data(), frames[i]);
    EXPECT_EQ(queue.at(i - 1).frame[3], i);
    EXPECT_EQ(queue.at(i - 1).head, std::vector<uint8_t>(100, static_cast<uint8_t>(i)));
  }
  for (size_t i = 7; i < 39; ++i) EXPECT_EQ(queue.at(i).frame[3], i + 1);
}

}  // namespace
}  // namespace benchgate::worker::wamp
