// The buffered-bytes budget's accounting: reservations up to the limit and never past it (also
// from several threads at once), refusals counted by transport, buffers up to
// kUnbudgetedBytes outside it, everything given back when a reservation ends, and how far an
// announced message length is trusted.
#include "router/memory/buffer_budget.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace benchgate::router::memory {
namespace {

TEST(BufferBudget, ReservesUpToTheLimitAndRefusesPastIt) {
  BufferBudget budget(1000);
  EXPECT_TRUE(budget.try_reserve(600, BudgetUser::http));
  EXPECT_TRUE(budget.try_reserve(400, BudgetUser::websocket));
  EXPECT_EQ(budget.in_use(), 1000u);
  EXPECT_FALSE(budget.try_reserve(1, BudgetUser::rawsocket));
  EXPECT_EQ(budget.in_use(), 1000u);  // a refusal adds nothing
  budget.release(400);
  EXPECT_TRUE(budget.try_reserve(400, BudgetUser::rawsocket));
  EXPECT_FALSE(budget.try_reserve(UINT64_MAX, BudgetUser::http));  // no overflow
  EXPECT_EQ(budget.refusals(BudgetUser::http), 1u);
  EXPECT_EQ(budget.refusals(BudgetUser::websocket), 0u);
  EXPECT_EQ(budget.refusals(BudgetUser::rawsocket), 1u);
  budget.reset_refusals();
  EXPECT_EQ(budget.refusals(BudgetUser::http), 0u);
  EXPECT_EQ(budget.in_use(), 1000u);  // reset leaves what is in use
}

TEST(BufferBudgetReservation, SmallBuffersAreOutsideTheBudget) {
  BufferBudget budget(1);
  Reservation reservation(&budget, BudgetUser::http);
  EXPECT_TRUE(reservation.resize(kUnbudgetedBytes));
  EXPECT_EQ(reservation.held(), 0u);
  EXPECT_EQ(budget.in_use(), 0u);
  EXPECT_FALSE(reservation.resize(kUnbudgetedBytes + 1));  // counts in full, and 1 B is all
}

TEST(BufferBudgetReservation, FollowsTheCapacityAndGivesEverythingBackAtTheEnd) {
  BufferBudget budget(1 << 20);
  {
    Reservation reservation(&budget, BudgetUser::websocket);
    EXPECT_TRUE(reservation.resize(128 * 1024));
    EXPECT_EQ(budget.in_use(), 128u * 1024);
    EXPECT_TRUE(reservation.resize(512 * 1024));  // grows by the difference
    EXPECT_EQ(budget.in_use(), 512u * 1024);
    EXPECT_FALSE(reservation.resize(2 << 20));  // refused: what is held stays
    EXPECT_EQ(reservation.held(), 512u * 1024);
    EXPECT_EQ(budget.in_use(), 512u * 1024);
    EXPECT_TRUE(reservation.resize(256 * 1024));  // shrinks
    EXPECT_EQ(budget.in_use(), 256u * 1024);
    Reservation other(&budget, BudgetUser::rawsocket);
    EXPECT_TRUE(other.resize(768 * 1024));
    EXPECT_FALSE(other.resize(768 * 1024 + 1));
    EXPECT_EQ(budget.refusals(BudgetUser::rawsocket), 1u);
    EXPECT_EQ(budget.refusals(BudgetUser::websocket), 1u);
  }
  EXPECT_EQ(budget.in_use(), 0u);
}

TEST(BufferBudgetReservation, WithoutABudgetEveryResizeSucceeds) {
  Reservation reservation(nullptr, BudgetUser::http);
  EXPECT_TRUE(reservation.resize(uint64_t{1} << 40));
}

// The length a frame header announces is trusted only as far as bytes arrived: at most 16
// times what a buffer holds plus a read, so a 64 KiB buffer full of a frame grows to 1 MiB (the
// size of the spare the WAMP thread keeps), not to the 16 MiB its header may announce, and the
// largest RawSocket frame (16 MiB - 1 and its 4-byte header) is reached from there in one step.
// Nothing is reserved past what was announced.
TEST(TrustedCapacity, AnAnnouncedLengthIsTrustedOnlyAsFarAsItsBytesArrived) {
  constexpr uint64_t kLargestFrame = (1u << 24) - 1 + 4;
  EXPECT_EQ(trusted_capacity(0, kLargestFrame), 16u * 4096);
  EXPECT_EQ(trusted_capacity(100, kLargestFrame), 16u * 4096);
  EXPECT_EQ(trusted_capacity(kUnbudgetedBytes, kLargestFrame), kSpareBufferBytes);
  EXPECT_EQ(trusted_capacity(kSpareBufferBytes, kLargestFrame), kLargestFrame);
  EXPECT_EQ(trusted_capacity(100, 67'000), 67'000u);  // within 16 x (100 + 4096)
  EXPECT_EQ(trusted_capacity(100, 68'000), 16u * 4096);
  EXPECT_EQ(trusted_capacity(kSpareBufferBytes, 2'000'000), 2'000'000u);
}

TEST(BufferBudget, ThreadsReservingAtOnceNeverPassTheLimit) {
  // 4 threads x 20,000 reserve/release pairs of 3 units against a limit of 10: at most 3 hold
  // at once, and what is in use is back to 0 at the end.
  BufferBudget budget(10);
  std::atomic<uint64_t> granted{0};
  std::atomic<bool> over{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20'000; ++i) {
        if (!budget.try_reserve(3, BudgetUser::http)) continue;
        ++granted;
        if (budget.in_use() > 10) over = true;
        budget.release(3);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_FALSE(over.load());
  EXPECT_EQ(budget.in_use(), 0u);
  EXPECT_EQ(granted.load() + budget.refusals(BudgetUser::http), 80'000u);
}

}  // namespace
}  // namespace benchgate::router::memory
