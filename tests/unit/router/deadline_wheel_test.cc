// The serving thread's one timer for session deadlines (router/http/deadline_wheel.h), run on
// an io_context in the test's thread with a 1 ms tick. The assertions are about order and
// counts (who is called back, how often, never before its instant, and that run() ends once
// nothing is scheduled), never about how long anything took.
#include "router/http/deadline_wheel.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "common/time/clock.h"

namespace benchgate::router::http {
namespace {

constexpr int64_t kTickNs = 1'000'000;

// An entry that counts its calls back and, like a session, schedules itself again until its
// instant has passed (the wheel may call an instant beyond its span early).
struct Entry : DeadlineEntry {
  DeadlineWheel* wheel = nullptr;
  int64_t at_ns = 0;
  int calls = 0;
  int64_t done_ns = 0;  // the clock of the call that found at_ns passed; 0: not yet
};

void on_due(DeadlineEntry& base, int64_t now_ns) {
  auto& entry = static_cast<Entry&>(base);
  ++entry.calls;
  if (now_ns >= entry.at_ns) {
    entry.done_ns = now_ns;
    return;
  }
  entry.wheel->schedule(entry, entry.at_ns, now_ns);
}

class DeadlineWheelTest : public ::testing::Test {
 protected:
  void schedule(Entry& entry, int64_t in_ns) {
    const int64_t now = steady_now_ns();
    entry.wheel = &wheel_;
    entry.at_ns = now + in_ns;
    wheel_.schedule(entry, entry.at_ns, now);
  }

  boost::asio::io_context io_;
  DeadlineWheel wheel_{io_.get_executor(), kTickNs, &on_due};
};

TEST_F(DeadlineWheelTest, TickIsASixteenthOfTheShortestTimeoutAndAtLeastOneMillisecond) {
  EXPECT_EQ(DeadlineWheel::tick_for(10'000'000'000), 625'000'000);
  EXPECT_EQ(DeadlineWheel::tick_for(160'000'000), 10'000'000);
  EXPECT_EQ(DeadlineWheel::tick_for(1'000'000), 1'000'000);
  EXPECT_EQ(wheel_.tick_ns(), kTickNs);
}

TEST_F(DeadlineWheelTest, EveryEntryIsCalledBackOnceNeverBeforeItsInstant) {
  std::vector<Entry> entries(40);
  // Instants on different ticks, several on the same tick, in no particular order.
  for (size_t i = 0; i < entries.size(); ++i) {
    schedule(entries[i], static_cast<int64_t>((i * 7) % 13) * kTickNs + 1);
  }
  // run() returns only once nothing is scheduled: the timer is not left armed.
  io_.run();
  for (const Entry& entry : entries) {
    EXPECT_EQ(entry.calls, 1);
    EXPECT_GE(entry.done_ns, entry.at_ns);
    EXPECT_FALSE(entry.scheduled());
  }
}

TEST_F(DeadlineWheelTest, AnInstantBeyondTheWheelIsCheckedEarlyAndScheduledAgain) {
  Entry entry;
  // An hour ahead, far beyond the wheel's span (32 ticks): the first call back comes at the
  // last slot's tick, finds the instant ahead, and the entry schedules itself again.
  schedule(entry, 3'600'000'000'000);
  io_.run_one();
  EXPECT_EQ(entry.calls, 1);
  EXPECT_EQ(entry.done_ns, 0);
  EXPECT_TRUE(entry.scheduled());
  wheel_.stop();
  io_.run();
  EXPECT_EQ(entry.calls, 1);
}

TEST_F(DeadlineWheelTest, SchedulingAgainMovesTheEntryAndUnschedulingDropsIt) {
  Entry moved;
  Entry dropped;
  Entry kept;
  schedule(moved, 2 * kTickNs);
  schedule(dropped, 2 * kTickNs);
  schedule(kept, 3 * kTickNs);
  // Later, then earlier than the timer is armed for: one call each, at the last instant.
  schedule(moved, 20 * kTickNs);
  schedule(moved, 5 * kTickNs);
  dropped.unschedule();
  io_.run();
  EXPECT_EQ(moved.calls, 1);
  EXPECT_GE(moved.done_ns, moved.at_ns);
  EXPECT_EQ(dropped.calls, 0);
  EXPECT_EQ(kept.calls, 1);
}

TEST_F(DeadlineWheelTest, AnInstantAlreadyPassedIsCalledBackAtTheNextTick) {
  Entry entry;
  schedule(entry, -5 * kTickNs);
  io_.run();
  EXPECT_EQ(entry.calls, 1);
  EXPECT_GE(entry.done_ns, entry.at_ns);
}

TEST_F(DeadlineWheelTest, AnEntryDestroyedWhileScheduledLeavesTheWheel) {
  Entry kept;
  schedule(kept, 2 * kTickNs);
  {
    Entry gone;
    schedule(gone, kTickNs);
  }
  io_.run();
  EXPECT_EQ(kept.calls, 1);
}

TEST_F(DeadlineWheelTest, StopCallsNothingBackAndLetsRunEnd) {
  Entry entry;
  schedule(entry, 2 * kTickNs);
  wheel_.stop();
  EXPECT_FALSE(entry.scheduled());
  // After stop nothing is scheduled any more.
  schedule(entry, kTickNs);
  EXPECT_FALSE(entry.scheduled());
  io_.run();
  EXPECT_EQ(entry.calls, 0);
}

TEST_F(DeadlineWheelTest, TheWheelCanBeUsedAgainAfterItEmptied) {
  Entry first;
  schedule(first, kTickNs);
  io_.run();
  EXPECT_EQ(first.calls, 1);
  Entry second;
  schedule(second, 2 * kTickNs);
  io_.restart();
  io_.run();
  EXPECT_EQ(second.calls, 1);
  EXPECT_GE(second.done_ns, second.at_ns);
}

}  // namespace
}  // namespace benchgate::router::http
