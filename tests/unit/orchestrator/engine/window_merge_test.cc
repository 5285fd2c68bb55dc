// Merging the per-worker results of one window: exact sums and histograms.
#include "orchestrator/engine/window_merge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace benchgate::engine {
namespace {

v1::WindowResult part(uint64_t successes, int64_t first, int64_t last, int64_t latency_ns,
                      int64_t cpu_ns = 0, int64_t wall_ns = 1'000'000'000) {
  v1::WindowResult r;
  r.set_operations(successes);
  r.set_successes(successes);
  r.set_bytes_received(successes * 100);
  r.set_first_send_unix_ns(first);
  r.set_last_receive_unix_ns(last);
  HdrHistogram h;
  h.record_n(latency_ns, static_cast<int64_t>(successes));
  auto blob = h.encode_compressed();
  r.mutable_latency()->set_hdr_v2_compressed(std::string(blob.begin(), blob.end()));
  r.set_cpu_user_ns(cpu_ns);
  r.set_wall_ns(wall_ns);
  r.set_threads(1);
  return r;
}

TEST(WindowMerge, SumsCountersAndMergesHistogramsExactly) {
  auto a = part(100, 1'000, 1'000'000'000, 1000);
  auto b = part(50, 500, 1'500'000'000, 2000);
  (*b.mutable_errors())["status"] = 3;
  b.set_operations(53);
  auto rep = merge_window({a, b}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_EQ(rep->operations, 153u);
  EXPECT_EQ(rep->successes, 150u);
  EXPECT_EQ(rep->error_count(), 3u);
  EXPECT_EQ(rep->errors.at("status"), 3u);
  EXPECT_EQ(rep->latency.total_count(), 150);
  EXPECT_EQ(rep->bytes_received, 15000u);
  // Data window: earliest first send to latest last receive.
  EXPECT_EQ(rep->data_window_ns, 1'500'000'000 - 500);
  EXPECT_EQ(rep->latency.value_at_percentile(50), rep->latency.highest_equivalent_value(1000));
}

// 0 is an instant not reported (docs/WORKER_PROTOCOL.md): a worker whose every request failed
// unwritten, or that read no answer, does not drag the span back to the Unix epoch.
TEST(WindowMerge, AnInstantOfZeroIsNotReportedAndSpansNothing) {
  constexpr int64_t kStart = 1'700'000'000'000'000'000;
  auto a = part(100, kStart + 1'000, kStart + 1'000'000'000, 1000);
  auto none = part(0, 0, kStart + 900'000'000, 1000);
  none.set_operations(4);
  (*none.mutable_errors())["timeout"] = 4;
  auto rep = merge_window({a, none}, 0, kStart, 1'000'000'000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_EQ(rep->data_window_ns, 1'000'000'000 - 1'000);
  none.set_first_send_unix_ns(kStart + 500);
  none.set_last_receive_unix_ns(0);
  rep = merge_window({none, a}, 0, kStart, 1'000'000'000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_EQ(rep->data_window_ns, 1'000'000'000 - 500);
  // Neither instant from anyone: no span.
  none.set_first_send_unix_ns(0);
  rep = merge_window({none}, 0, kStart, 1'000'000'000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_EQ(rep->data_window_ns, 0);
}

// A worker sent its start on its own clock (the clock exchange) reports started_worker_ns on it:
// one in ms is refused naming the unit, rather than become a start skew of days.
TEST(WindowMerge, AStartOnTheWorkersClockInMillisecondsIsAMalformedResult) {
  constexpr int64_t kOnWorker = 864'000'000'000'000;
  auto a = part(10, 1, 1'000'000'000, 1000);
  auto b = part(10, 1, 1'000'000'000, 1000);
  a.set_started_worker_ns(kOnWorker + 1'000);
  b.set_started_worker_ns(kOnWorker / 1'000'000);
  auto rep = merge_window({a, b}, 0, 0, 1'000'000'000, {3, 4}, 0, {kOnWorker, kOnWorker});
  ASSERT_FALSE(rep.ok());
  EXPECT_EQ(rep.message().rfind("worker 4 sent a malformed result: in window 0, started_worker_ns "
                                "864000000 is ",
                                0),
            0u)
      << rep.message();
  EXPECT_NE(rep.message().find("milliseconds, not nanoseconds?"), std::string::npos);
  // Without the start sent on its clock nothing judges it.
  EXPECT_TRUE(merge_window({a, b}, 0, 0, 1'000'000'000, {3, 4}).ok());
}

// A worker's CPU figures near INT64_MAX add up as doubles, not wrapped around to negative.
TEST(WindowMerge, CpuFiguresNearInt64MaxAddUpWithoutOverflow) {
  auto a = part(10, 1, 1'000'000'000, 1000);
  a.set_cpu_user_ns(std::numeric_limits<int64_t>::max());
  a.set_cpu_system_ns(std::numeric_limits<int64_t>::max());
  auto rep = merge_window({a}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_GT(rep->worker_cpu_seconds, 1.8e10);
}

// Every worker's callee sessions, in worker order; nothing for workloads without them.
TEST(WindowMerge, CalleeInvocationsOfEveryWorkerFollowEachOther) {
  auto a = part(7, 1, 1'000'000'000, 1000);
  auto b = part(5, 1, 1'000'000'000, 1000);
  for (uint64_t n : {3, 2, 2}) a.add_callee_invocations(n);
  for (uint64_t n : {3, 2}) b.add_callee_invocations(n);
  auto rep = merge_window({a, b}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_EQ(rep->callee_invocations, (std::vector<uint64_t>{3, 2, 2, 3, 2}));
  rep = merge_window({part(7, 1, 1'000'000'000, 1000)}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_TRUE(rep->callee_invocations.empty());
}

TEST(WindowMerge, EachWorkerKeepsItsOwnShareOfTheWindow) {
  auto a = part(100, 1, 500'000'001, 1000, /*cpu_ns=*/250'000'000);
  auto b = part(50, 1, 1'000'000'001, 2000, /*cpu_ns=*/500'000'000);
  (*b.mutable_errors())["status"] = 3;
  b.set_operations(53);
  auto rep = merge_window({a, b}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  ASSERT_EQ(rep->workers.size(), 2u);
  // Successes over each worker's own data window, as Repetition::ops_per_second defines it.
  EXPECT_DOUBLE_EQ(rep->workers[0].ops_per_second, 200);
  EXPECT_DOUBLE_EQ(rep->workers[1].ops_per_second, 50);
  EXPECT_EQ(rep->workers[1].worker, 1u);
  EXPECT_EQ(rep->workers[1].operations, 53u);
  EXPECT_EQ(rep->workers[1].errors, 3u);
  EXPECT_EQ(rep->workers[0].p99_ns, rep->latency.highest_equivalent_value(1000));
  EXPECT_EQ(rep->workers[1].max_ns, rep->latency.max());
  EXPECT_NEAR(*rep->workers[0].cpu_utilization, 0.25, 1e-9);
  EXPECT_NEAR(*rep->workers[1].cpu_utilization, 0.5, 1e-9);
}

TEST(WindowMerge, AWorkerWithoutCpuFiguresHasNoUtilizationInItsShare) {
  auto a = part(10, 1, 1'000'000'000, 1000, /*cpu_ns=*/950'000'000);
  a.add_not_measured("cpu");
  auto rep = merge_window({a}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  ASSERT_EQ(rep->workers.size(), 1u);
  EXPECT_FALSE(rep->workers[0].cpu_utilization.has_value());
}

bool has_flag(const results::Repetition& rep, const std::string& flag) {
  return std::find(rep.flags.begin(), rep.flags.end(), flag) != rep.flags.end();
}

v1::ThreadCpu* add_thread(v1::WindowResult& r, int64_t cpu_ns, std::optional<int64_t> delay_ns,
                          int64_t wall_ns = 1'000'000'000) {
  auto* t = r.add_thread_cpu();
  t->set_cpu_ns(cpu_ns);
  if (delay_ns) t->set_run_delay_ns(*delay_ns);
  t->set_wall_ns(wall_ns);
  return t;
}

// A worker that reports no thread CPU (one written before it): its process CPU stands in.
TEST(WindowMerge, ASaturatedWorkerIsFlagged) {
  auto busy = part(10, 1, 2, 1000, /*cpu_ns=*/950'000'000);
  auto rep = merge_window({busy}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok());
  EXPECT_NEAR(rep->worker_cpu_utilization, 0.95, 1e-9);
  EXPECT_TRUE(has_flag(*rep, "worker_saturated"));
  EXPECT_FALSE(rep->worker_cpu_wait_share.has_value());
}

// Four load threads on two cores: the process uses 50% of its threads' capacity, so the
// process figure never fires, but one thread ran 95% of the window (docs/MEASUREMENT.md
// "Flags").
TEST(WindowMerge, OneThreadAtNinetyPercentOfTheWindowSaturatesItsWorker) {
  auto r = part(10, 1, 2, 1000, /*cpu_ns=*/2'000'000'000);
  r.set_threads(4);
  add_thread(r, 950'000'000, 0);
  for (int t = 0; t < 3; ++t) add_thread(r, 350'000'000, 0);
  auto rep = merge_window({r}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_NEAR(rep->worker_cpu_utilization, 0.95, 1e-9);
  EXPECT_TRUE(has_flag(*rep, "worker_saturated"));
  EXPECT_FALSE(has_flag(*rep, "worker_cpu_starved"));
  auto idle = part(10, 1, 2, 1000, /*cpu_ns=*/100'000'000);
  add_thread(idle, 890'000'000, 0);
  rep = merge_window({idle}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok());
  EXPECT_FALSE(has_flag(*rep, "worker_saturated"));
}

// A thread that waited for a CPU for a tenth of the window was starved, though it used little.
TEST(WindowMerge, AThreadThatWaitedForACpuIsFlaggedStarved) {
  auto r = part(10, 1, 2, 1000, /*cpu_ns=*/300'000'000);
  add_thread(r, 300'000'000, 100'000'000);
  auto rep = merge_window({r}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok());
  ASSERT_TRUE(rep->worker_cpu_wait_share.has_value());
  EXPECT_NEAR(*rep->worker_cpu_wait_share, 0.1, 1e-9);
  EXPECT_TRUE(has_flag(*rep, "worker_cpu_starved"));
  EXPECT_FALSE(has_flag(*rep, "worker_saturated"));
  // A run delay a thread could not read is not measured, never 0.
  auto unknown = part(10, 1, 2, 1000, 300'000'000);
  add_thread(unknown, 300'000'000, std::nullopt);
  rep = merge_window({unknown}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok());
  EXPECT_FALSE(rep->worker_cpu_wait_share.has_value());
  EXPECT_FALSE(has_flag(*rep, "worker_cpu_starved"));
}

// The rule on its own: more than 1% of the schedule written late, or more than 1% still
// unwritten at the window's end (docs/MEASUREMENT.md "Flags"); exactly 1% is kept.
TEST(WindowMerge, TheRateIsNotKeptPastOnePercentOfTheScheduleLateOrUnwritten) {
  EXPECT_FALSE(rate_not_kept(1000, 0, 0));
  EXPECT_FALSE(rate_not_kept(1000, 10, 10));
  EXPECT_TRUE(rate_not_kept(1000, 11, 0));
  EXPECT_TRUE(rate_not_kept(1000, 0, 11));
  EXPECT_TRUE(rate_not_kept(1000, 1000, 1000));
}

// Two workers of an open loop at 2000 requests/s over a 1 s window: a schedule of 2000, of
// which both workers' late sends and unwritten requests are counted together.
TEST(WindowMerge, AnOpenLoopBehindItsScheduleIsFlaggedRateNotKept) {
  auto a = part(1000, 1, 2, 1000);
  auto b = part(1000, 1, 2, 1000);
  a.set_late_sends(10);
  b.set_late_sends(10);
  auto rep = merge_window({a, b}, 0, 0, 1'000'000'000, {}, /*rate=*/2000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_FALSE(has_flag(*rep, "rate_not_kept"));  // 20 of 2000: 1%
  b.set_late_sends(11);
  rep = merge_window({a, b}, 0, 0, 1'000'000'000, {}, 2000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_TRUE(has_flag(*rep, "rate_not_kept"));
  a.set_late_sends(0);
  b.set_late_sends(0);
  a.set_unsent(21);
  rep = merge_window({a, b}, 0, 0, 1'000'000'000, {}, 2000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_TRUE(has_flag(*rep, "rate_not_kept"));
  // The same counts over a 2 s window are 21 of 4000.
  rep = merge_window({a, b}, 0, 0, 2'000'000'000, {}, 2000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_FALSE(has_flag(*rep, "rate_not_kept"));
  // A closed loop has no schedule to keep.
  rep = merge_window({a, b}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_FALSE(has_flag(*rep, "rate_not_kept"));
}

// A count the workers declared not measured is no count to judge.
TEST(WindowMerge, RateNotKeptJudgesOnlyTheCountsTheWorkersMeasured) {
  auto r = part(1000, 1, 2, 1000);
  r.set_late_sends(500);
  r.add_not_measured("late_sends");
  auto rep = merge_window({r}, 0, 0, 1'000'000'000, {}, 1000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_FALSE(has_flag(*rep, "rate_not_kept"));
  r.set_unsent(500);
  rep = merge_window({r}, 0, 0, 1'000'000'000, {}, 1000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_TRUE(has_flag(*rep, "rate_not_kept"));
}

// Throughput counts what completed inside the window; a worker without those counts makes
// the repetition fall back to the data window, and says so.
TEST(WindowMerge, SumsInWindowCountsOnlyWhenEveryWorkerSentThem) {
  auto a = part(100, 1, 2, 1000);
  a.mutable_in_window()->set_successes(90);
  a.mutable_in_window()->set_bytes_received(9000);
  a.mutable_in_window()->set_payload_bytes(1200);
  auto b = part(50, 1, 2, 1000);
  b.mutable_in_window()->set_successes(50);
  auto rep = merge_window({a, b}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok());
  EXPECT_TRUE(rep->in_window);
  EXPECT_EQ(rep->window_successes, 140u);
  EXPECT_EQ(rep->window_bytes_received, 9000u);
  EXPECT_EQ(rep->window_payload_bytes, 1200u);
  EXPECT_DOUBLE_EQ(rep->ops_per_second(), 140);
  EXPECT_FALSE(has_flag(*rep, "throughput_span"));
  // Each worker's share follows the same definition as the repetition's.
  ASSERT_EQ(rep->workers.size(), 2u);
  EXPECT_DOUBLE_EQ(rep->workers[0].ops_per_second, 90);
  EXPECT_DOUBLE_EQ(rep->workers[1].ops_per_second, 50);
  rep = merge_window({a, part(50, 1, 2, 1000)}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok());
  EXPECT_FALSE(rep->in_window);
  EXPECT_TRUE(has_flag(*rep, "throughput_span"));
  // Over each worker's own data window (1 ns here) when one worker lacks in-window counts.
  EXPECT_DOUBLE_EQ(rep->workers[0].ops_per_second, 100e9);
}

// Each worker's share keeps its median too (the per-worker table's p50).
TEST(WindowMerge, EachWorkerKeepsItsMedian) {
  auto rep = merge_window({part(10, 1, 2, 1000), part(10, 1, 2, 3000)}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok());
  ASSERT_EQ(rep->workers.size(), 2u);
  EXPECT_EQ(rep->workers[0].p50_ns, rep->latency.highest_equivalent_value(1000));
  EXPECT_EQ(rep->workers[1].p50_ns, rep->latency.highest_equivalent_value(3000));
  // The starts are record_starts' (start_sync.h): merging alone claims none.
  EXPECT_TRUE(rep->worker_start_skew_ns.empty());
  EXPECT_FALSE(rep->start_spread_ns);
}

// The V2 encoding cannot carry how many values were clamped; the result field does.
TEST(WindowMerge, ClampedLatenciesReachTheRepetition) {
  auto a = part(10, 1, 2, 1000);
  a.set_latency_clamped(2);
  auto b = part(10, 1, 2, 1000);
  b.set_latency_clamped(1);
  auto rep = merge_window({a, b}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok());
  EXPECT_EQ(rep->latency_clamped, 3u);
  EXPECT_TRUE(has_flag(*rep, "latency_clamped"));
}

// Exact merging needs one layout; another is rejected with its layout named (as worker-check
// does), never re-bucketed.
TEST(WindowMerge, AHistogramOfAnotherLayoutIsRejected) {
  auto other = part(10, 1, 2, 1000);
  HdrHistogram h(1, 1'000'000'000, 2);
  h.record_n(1000, 10);
  auto blob = h.encode_compressed();
  other.mutable_latency()->set_hdr_v2_compressed(std::string(blob.begin(), blob.end()));
  auto rep = merge_window({part(10, 1, 2, 1000), other}, 0, 0, 1'000'000'000);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.message().find("worker 1 sent a latency histogram of another layout: "
                               "1..1000000000 ns with 2 digits"),
            std::string::npos)
      << rep.message();
}

// The header declares 2 digits, the counts were bucketed for 3 and do not fit: the layout is
// what the worker must change, so it is what the message names.
TEST(WindowMerge, AHistogramOfAnotherLayoutIsNamedEvenWhenItsCountsDoNotFitIt) {
  auto other = part(10, 1, 2, 1000);
  HdrHistogram h;
  h.record_n(1'000'000'000, 10);
  auto raw = h.encode_uncompressed();
  raw[15] = 2;  // significant digits: the big-endian int32 at offset 12
  other.mutable_latency()->set_hdr_v2_compressed(std::string(raw.begin(), raw.end()));
  auto rep = merge_window({part(10, 1, 2, 1000), other}, 0, 0, 1'000'000'000);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.message().find("worker 1 sent a latency histogram of another layout: "
                               "1..3600000000000 ns with 2 digits, not 1..3600000000000 ns with 3 "
                               "digits"),
            std::string::npos)
      << rep.message();
}

TEST(WindowMerge, AHistogramThatDisagreesWithTheCountsIsAnError) {
  auto bad = part(10, 1, 2, 1000);
  bad.set_operations(11);
  bad.set_successes(11);
  auto rep = merge_window({bad}, 0, 0, 1'000'000'000);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.message().find("in window 0, latency holds 10 samples but successes are 11"),
            std::string::npos)
      << rep.message();
}

TEST(WindowMerge, TheWorkerWhoseCountsDisagreeIsNamed) {
  auto bad = part(10, 1, 2, 1000);
  bad.set_successes(9);
  (*bad.mutable_errors())["status"] = 1;
  auto rep = merge_window({part(10, 1, 2, 1000), bad}, 0, 0, 1'000'000'000);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.message().find("worker 1 sent a malformed result: in window 0, latency holds 10 "
                               "samples but successes are 9 (one sample per success)"),
            std::string::npos)
      << rep.message();
}

// A worker that triples its operations and reports no error must not make "errors 0".
TEST(WindowMerge, FailedOperationsThatNoErrorCountsAreRefused) {
  auto liar = part(100, 1, 2, 1000);
  liar.set_operations(300);
  auto rep = merge_window({part(10, 1, 2, 1000), liar}, 0, 0, 1'000'000'000);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.message().find("worker 1 sent a malformed result: in window 0, errors add up to 0 "
                               "but 200 of 300 operations failed"),
            std::string::npos)
      << rep.message();
  (*liar.mutable_errors())["timeout"] = 150;
  rep = merge_window({liar}, 0, 0, 1'000'000'000);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.message().find("errors add up to 150 but 200"), std::string::npos) << rep.message();
  (*liar.mutable_errors())["reset"] = 50;
  rep = merge_window({liar}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_EQ(rep->error_count(), 200u);
  // A kind the worker cannot detect, declared: the shortfall is that kind's.
  liar.clear_errors();
  liar.add_not_measured("errors.connect");
  rep = merge_window({liar}, 0, 0, 1'000'000'000);
  EXPECT_TRUE(rep.ok()) << rep.message();
}

TEST(WindowMerge, MoreSuccessesThanOperationsAreRefused) {
  auto liar = part(10, 1, 2, 1000);
  liar.set_operations(4);
  auto rep = merge_window({liar}, 0, 0, 1'000'000'000);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.message().find("worker 0 sent a malformed result: in window 0, successes 10 > "
                               "operations 4"),
            std::string::npos)
      << rep.message();
}

// Throughput counts in_window: a worker that claims more there than it completed at all
// would inflate ops/s (and bytes/s, payload/s).
TEST(WindowMerge, InWindowCountsBeyondTheWholeWindowAreRefused) {
  auto liar = part(100, 1, 2, 1000);  // 10000 bytes received
  liar.mutable_in_window()->set_successes(300);
  auto rep = merge_window({part(10, 1, 2, 1000), liar}, 0, 0, 1'000'000'000);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.message().find("worker 1 sent a malformed result: in window 0, "
                               "in_window.successes 300 exceed successes 100"),
            std::string::npos)
      << rep.message();
  liar.mutable_in_window()->set_successes(100);
  liar.mutable_in_window()->set_bytes_received(20000);
  rep = merge_window({liar}, 0, 0, 1'000'000'000);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.message().find("in_window.bytes_received 20000 exceed bytes_received 10000"),
            std::string::npos)
      << rep.message();
  liar.mutable_in_window()->set_bytes_received(10000);
  liar.mutable_in_window()->set_payload_bytes(10001);
  rep = merge_window({liar}, 0, 0, 1'000'000'000);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.message().find("in_window.payload_bytes 10001 exceed in_window.bytes_received "
                               "10000"),
            std::string::npos)
      << rep.message();
  liar.mutable_in_window()->set_payload_bytes(10000);
  rep = merge_window({liar}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_DOUBLE_EQ(rep->ops_per_second(), 100);
}

TEST(WindowMerge, ErrorsOfAKindTheProtocolDoesNotDefineAreRefused) {
  auto liar = part(10, 1, 2, 1000);
  liar.set_operations(13);
  (*liar.mutable_errors())["frobnicated"] = 3;
  auto rep = merge_window({part(10, 1, 2, 1000), liar}, 0, 0, 1'000'000'000);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.message().find(
                "worker 1 sent a malformed result: in window 0, errors of a kind "
                "the protocol does not define: 'frobnicated' (the kinds: connect, timeout, "),
            std::string::npos)
      << rep.message();
  liar.clear_errors();
  (*liar.mutable_errors())["timeout"] = 3;
  rep = merge_window({liar}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_EQ(rep->errors.at("timeout"), 3u);
}

// not_measured names fields only, by run as by worker-check (workers/result_checks.h): a name
// that is no field would otherwise reach the reports as a figure "not measured".
TEST(WindowMerge, NotMeasuredNamesThatAreNoFieldAreRefused) {
  auto liar = part(10, 1, 2, 1000);
  liar.add_not_measured("cpu");
  liar.add_not_measured("throughput");
  auto rep = merge_window({part(10, 1, 2, 1000), liar}, 0, 0, 1'000'000'000);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.message().find(
                "worker 1 sent a malformed result: in window 0, not_measured names "
                "no field a worker may leave unmeasured: 'throughput' (the fields: bytes_sent, "),
            std::string::npos)
      << rep.message();
  liar.clear_not_measured();
  liar.add_not_measured("cpu");
  rep = merge_window({liar}, 0, 0, 1'000'000'000);
  ASSERT_TRUE(rep.ok()) << rep.message();
  EXPECT_FALSE(rep->measured("cpu"));
}

// After worker 0 was lost, the parts are those of the workers left: each is named and shared
// under its own index, not its place among them.
TEST(WindowMerge, EachPartKeepsTheIndexOfItsWorker) {
  auto rep = merge_window({part(10, 1, 2, 1000)}, 0, 0, 1'000'000'000, {1});
  ASSERT_TRUE(rep.ok()) << rep.message();
  ASSERT_EQ(rep->workers.size(), 1u);
  EXPECT_EQ(rep->workers[0].worker, 1u);
  auto broken = part(10, 1, 2, 1000);
  broken.set_successes(11);
  broken.set_operations(11);
  rep = merge_window({part(10, 1, 2, 1000), broken}, 0, 0, 1'000'000'000, {1, 2});
  ASSERT_FALSE(rep.ok());
  EXPECT_EQ(rep.message().rfind("worker 2 sent a malformed result: in window 0, latency holds 10 "
                                "samples but successes are 11 (one sample per success)",
                                0),
            0u)
      << rep.message();
}

// A custom worker may report any uint64: a sum of the workers' counts past 2^64 - 1 would wrap
// round to a small figure that passes for a measurement, so it is refused naming the field and
// the worker that sent the largest figure into the sum, whichever was added last.
TEST(WindowMerge, ACountSummedPastItsTypeIsAMalformedResultNotAWrappedFigure) {
  auto a = part(10, 1, 2, 1000);
  auto b = part(10, 1, 2, 1000);
  a.set_bytes_sent(std::numeric_limits<uint64_t>::max() - 5);
  b.set_bytes_sent(10);
  auto rep = merge_window({a, b}, 0, 0, 1'000'000'000, {3, 4});
  ASSERT_FALSE(rep.ok()) << "bytes_sent summed to " << rep->bytes_sent;
  EXPECT_EQ(rep.message(),
            "worker 3 sent a malformed result: in window 0, bytes_sent 18446744073709551610 takes "
            "the workers' sum of bytes_sent past 18446744073709551615 (no measured figure is that "
            "large)");
  rep = merge_window({b, a}, 0, 0, 1'000'000'000, {4, 3});
  ASSERT_FALSE(rep.ok());
  EXPECT_EQ(rep.message().rfind("worker 3 sent a malformed result: in window 0, bytes_sent "
                                "18446744073709551610 takes",
                                0),
            0u)
      << rep.message();
  // One worker's error kinds together: each kind fits, their total (error_count) would not.
  auto errors = part(0, 0, 0, 1000);
  errors.set_operations(std::numeric_limits<uint64_t>::max());
  (*errors.mutable_errors())["status"] = std::numeric_limits<uint64_t>::max();
  (*errors.mutable_errors())["timeout"] = 2;
  rep = merge_window({errors}, 0, 0, 1'000'000'000);
  ASSERT_FALSE(rep.ok()) << "errors summed to " << rep->error_count();
  EXPECT_EQ(rep.message().rfind("worker 0 sent a malformed result: in window 0, errors.", 0), 0u)
      << rep.message();
  EXPECT_NE(rep.message().find("takes the workers' sum of errors of every kind past "
                               "18446744073709551615"),
            std::string::npos)
      << rep.message();
  // An int64 sum (wamp_transfer's time) is refused as well, not overflowed.
  auto t1 = part(10, 1, 2, 1000);
  auto t2 = part(10, 1, 2, 1000);
  t1.mutable_transfer()->set_data_ns(std::numeric_limits<int64_t>::max());
  t2.mutable_transfer()->set_data_ns(1);
  rep = merge_window({t1, t2}, 0, 0, 1'000'000'000);
  ASSERT_FALSE(rep.ok());
  EXPECT_EQ(rep.message(),
            "worker 0 sent a malformed result: in window 0, transfer.data_ns 9223372036854775807 "
            "takes the workers' sum of transfer.data_ns past 9223372036854775807 (no measured "
            "figure is that large)");
}

// Each worker's histogram holds at most INT64_MAX samples (decoding checks it), two workers'
// together need not: their latency is refused as the counts are, where the merged histogram's
// total and buckets overflowed (UB) to negative figures.
TEST(WindowMerge, LatencySamplesSummedPastInt64AreAMalformedResult) {
  constexpr uint64_t kMany = (uint64_t{1} << 62) + (uint64_t{1} << 61);
  auto a = part(kMany, 1, 2, 1000);
  auto b = part(kMany, 1, 2, 1000);
  a.set_bytes_received(kMany);  // a byte each (part's 100 each wraps)
  b.set_bytes_received(kMany);
  auto rep = merge_window({a, b}, 0, 0, 1'000'000'000, {3, 4});
  ASSERT_FALSE(rep.ok()) << "latency merged to " << rep->latency.total_count() << " samples";
  EXPECT_EQ(rep.message(),
            "worker 3 sent a malformed result: in window 0, latency samples 6917529027641081856 "
            "takes the workers' sum of latency samples past 9223372036854775807 (no measured "
            "figure is that large)");
}

TEST(WindowMerge, AnUnreadableHistogramIsAnError) {
  auto bad = part(10, 1, 2, 1000);
  bad.mutable_latency()->set_hdr_v2_compressed("garbage");
  auto rep = merge_window({bad}, 0, 0, 1'000'000'000);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.message().find("worker 0"), std::string::npos);
}

}  // namespace
}  // namespace benchgate::engine
