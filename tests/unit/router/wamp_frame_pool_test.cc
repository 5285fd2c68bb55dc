// router::wamp::FramePool (router/wamp/frame_pool.h): a buffer comes back to the pool when no
// queue holds it any more and keeps its capacity unless it grew past the pool's kept bytes; a
// pool made without that bound (bench.transfer's chunks) keeps a chunk's capacity, so the next
// chunk is written into memory already in place; release() lets every buffer go. And what a
// queued pooled buffer holds, its capacity, is what counts against the queue limit
// (--max-queued-bytes). Capacities and reference counts, no times.
#include "router/wamp/frame_pool.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "router/wamp/connection.h"
#include "router/wamp/frame_ledger.h"
#include "router/wamp/routing_frames.h"

namespace benchgate::router::wamp {
namespace {

TEST(FramePool, AFreeBufferIsHandedOutAgainWithItsCapacityUpToTheKeptBytes) {
  FramePool pool;
  auto small = pool.take();
  small->resize(8 * 1024);
  const uint8_t* small_data = small->data();
  small.reset();  // no queue holds it: free again
  auto again = pool.take();
  EXPECT_EQ(again->data(), small_data);
  EXPECT_TRUE(again->empty());
  EXPECT_GE(again->capacity(), 8u * 1024);
  // Grown past kKeptBytes: freed when it comes free, the next message starts small.
  again->resize(FramePool::kKeptBytes + 1);
  again.reset();
  auto shrunk = pool.take();
  EXPECT_LT(shrunk->capacity(), FramePool::kKeptBytes);
  EXPECT_EQ(pool.size(), 1u);
}

TEST(FramePool, ATransferPoolKeepsLargeBuffersUntilReleased) {
  FramePool pool(2, SIZE_MAX);
  auto chunk = pool.take();
  chunk->resize(4 * 1024 * 1024);
  const uint8_t* data = chunk->data();
  auto held = chunk;  // a queue still holds it: the pool hands out another
  chunk.reset();
  auto second = pool.take();
  EXPECT_NE(second->data(), data);
  EXPECT_EQ(pool.size(), 2u);
  held.reset();
  second.reset();
  auto reused = pool.take();
  EXPECT_EQ(reused->data(), data);
  EXPECT_GE(reused->capacity(), 4u * 1024 * 1024);
  // At its bound (2) a third buffer in use is handed out but not kept.
  auto other = pool.take();
  auto extra = pool.take();
  EXPECT_EQ(pool.size(), 2u);
  // release(): the pool holds nothing; buffers still in use live on with their holders.
  pool.release();
  EXPECT_EQ(pool.size(), 0u);
  EXPECT_EQ(reused.use_count(), 1);
  EXPECT_GE(reused->capacity(), 4u * 1024 * 1024);
}

// A small RESULT written into a pooled buffer holds the buffer (at least kFirstBytes) while it
// is queued, and once the pool's buffers are all queued every new one is a new buffer of that
// capacity: a client that sends tiny calls and never reads would make the router hold ~50x
// --max-queued-bytes if the queue counted the messages' sizes.
TEST(OutboundQueue, AQueuedFrameCountsTheCapacityItHoldsAgainstTheLimit) {
  constexpr uint64_t kLimit = 64 * 1024;
  FrameLedger ledger(nullptr);
  OutboundQueue queue(kLimit, ledger, memory::BudgetUser::rawsocket);
  FramePool pool;
  size_t queued = 0;
  uint64_t held = 0;
  for (int i = 0; i < 10'000; ++i) {
    const auto buffer = pool.take();
    buffer->assign(20, 'r');
    const Frame frame = buffer;
    if (!queue.fits(frame)) break;
    ASSERT_TRUE(queue.push(frame));
    ++queued;
    held += frame->capacity();
  }
  EXPECT_EQ(queued, kLimit / FramePool::kFirstBytes);
  EXPECT_EQ(held, kLimit);
  EXPECT_EQ(queue.bytes(), held);
  // Written, the frames give their bytes back.
  for (size_t i = 0; i < queued; ++i) queue.pop();
  EXPECT_EQ(queue.bytes(), 0u);
  // A message always fits an empty queue, however much it holds.
  const auto large = pool.take();
  large->reserve(2 * kLimit);
  EXPECT_TRUE(queue.fits(Frame(large)));
}

// A bench.transfer chunk's buffer holds the chunk's message and little more in every
// serializer, so the chunks a transfer keeps queued (kTransferChunksQueued) count about their
// size against the queue limit, which counts capacities (before: a JSON chunk's buffer, grown
// for the base64 exactly, doubled for the bytes after it: 8,388,724 for a 4,194,493-byte
// message).
TEST(OutboundQueue, ATransferChunkHoldsLittleMoreThanItsMessage) {
  const std::vector<uint8_t> chunk(3 * 1024 * 1024, 'c');
  for (const Serializer serializer : {Serializer::kJson, Serializer::kMsgpack, Serializer::kCbor}) {
    SCOPED_TRACE(serializer_name(serializer));
    FramePool pool(2, SIZE_MAX);
    const Frame frame = transfer_chunk_frame(pool, serializer, uint64_t{1} << 53, 1u << 30, chunk);
    EXPECT_GE(frame->capacity(), frame->size());
    EXPECT_LE(frame->capacity(), frame->size() + 128);
  }
}

}  // namespace
}  // namespace benchgate::router::wamp
