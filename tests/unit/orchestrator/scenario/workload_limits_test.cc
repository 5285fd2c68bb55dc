// The bundled worker's limits (common/workload/workload_limits.h) are the loader's too: a value
// past one is refused at load time, at its key, with the value and the limit, instead of being
// accepted by `validate` and refused by the worker after the run has started (exit 3, a failed
// run stored). A value at the limit is accepted.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/workload/workload_limits.h"
#include "orchestrator/scenario/scenario_loader.h"
#include "scenario_test_support.h"

namespace benchgate::scenario {
namespace {

// A workload of the given keys (from line 4 on).
std::string limits_scenario(const std::string& keys) {
  return "name = \"s\"\n[[workloads]]\nname = \"w\"\n" + keys;
}

std::vector<std::string> limits_refusals(const std::string& keys) {
  return test_support::diagnostic_lines(test_support::load_hermetic(limits_scenario(keys)));
}

TEST(WorkloadLimits, ACountPastTheBundledWorkersLimitIsRefusedAtItsValue) {
  EXPECT_EQ(limits_refusals("in_flight = 1000000000\n"),
            std::vector<std::string>{
                "s.toml:4:13: error: key 'in_flight' must be at most 4096 (the bundled worker's "
                "limit: it allocates a slot per request up front), got 1000000000"});
  EXPECT_EQ(limits_refusals("threads = 2000\n"),
            std::vector<std::string>{"s.toml:4:11: error: key 'threads' must be at most 1024 (the "
                                     "bundled worker's limit of load threads), got 2000"});
  EXPECT_EQ(limits_refusals("workers = 100000\n"),
            std::vector<std::string>{"s.toml:4:11: error: key 'workers' must be at most 1024 (the "
                                     "limit of worker processes, as --workers'), got 100000"});
  // [defaults] is held to the same limits.
  EXPECT_EQ(test_support::diagnostic_lines(test_support::load_hermetic(
                "name = \"s\"\n[defaults]\nin_flight = 4097\n[[workloads]]\nname = \"w\"\n")),
            std::vector<std::string>{
                "s.toml:3:13: error: key 'in_flight' must be at most 4096 (the bundled worker's "
                "limit: it allocates a slot per request up front), got 4097"});
}

TEST(WorkloadLimits, ARequestBodyTimesInFlightPastThePipelineBufferIsRefused) {
  EXPECT_EQ(limits_refusals("request_bytes = \"2MiB\"\nin_flight = 200\n"),
            std::vector<std::string>{
                "s.toml:4:17: error: workload 'w': request_bytes x in_flight (2097152 x 200) must "
                "be at most 256MiB (268435456 bytes): the bundled worker writes a connection's "
                "pipelined requests from one buffer"});
  const auto five_tb = limits_refusals("request_bytes = \"5TB\"\n");
  ASSERT_EQ(five_tb.size(), 1u);
  EXPECT_NE(five_tb[0].find("(5000000000000 x 1) must be at most 256MiB"), std::string::npos)
      << five_tb[0];
  const auto swept = limits_refusals("sweep = { request_bytes = [1, \"300MiB\"] }\n");
  ASSERT_EQ(swept.size(), 1u);
  EXPECT_NE(swept[0].find("s.toml:4:31: error: sweep value: request_bytes x in_flight"),
            std::string::npos)
      << swept[0];
}

TEST(WorkloadLimits, ARateNoConnectionCanKeepOrSoSlowItOverflowsTheScheduleIsRefused) {
  // 1e15 was run, and reported 999999999482377 errors.
  EXPECT_EQ(limits_refusals("rate = 1e15\n"),
            std::vector<std::string>{
                "s.toml:4:1: error: workload 'w': rate (1e+15/s) over connections (1) is "
                "1e+15/s per connection; the bundled worker schedules from 1e-06 to 1e+06/s per "
                "connection: use more connections or a lower rate"});
  const auto slow = limits_refusals("rate = 1e-300\n");
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_NE(slow[0].find("use a higher rate or fewer connections"), std::string::npos) << slow[0];
  // Each swept number of connections divides the rate anew.
  const auto swept =
      limits_refusals("rate = 4e6\nconnections = 8\nsweep = { connections = [2, 4] }\n");
  ASSERT_EQ(swept.size(), 1u);
  EXPECT_NE(swept[0].find("s.toml:6:26: error: sweep value: rate (4e+06/s) over connections (2)"),
            std::string::npos)
      << swept[0];
}

TEST(WorkloadLimits, MoreConnectionsThanOneWorkerOpensAreRefused) {
  EXPECT_EQ(limits_refusals("connections = 3000000000\n"),
            std::vector<std::string>{
                "s.toml:4:1: error: workload 'w': connections (3000000000) over workers (1) gives "
                "a worker 3000000000 connections; the bundled worker opens at most 1048576 (a "
                "file descriptor each): use more workers or fewer connections"});
  // The swept value is checked before it is narrowed to 32 bits (it was clamped to 2^32 - 1).
  const auto swept = limits_refusals("sweep = { connections = [1, 5000000000] }\n");
  ASSERT_EQ(swept.size(), 1u);
  EXPECT_NE(swept[0].find("s.toml:4:29: error: sweep value: connections (5000000000)"),
            std::string::npos)
      << swept[0];
  // Two counts whose sum passes 2^32.
  const auto pubsub = limits_refusals(
      "protocol = \"wamp_pubsub\"\npublishers = 3000000000\nsubscribers = 3000000000\n");
  ASSERT_EQ(pubsub.size(), 1u);
  EXPECT_EQ(pubsub[0],
            "s.toml:6:15: error: publishers + subscribers (3000000000 + 3000000000) must be at "
            "most 1048576, the most sessions the bundled worker opens (a file descriptor each)");
}

TEST(WorkloadLimits, AnExpectedBodyLengthPastTheProtocolsInt64IsRefused) {
  // 10^19 bytes reached the worker as a negative length, which it refused after the start.
  EXPECT_EQ(limits_refusals("expect_body_bytes = \"10000000TB\"\n"),
            std::vector<std::string>{
                "s.toml:4:21: error: key 'expect_body_bytes' must be at most 9223372036854775807 "
                "(the worker protocol's 64-bit length), got 10000000000000000000"});
  EXPECT_TRUE(
      test_support::load_hermetic(limits_scenario("expect_body_bytes = 9223372036854775807\n"))
          .ok());
}

TEST(WorkloadLimits, ValuesAtTheLimitsAreAccepted) {
  using namespace workload_limits;
  for (const std::string keys : {
           "in_flight = 4096\nrequest_bytes = \"64KiB\"\n",
           "request_bytes = \"256MiB\"\n",
           "threads = 1024\nworkers = 1024\nconnections = 1048576\n",
           "connections = 1048576\nrate = 1e6\n",
           "workers = 2\nconnections = 2097152\n",
           "rate = 0.000001\n",
           "protocol = \"wamp_pubsub\"\npublishers = 524288\nsubscribers = 524288\n"
           "rate = 524288e6\n",
       }) {
    LoadResult r = test_support::load_hermetic(limits_scenario(keys));
    EXPECT_TRUE(r.ok()) << keys << test_support::diagnostics_text(r);
  }
}

}  // namespace
}  // namespace benchgate::scenario
