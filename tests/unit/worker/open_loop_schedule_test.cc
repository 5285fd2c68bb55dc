// The open-loop send schedule: fixed intervals per connection, staggered connections, and
// counts of due requests that agree exactly with the instants.
#include "worker/engine/open_loop_schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace benchgate::worker {
namespace {

TEST(OpenLoopSchedule, DividesTheRateOverConnections) {
  const OpenLoopSchedule schedule(1000.0, 10, 0);  // 100/s per connection
  EXPECT_DOUBLE_EQ(schedule.interval_ns(), 10'000'000.0);
  EXPECT_EQ(schedule.due_offset_ns(0), 0);
  EXPECT_EQ(schedule.due_offset_ns(1), 10'000'000);
  EXPECT_EQ(schedule.due_offset_ns(100), 1'000'000'000);
}

TEST(OpenLoopSchedule, StaggersConnectionsSoAllRequestsAreEvenlySpaced) {
  const uint32_t connections = 4;
  std::vector<int64_t> instants;
  for (uint32_t c = 0; c < connections; ++c) {
    const OpenLoopSchedule schedule(1000.0, connections, c);
    for (uint64_t k = 0; k < 5; ++k) instants.push_back(schedule.due_offset_ns(k));
  }
  std::sort(instants.begin(), instants.end());
  for (size_t i = 0; i < instants.size(); ++i) {
    EXPECT_EQ(instants[i], static_cast<int64_t>(i) * 1'000'000) << i;
  }
}

TEST(OpenLoopSchedule, CountsDueRequestsInclusiveOfTheirInstant) {
  const OpenLoopSchedule schedule(1000.0, 2, 1);  // every 2 ms, first at 1 ms
  EXPECT_EQ(schedule.due_by(0), 0u);
  EXPECT_EQ(schedule.due_by(999'999), 0u);
  EXPECT_EQ(schedule.due_by(1'000'000), 1u);
  EXPECT_EQ(schedule.due_by(2'999'999), 1u);
  EXPECT_EQ(schedule.due_by(3'000'000), 2u);
  EXPECT_EQ(schedule.due_by(-5), 0u);
}

TEST(OpenLoopSchedule, DueByAgreesWithDueOffsetsForAwkwardRates) {
  for (double rate : {3.0, 7.7, 333.3, 12345.6789, 1e6 / 3}) {
    for (uint32_t c = 0; c < 3; ++c) {
      const OpenLoopSchedule schedule(rate, 3, c);
      for (uint64_t k = 0; k < 200; ++k) {
        const int64_t at = schedule.due_offset_ns(k);
        EXPECT_EQ(schedule.due_by(at), k + 1) << rate << " " << k;
        EXPECT_EQ(schedule.due_by(at - 1), k) << rate << " " << k;
      }
    }
  }
}

TEST(OpenLoopSchedule, CountsRequestsDueInsideAWindowExcludingItsEnd) {
  const OpenLoopSchedule schedule(100.0, 1, 0);            // every 10 ms from 0
  EXPECT_EQ(schedule.due_in_window(1'000'000'000), 100u);  // 0, 10, ..., 990 ms
  EXPECT_EQ(schedule.due_in_window(1'000'000'001), 101u);
  EXPECT_EQ(schedule.due_in_window(0), 0u);
  // Over all connections, a window holds rate x duration requests.
  uint64_t total = 0;
  for (uint32_t c = 0; c < 7; ++c)
    total += OpenLoopSchedule(700.0, 7, c).due_in_window(2'000'000'000);
  EXPECT_EQ(total, 1400u);
}

// The first instant rounds down (offset 10.4 ns -> 10 ns): at 10 ns the estimate's floor is
// -1, which was converted to unsigned: undefined behaviour (-fsanitize=float-cast-overflow:
// "-1 is outside the range of representable values of type 'long unsigned int'").
TEST(OpenLoopSchedule, AFirstInstantRoundedDownIsDueAtItsRoundedInstant) {
  const OpenLoopSchedule schedule(1e9 / 10.4, 2, 1);  // every 20.8 ns, first at 10.4 ns
  ASSERT_EQ(schedule.due_offset_ns(0), 10);
  EXPECT_EQ(schedule.due_by(9), 0u);
  EXPECT_EQ(schedule.due_by(10), 1u);
  EXPECT_EQ(schedule.due_by(30), 1u);
  EXPECT_EQ(schedule.due_by(31), 2u);
}

// A worker's place among the workload's connections shifts its schedule, not its interval.
TEST(OpenLoopSchedule, APlaceAmongAllConnectionsOffsetsTheSchedule) {
  // Worker 1 of 2, 2 connections each, 500/s each (1000/s in all): its connections are
  // numbers 2 and 3 of 4, due at 2 ms and 3 ms, every 4 ms.
  const OpenLoopSchedule first(500.0, 2, 0, 2, 4);
  const OpenLoopSchedule second(500.0, 2, 1, 2, 4);
  EXPECT_DOUBLE_EQ(first.interval_ns(), 4'000'000.0);
  EXPECT_EQ(first.due_offset_ns(0), 2'000'000);
  EXPECT_EQ(second.due_offset_ns(0), 3'000'000);
  EXPECT_EQ(second.due_offset_ns(1), 7'000'000);
  // Alone (total 0) it is the worker's own stagger.
  EXPECT_EQ(OpenLoopSchedule(500.0, 2, 1).due_offset_ns(0), 2'000'000);
}

}  // namespace
}  // namespace benchgate::worker
