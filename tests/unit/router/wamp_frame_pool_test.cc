// router::wamp::FramePool (router/wamp/frame_pool.h): a buffer comes back to the pool when no
// queue holds it any more and keeps its capacity unless it grew past the pool's kept bytes; a
// pool made without that bound (bench.transfer's chunks) keeps a chunk's capacity, so the next
// chunk is written into memory already in place; release() lets every buffer go. Capacities and
// reference counts, no times.
#include "router/wamp/frame_pool.h"

#include <gtest/gtest.h>

#include <cstdint>

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

}  // namespace
}  // namespace benchgate::router::wamp
