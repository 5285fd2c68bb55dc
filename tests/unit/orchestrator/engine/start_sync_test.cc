// One start across hosts: the clock-offset estimator, the start instant on each worker's clock
// and what the workers achieved (orchestrator/engine/start_sync.h).
#include "orchestrator/engine/start_sync.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

namespace benchgate::engine {
namespace {

constexpr int64_t kOffset = 1'000'000'000'000;  // the worker's clock 1,000 s ahead

// A probe sent at `t1` (orchestrator clock) that takes `out` ns to the worker, `hold` ns there
// and `back` ns back, against a worker clock `offset` ahead.
ClockSample sample(int64_t t1, int64_t out, int64_t hold, int64_t back, int64_t offset = kOffset) {
  const int64_t t2 = t1 + out + offset;
  const int64_t t3 = t2 + hold;
  const int64_t t4 = t1 + out + hold + back;
  return {t1, t2, t3, t4};
}

TEST(ClockSample, SymmetricDelaysGiveTheExactOffsetAndTheWireTime) {
  const auto s = sample(5'000, 40'000, 7'000, 40'000);
  EXPECT_EQ(s.offset(), kOffset);
  EXPECT_EQ(s.delay(), 80'000);  // the worker's hold is not on the wire
}

TEST(ClockSample, AnAsymmetricDelayMovesTheOffsetByHalfTheDifference) {
  // 100 us out, 20 us back: off by (100 - 20) / 2 = 40 us, within RTT / 2.
  const auto s = sample(0, 100'000, 1'000, 20'000);
  EXPECT_EQ(s.offset(), kOffset + 40'000);
  EXPECT_EQ(s.delay(), 120'000);
  EXPECT_LE(std::abs(s.offset() - kOffset), s.delay() / 2);
}

TEST(EstimateClock, KeepsTheLowestDelaySamples) {
  // Eight samples: two fast symmetric ones, six slowed by queueing on one way only, whose
  // offsets are wrong by up to 1 ms.
  std::vector<ClockSample> samples;
  for (int i = 0; i < 6; ++i)
    samples.push_back(sample(i * 10'000'000, 2'000'000 + i, 5'000, 50'000));
  samples.push_back(sample(70'000'000, 50'000, 5'000, 50'000));
  samples.push_back(sample(80'000'000, 51'000, 5'000, 51'000));
  auto estimate = estimate_clock(samples);
  ASSERT_TRUE(estimate);
  // 8 / 4 = 2 kept: the two symmetric ones; the median of two is the lower.
  EXPECT_EQ(estimate->kept, 2u);
  EXPECT_EQ(estimate->samples, 8u);
  EXPECT_EQ(estimate->offset_ns, kOffset);
  EXPECT_EQ(estimate->rtt_ns, 100'000);
}

TEST(EstimateClock, TheMedianOfTheKeptResistsOneOddSample) {
  // Twelve samples keep three; the one with the lowest delay is asymmetric (out 10 us, back
  // 40 us: 15 us off), the other two symmetric: the median is exact.
  std::vector<ClockSample> samples;
  for (int i = 0; i < 9; ++i) samples.push_back(sample(i * 1'000'000, 500'000, 1'000, 500'000));
  samples.push_back(sample(20'000'000, 10'000, 1'000, 40'000));
  samples.push_back(sample(21'000'000, 26'000, 1'000, 26'000));
  samples.push_back(sample(22'000'000, 27'000, 1'000, 27'000));
  auto estimate = estimate_clock(samples);
  ASSERT_TRUE(estimate);
  EXPECT_EQ(estimate->kept, 3u);
  EXPECT_EQ(estimate->offset_ns, kOffset);
  EXPECT_EQ(estimate->rtt_ns, 50'000);  // the lowest delay, whatever its offset
}

TEST(EstimateClock, ANegativeOffsetAndOneSample) {
  auto estimate = estimate_clock({sample(1'000, 30'000, 2'000, 30'000, -kOffset)});
  ASSERT_TRUE(estimate);
  EXPECT_EQ(estimate->offset_ns, -kOffset);
  EXPECT_EQ(estimate->kept, 1u);
  EXPECT_EQ(estimate->rtt_ns, 60'000);
}

TEST(EstimateClock, DropsImpossibleSamplesAndSaysWhenNoneIsLeft) {
  EXPECT_FALSE(estimate_clock({}));
  ClockSample backwards = sample(0, 10, 10, 10);
  std::swap(backwards.t2, backwards.t3);  // the worker's reply before its receipt
  ClockSample negative{0, kOffset + 100, kOffset + 200, 50};  // held longer than the round trip
  EXPECT_FALSE(estimate_clock({backwards, negative}));
  auto estimate = estimate_clock({backwards, sample(0, 10'000, 1'000, 10'000)});
  ASSERT_TRUE(estimate);
  EXPECT_EQ(estimate->samples, 2u);
  EXPECT_EQ(estimate->offset_ns, kOffset);
}

// A worker's reply may hold any int64: instants at the ends of the range are differenced
// without overflow, and a sample that gives no clock reading (an offset of centuries) is
// dropped rather than wrapped around to a plausible one.
TEST(EstimateClock, DropsRepliesAtTheEndsOfInt64) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const ClockSample far_ahead{1'000, kMax, kMax, 2'000};
  const ClockSample far_behind{1'000, kMin, kMin, 2'000};
  const ClockSample spanning{1'000, kMin, kMax, 2'000};
  EXPECT_FALSE(estimate_clock({far_ahead, far_behind, spanning}));
  auto estimate = estimate_clock({far_ahead, sample(0, 10'000, 1'000, 10'000), far_behind});
  ASSERT_TRUE(estimate);
  EXPECT_EQ(estimate->offset_ns, kOffset);
  EXPECT_EQ(estimate->rtt_ns, 20'000);
}

TEST(StartInstant, IsTheSharedInstantOnEachWorkersClock) {
  v1::Window shared;
  shared.set_index(3);
  shared.set_start_at_unix_ns(1'700'000'000'000'000'000);
  shared.set_duration_ns(2'000'000'000);
  const int64_t start = 50'000'000'000;  // orchestrator's monotonic clock
  const auto ahead = *window_for_worker(shared, start, ClockEstimate{kOffset, 80'000, 8, 2});
  EXPECT_EQ(ahead.start_at_worker_ns(), start + kOffset);
  const auto behind = *window_for_worker(shared, start, ClockEstimate{-2'000'000, 80'000, 8, 2});
  EXPECT_EQ(behind.start_at_worker_ns(), start - 2'000'000);
  // Everything else is the shared command's.
  EXPECT_EQ(ahead.index(), 3u);
  EXPECT_EQ(ahead.start_at_unix_ns(), shared.start_at_unix_ns());
  EXPECT_EQ(ahead.duration_ns(), shared.duration_ns());
  // Not measured: the Unix instant alone, as before the exchange existed.
  const auto unmeasured = *window_for_worker(shared, start, std::nullopt);
  EXPECT_EQ(unmeasured.start_at_worker_ns(), 0);
  EXPECT_EQ(unmeasured.start_at_unix_ns(), shared.start_at_unix_ns());
  EXPECT_EQ(to_orchestrator_clock(*to_worker_clock(start, kOffset), kOffset), start);
}

// An offset near either end of int64 (a ClockEstimate not from estimate_clock(), which bounds
// them) puts the start outside the worker's clock: an error naming both, not a wrapped instant.
TEST(StartInstant, AStartOutsideTheWorkersClockIsAnError) {
  v1::Window shared;
  shared.set_index(2);
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const auto command = window_for_worker(shared, 50'000'000'000, ClockEstimate{kMax, 1, 1, 1});
  ASSERT_FALSE(command.ok()) << "sent start_at_worker_ns " << command->start_at_worker_ns();
  EXPECT_EQ(command.message(),
            "window 2: the start instant 50000000000 ns plus the worker's clock offset "
            "9223372036854775807 ns lies outside int64: no instant of the worker's clock");
  EXPECT_FALSE(to_worker_clock(1, kMax));
  EXPECT_FALSE(to_orchestrator_clock(kMax, -1));
}

results::Repetition with_workers(size_t n) {
  results::Repetition rep;
  for (size_t w = 0; w < n; ++w) {
    results::WorkerShare share;
    share.worker = static_cast<uint32_t>(w);
    rep.workers.push_back(share);
  }
  return rep;
}

bool start_skew_flagged(const results::Repetition& rep) {
  return std::find(rep.flags.begin(), rep.flags.end(), "start_skew") != rep.flags.end();
}

const PlannedStart kPlanned{10'000'000'000, 1'700'000'000'000'000'000};

TEST(RecordStarts, ConvertsEachStartWithItsOffsetAndRecordsTheClock) {
  // Worker 0 on a clock 1,000 s ahead started 200 us late; worker 1 on a clock 3 ms behind
  // started 50 us late.
  v1::WindowResult a, b;
  a.set_started_worker_ns(kPlanned.steady_ns + kOffset + 200'000);
  a.set_started_unix_ns(1);  // ignored: the worker clock is used when the offset is known
  b.set_started_worker_ns(kPlanned.steady_ns - 3'000'000 + 50'000);
  auto rep = with_workers(2);
  ASSERT_TRUE(
      record_starts(rep, {a, b},
                    {ClockEstimate{kOffset, 90'000, 8, 2}, ClockEstimate{-3'000'000, 70'000, 8, 2}},
                    kPlanned, 1'000'000)
          .ok());
  EXPECT_EQ(rep.workers[0].clock_offset_ns, kOffset);
  EXPECT_EQ(rep.workers[0].rtt_ns, 90'000);
  EXPECT_EQ(rep.workers[0].start_skew_ns, 200'000);
  EXPECT_EQ(rep.workers[1].clock_offset_ns, -3'000'000);
  EXPECT_EQ(rep.workers[1].start_skew_ns, 50'000);
  EXPECT_EQ(rep.worker_start_skew_ns, (std::vector<int64_t>{200'000, 50'000}));
  // From the planned instant (0) to the latest start (200 us).
  EXPECT_EQ(rep.start_spread_ns, 200'000);
  EXPECT_FALSE(start_skew_flagged(rep));
}

TEST(RecordStarts, FlagsASpreadPastTheBoundAndAnEarlyWorkerCountsToo) {
  v1::WindowResult early, late;
  early.set_started_worker_ns(kPlanned.steady_ns + kOffset - 400'000);  // 400 us early
  late.set_started_worker_ns(kPlanned.steady_ns + kOffset + 700'000);
  const std::vector<std::optional<ClockEstimate>> clocks(2, ClockEstimate{kOffset, 1, 1, 1});
  auto rep = with_workers(2);
  ASSERT_TRUE(record_starts(rep, {early, late}, clocks, kPlanned, 1'000'000).ok());
  EXPECT_EQ(rep.start_spread_ns, 1'100'000);
  EXPECT_TRUE(start_skew_flagged(rep));
  // The same starts within a 2 ms bound (the scenario's max_start_skew).
  rep = with_workers(2);
  ASSERT_TRUE(record_starts(rep, {early, late}, clocks, kPlanned, 2'000'000).ok());
  EXPECT_FALSE(start_skew_flagged(rep));
  // One worker alone 5 ms late: the span from the planned instant flags it.
  v1::WindowResult alone;
  alone.set_started_worker_ns(kPlanned.steady_ns + kOffset + 5'000'000);
  rep = with_workers(1);
  ASSERT_TRUE(record_starts(rep, {alone}, {clocks[0]}, kPlanned, 1'000'000).ok());
  EXPECT_EQ(rep.start_spread_ns, 5'000'000);
  EXPECT_TRUE(start_skew_flagged(rep));
}

TEST(RecordStarts, AWorkerWithoutTheExchangeIsNotMeasuredNotZero) {
  // Worker 1 does not take part (a third-party worker): its Unix start against the Unix
  // instant stands for its skew, and its offset and RTT stay absent.
  v1::WindowResult a, b;
  a.set_started_worker_ns(kPlanned.steady_ns + kOffset + 100'000);
  b.set_started_unix_ns(kPlanned.unix_ns + 300'000);
  auto rep = with_workers(2);
  ASSERT_TRUE(record_starts(rep, {a, b}, {ClockEstimate{kOffset, 5, 1, 1}, std::nullopt}, kPlanned,
                            1'000'000)
                  .ok());
  EXPECT_FALSE(rep.workers[1].clock_offset_ns);
  EXPECT_FALSE(rep.workers[1].rtt_ns);
  EXPECT_EQ(rep.workers[1].start_skew_ns, 300'000);
  EXPECT_EQ(rep.start_spread_ns, 300'000);
  // A worker that reports no start at all: no spread is claimed, nothing is flagged.
  rep = with_workers(2);
  ASSERT_TRUE(record_starts(rep, {a, v1::WindowResult{}},
                            {ClockEstimate{kOffset, 5, 1, 1}, std::nullopt}, kPlanned, 1)
                  .ok());
  EXPECT_EQ(rep.workers[0].start_skew_ns, 100'000);
  EXPECT_FALSE(rep.workers[1].start_skew_ns);
  EXPECT_TRUE(rep.worker_start_skew_ns.empty());
  EXPECT_FALSE(rep.start_spread_ns);
  EXPECT_FALSE(start_skew_flagged(rep));
}

// A worker may report any int64: a start whose skew from the planned one would overflow, or
// is beyond kMaxStartSkewNs, is a malformed result naming the worker and field, not a wrapped
// skew (nor a spread that overflows in its turn).
TEST(RecordStarts, AStartBeyondAnyClockIsAMalformedResult) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  v1::WindowResult far;
  far.set_window(3);
  far.set_started_worker_ns(kMax);
  auto rep = with_workers(2);
  rep.workers[1].worker = 5;
  v1::WindowResult near;
  near.set_started_worker_ns(kPlanned.steady_ns + kOffset);
  const std::vector<std::optional<ClockEstimate>> clocks{
      ClockEstimate{kOffset, 1, 1, 1}, ClockEstimate{-kMaxClockOffsetNs, 1, 1, 1}};
  auto recorded = record_starts(rep, {near, far}, clocks, kPlanned, 1'000'000);
  ASSERT_FALSE(recorded.ok()) << "skew " << rep.workers[1].start_skew_ns.value_or(0);
  EXPECT_EQ(recorded.message(),
            "worker 5 sent a malformed result: in window 3, started_worker_ns 9223372036854775807 "
            "(the worker's clock, offset -4611686018427387904 ns) is more than 2^61 ns (73 years) "
            "from the planned start");
  // Without an offset, its Unix start: one at the end of int64 is as far.
  v1::WindowResult unix_far;
  unix_far.set_started_unix_ns(kMax);
  rep = with_workers(1);
  recorded = record_starts(rep, {unix_far}, {std::nullopt}, kPlanned, 1'000'000);
  ASSERT_FALSE(recorded.ok());
  EXPECT_EQ(recorded.message(),
            "worker 0 sent a malformed result: in window 0, started_unix_ns 9223372036854775807 is "
            "more than 2^61 ns (73 years) from the planned start");
}

}  // namespace
}  // namespace benchgate::engine
