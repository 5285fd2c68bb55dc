// The rule that a workload whose every operation failed failed (results/nothing_succeeded.h).
#include "orchestrator/results/nothing_succeeded.h"

#include <gtest/gtest.h>

namespace benchgate::results {
namespace {

Repetition failing(uint64_t operations, std::map<std::string, uint64_t> errors) {
  Repetition r;
  r.operations = operations;
  r.errors = std::move(errors);
  return r;
}

WorkloadResult workload_of(scenario::Protocol protocol, std::vector<Repetition> repetitions) {
  WorkloadResult w;
  w.spec.protocol = protocol;
  w.repetitions = std::move(repetitions);
  return w;
}

// Every request answered 500 in every repetition: the counts, summed, and the kind.
TEST(NothingSucceeded, EveryRequestFailedInEveryRepetitionNamesTheCountsAndTheKind) {
  auto w = workload_of(scenario::Protocol::kHttp1,
                       {failing(400, {{"status", 400}}), failing(400, {{"status", 400}}),
                        failing(400, {{"status", 400}})});
  EXPECT_EQ(nothing_succeeded_reason(w),
            "no request succeeded in 3 repetitions: 1200 requests, 1200 errors (status 1200)");
}

// Each repetition's counts fit (engine/window_merge.cc), their sums over repetitions need not:
// they stop at 2^64 - 1 rather than wrap round to "0 requests" and "status 0", and say so: a
// sum that stopped there is not an exact count.
TEST(NothingSucceeded, CountsOverRepetitionsDoNotWrapRound) {
  constexpr uint64_t kHalf = uint64_t{1} << 63;
  auto w = workload_of(scenario::Protocol::kHttp1,
                       {failing(kHalf, {{"status", kHalf}}), failing(kHalf, {{"status", kHalf}})});
  EXPECT_EQ(nothing_succeeded_reason(w),
            "no request succeeded in 2 repetitions: at least 18446744073709551615 requests, at "
            "least 18446744073709551615 errors (status at least 18446744073709551615)");
}

// One success in any repetition: the workload is judged by its figures, as before.
TEST(NothingSucceeded, OneSuccessInOneRepetitionIsNoFailure) {
  auto w = workload_of(scenario::Protocol::kHttp1,
                       {failing(400, {{"status", 400}}), failing(400, {{"status", 399}})});
  w.repetitions[1].successes = 1;
  EXPECT_EQ(nothing_succeeded_reason(w), "");
}

// The kinds by count, most first (ties by name), three of them, the rest counted.
TEST(NothingSucceeded, TheThreeMostFrequentKindsAreNamedAndTheRestCounted) {
  auto w = workload_of(scenario::Protocol::kHttp2,
                       {failing(10, {{"reset", 2}, {"timeout", 5}, {"status", 2}}),
                        failing(10, {{"short_read", 1}, {"connect", 0}, {"protocol", 1}})});
  EXPECT_EQ(nothing_succeeded_reason(w),
            "no request succeeded in 2 repetitions: 20 requests, 11 errors (timeout 5, reset 2, "
            "status 2 and 2 more kinds)");
}

// Failed connects belong to no request: nothing completed, yet the target refused every
// connection, and that fails the workload too.
TEST(NothingSucceeded, ErrorsWithoutOperationsAreNothingSucceeded) {
  auto w = workload_of(scenario::Protocol::kHttp1, {failing(0, {{"connect", 1}})});
  EXPECT_EQ(nothing_succeeded_reason(w),
            "no request succeeded in 1 repetition: 0 requests, 1 error (connect 1)");
}

// Each WAMP protocol names its own operation (docs/WORKER_PROTOCOL.md, WindowResult.operations).
TEST(NothingSucceeded, WampOperationsAreCallsEventsAndTransfers) {
  EXPECT_EQ(nothing_succeeded_reason(
                workload_of(scenario::Protocol::kWampRpc, {failing(1, {{"call_timeout", 1}})})),
            "no call succeeded in 1 repetition: 1 call, 1 error (call_timeout 1)");
  EXPECT_EQ(nothing_succeeded_reason(
                workload_of(scenario::Protocol::kWampPubSub, {failing(8, {{"lost", 8}})})),
            "no event succeeded in 1 repetition: 8 events, 8 errors (lost 8)");
  EXPECT_EQ(nothing_succeeded_reason(workload_of(scenario::Protocol::kWampTransfer,
                                                 {failing(2, {{"chunk_mismatch", 2}})})),
            "no transfer succeeded in 1 repetition: 2 transfers, 2 errors (chunk_mismatch 2)");
}

// expect_failures = true: failing is what the workload measures.
TEST(NothingSucceeded, ExpectFailuresKeepsAnAllFailingWorkloadOk) {
  auto w = workload_of(scenario::Protocol::kWampRpc, {failing(50, {{"canceled", 50}})});
  w.spec.expect_failures = true;
  EXPECT_EQ(nothing_succeeded_reason(w), "");
}

// Neither successes nor errors is the engine's "measured nothing", failed window by window;
// no repetition at all (a workload that never ran) has its own reason.
TEST(NothingSucceeded, NoErrorsOrNoRepetitionsAreNotThisRule) {
  EXPECT_EQ(nothing_succeeded_reason(
                workload_of(scenario::Protocol::kHttp1, {failing(0, {{"status", 0}})})),
            "");
  EXPECT_EQ(nothing_succeeded_reason(workload_of(scenario::Protocol::kHttp1, {})), "");
}

}  // namespace
}  // namespace benchgate::results
