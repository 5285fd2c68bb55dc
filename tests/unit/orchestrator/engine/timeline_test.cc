// A measured window second by second from the workers' progress intervals (engine/timeline.h).
#include "orchestrator/engine/timeline.h"

#include <gtest/gtest.h>

#include <limits>

namespace benchgate::engine {
namespace {

constexpr int64_t kHalf = 500'000'000;

std::optional<HdrHistogram> latencies(std::initializer_list<int64_t> values) {
  HdrHistogram h;
  for (int64_t v : values) h.record(v);
  return h;
}

TEST(Timeline, IntervalsBelongToTheSecondTheyEndInAndWorkersAreSummed) {
  TimelineBuilder b(2'000'000'000);
  b.add(0, kHalf, 100, 0, latencies({1000}));
  b.add(1, kHalf, 50, 0, latencies({3000}));
  b.add(0, kHalf, 100, 10, latencies({2000}));  // ends at exactly 1.000 s: the first second
  b.add(1, kHalf, 50, 0, std::nullopt);
  b.add(0, kHalf, 300, 0, latencies({5000}));
  b.add(1, kHalf, 60, 0, std::nullopt);
  auto seconds = b.finish();
  ASSERT_EQ(seconds.size(), 2u);
  EXPECT_EQ(seconds[0].second, 0u);
  // Worker 0: 190 successes in 1 s; worker 1: 100 in 1 s.
  EXPECT_DOUBLE_EQ(seconds[0].ops_per_second, 290);
  EXPECT_EQ(seconds[0].errors, 10u);
  HdrHistogram merged = *latencies({1000, 3000, 2000});
  EXPECT_EQ(seconds[0].p50_ns, merged.value_at_percentile(50));
  EXPECT_EQ(seconds[0].max_ns, merged.max());
  // Second 1 so far: worker 0 300 in 0.5 s (600/s), worker 1 60 in 0.5 s (120/s).
  EXPECT_EQ(seconds[1].second, 1u);
  EXPECT_DOUBLE_EQ(seconds[1].ops_per_second, 720);
  EXPECT_EQ(seconds[1].max_ns, latencies({5000})->max());
}

TEST(Timeline, TheDrainAfterTheWindowIsLeftOutAndAStraddlingIntervalCountsInTheLastSecond) {
  TimelineBuilder b(1'000'000'000);
  b.add(0, 600'000'000, 60, 0, std::nullopt);
  b.add(0, 600'000'000, 60, 0, std::nullopt);     // 0.6 s to 1.2 s: straddles the end
  b.add(0, kHalf, 1, 0, latencies({9'000'000}));  // starts at 1.2 s: the drain
  auto seconds = b.finish();
  ASSERT_EQ(seconds.size(), 1u);
  EXPECT_DOUBLE_EQ(seconds[0].ops_per_second, 100);
  EXPECT_FALSE(seconds[0].p99_ns.has_value());  // no histogram in the window: not measured
}

TEST(Timeline, ASecondWithoutHistogramsHasNoLatencyAndNoIntervalsGiveNoSeconds) {
  TimelineBuilder empty(3'000'000'000);
  EXPECT_TRUE(empty.finish().empty());
  TimelineBuilder b(3'000'000'000);
  b.add(0, 0, 10, 0, std::nullopt);  // a zero-length interval says nothing
  EXPECT_TRUE(b.finish().empty());
}

TEST(Timeline, ASecondIsReducedOnceEveryWorkerHasPassedIt) {
  // Seconds are finished early (few histograms held in a long window); the result is the
  // same as reducing everything at the end.
  TimelineBuilder b(10'000'000'000);
  for (int i = 0; i < 20; ++i) {
    b.add(0, kHalf, 10, 0, latencies({1000 + i}));
    b.add(1, kHalf, 20, 1, latencies({2000 + i}));
  }
  auto seconds = b.finish();
  ASSERT_EQ(seconds.size(), 10u);
  for (uint32_t k = 0; k < 10; ++k) {
    EXPECT_EQ(seconds[k].second, k);
    EXPECT_DOUBLE_EQ(seconds[k].ops_per_second, 20 + 38);
    EXPECT_EQ(seconds[k].errors, 2u);
  }
}

TEST(Timeline, AWorkerThatReportsLateStillGivesEachSecondOnce) {
  // Worker 1 was stopped: worker 0 has passed three seconds before worker 1's first interval
  // arrives. Each second is reduced once, with both workers in it (the store refuses a second
  // twice: a run with a worker stopped mid-window could not be stored).
  TimelineBuilder b(3'000'000'000, 2);
  for (int i = 0; i < 6; ++i) b.add(0, kHalf, 10, 0, latencies({1000}));
  for (int i = 0; i < 6; ++i) b.add(1, kHalf, 20, 0, latencies({2000}));
  auto seconds = b.finish();
  ASSERT_EQ(seconds.size(), 3u);
  for (uint32_t k = 0; k < 3; ++k) {
    EXPECT_EQ(seconds[k].second, k);
    EXPECT_DOUBLE_EQ(seconds[k].ops_per_second, 20 + 40);
  }
}

// A worker may send any interval and count: an interval ending past INT64_MAX leaves the
// worker's clock there (past the window), not wrapped round to before the window's start where
// its next interval would be counted again; counts stop at UINT64_MAX rather than read as few.
TEST(Timeline, FiguresPastTheirTypesEndStopThereRatherThanWrap) {
  constexpr int64_t kMaxNs = std::numeric_limits<int64_t>::max();
  constexpr uint64_t kMaxCount = std::numeric_limits<uint64_t>::max();
  TimelineBuilder b(1'000'000'000);
  b.add(0, kHalf, 10, 0, std::nullopt);
  b.add(0, kMaxNs, 10, 2, std::nullopt);  // straddles the end: the last second
  b.add(0, kHalf, 10, 7, std::nullopt);   // after it: the drain, none
  auto seconds = b.finish();
  ASSERT_EQ(seconds.size(), 1u);
  EXPECT_EQ(seconds[0].errors, 2u);
  TimelineBuilder counts(1'000'000'000);
  counts.add(0, 100, kMaxCount, kMaxCount, std::nullopt);
  counts.add(0, 100, 5, 5, std::nullopt);
  seconds = counts.finish();
  ASSERT_EQ(seconds.size(), 1u);
  EXPECT_EQ(seconds[0].errors, kMaxCount);
}

// Each interval's histogram holds at most INT64_MAX samples; the workers' of one second need
// not sum within it: that second shows no percentiles (nor those of the workers that fitted,
// nor of overflowed counts), and the next second is not affected.
TEST(Timeline, LatencySamplesOfASecondPastInt64GiveNoPercentiles) {
  constexpr int64_t kMany = (int64_t{1} << 62) + (int64_t{1} << 61);
  HdrHistogram many;
  many.record_n(1000, kMany);
  TimelineBuilder b(2'000'000'000, 3);
  b.add(0, kHalf, 10, 0, many);
  b.add(1, kHalf, 10, 0, many);
  b.add(2, kHalf, 10, 0, latencies({2000}));
  for (uint32_t w = 0; w < 3; ++w) b.add(w, 2 * kHalf, 10, 0, latencies({3000}));
  auto seconds = b.finish();
  ASSERT_EQ(seconds.size(), 2u);
  EXPECT_FALSE(seconds[0].p50_ns) << *seconds[0].p50_ns;
  EXPECT_FALSE(seconds[0].p99_ns);
  EXPECT_FALSE(seconds[0].max_ns);
  ASSERT_TRUE(seconds[1].p50_ns);
  EXPECT_EQ(*seconds[1].p50_ns, HdrHistogram().highest_equivalent_value(3000));
}

}  // namespace
}  // namespace benchgate::engine
