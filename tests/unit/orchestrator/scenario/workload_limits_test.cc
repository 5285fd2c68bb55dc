// The bundled worker's limits (common/workload/workload_limits.h) are the loader's too: a value
// past one is refused at load time, at its key, with the value and the limit, instead of being
// accepted by `validate` and refused by the worker after the run has started (exit 3, a failed
// run stored). A value at the limit is accepted.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/units/units.h"
#include "common/workload/decimal_text.h"
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
                                     "limit of worker processes, as for --workers), got 100000"});
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
                "s.toml:4:17: error: workload 'w': request_bytes x in_flight must be at most "
                "256MiB (268435456 bytes), got \"2MiB\" (2097152 bytes) x 200: the bundled worker "
                "writes a connection's pipelined requests from one buffer"});
  const auto five_tb = limits_refusals("request_bytes = \"5TB\"\n");
  ASSERT_EQ(five_tb.size(), 1u);
  EXPECT_NE(five_tb[0].find("got \"5TB\" (5000000000000 bytes) x 1"), std::string::npos)
      << five_tb[0];
  const auto swept = limits_refusals("sweep = { request_bytes = [1, \"300MiB\"] }\n");
  ASSERT_EQ(swept.size(), 1u);
  EXPECT_NE(swept[0].find("s.toml:4:31: error: sweep value: request_bytes x in_flight must be at "
                          "most 256MiB (268435456 bytes), got \"300MiB\" (314572800 bytes) x 1"),
            std::string::npos)
      << swept[0];
}

TEST(WorkloadLimits, ARateNoConnectionCanKeepOrSoSlowItOverflowsTheScheduleIsRefused) {
  // 1e15 was run, and reported 999999999482377 errors.
  EXPECT_EQ(
      limits_refusals("rate = 1e15\n"),
      std::vector<std::string>{
          "s.toml:4:1: error: workload 'w': rate (1000000000000000/s) over connections (1) is "
          "1000000000000000/s per connection; the bundled worker schedules from 0.000001 to "
          "1000000/s per connection: use more connections or a lower rate"});
  const auto slow = limits_refusals("rate = 1e-300\n");
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_NE(slow[0].find("use a higher rate or fewer connections"), std::string::npos) << slow[0];
  // Each swept number of connections divides the rate anew.
  const auto swept =
      limits_refusals("rate = 4e6\nconnections = 8\nsweep = { connections = [2, 4] }\n");
  ASSERT_EQ(swept.size(), 1u);
  EXPECT_NE(swept[0].find("s.toml:6:26: error: sweep value: rate (4000000/s) over connections (2)"),
            std::string::npos)
      << swept[0];
}

TEST(WorkloadLimits, MoreConnectionsThanOneWorkerOpensAreRefused) {
  EXPECT_EQ(limits_refusals("connections = 3000000000\n"),
            std::vector<std::string>{
                "s.toml:4:1: error: workload 'w': connections (3000000000) over workers (1) give a "
                "worker 3000000000 sessions; the bundled worker opens at most 1044480 (a file "
                "descriptor each, within Linux's default fs.nr_open of 1048576 with room for its "
                "threads' and its own): use more workers or fewer connections"});
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
            "most 1044480, the most sessions the bundled worker opens (a file descriptor each)");
}

TEST(WorkloadLimits, ASweepOverConnectionsChecksEachSweptValueNotTheWorkloadsOwn) {
  // The workload's own connections (1 by default) is never run: rate = 4e6 over it was refused
  // although every swept value holds the rate to 1000000/s per connection or less.
  LoadResult swept = test_support::load_hermetic(
      limits_scenario("rate = 4e6\nthreads = 4\nsweep = { connections = [4, 8] }\n"));
  EXPECT_TRUE(swept.ok()) << test_support::diagnostics_text(swept);
  // Each swept value is still held to the rate per connection and to a worker's sessions.
  EXPECT_EQ(limits_refusals("rate = 4e6\nsweep = { connections = [2, 4] }\n"),
            std::vector<std::string>{
                "s.toml:5:26: error: sweep value: rate (4000000/s) over connections (2) is "
                "2000000/s per connection; the bundled worker schedules from 0.000001 to "
                "1000000/s per connection: use more connections or a lower rate"});
  const auto too_many = limits_refusals("sweep = { connections = [1, 1044481] }\n");
  ASSERT_EQ(too_many.size(), 1u);
  EXPECT_NE(too_many[0].find("s.toml:4:29: error: sweep value: connections (1044481)"),
            std::string::npos)
      << too_many[0];
}

TEST(WorkloadLimits, AWorkersCalleeSessionsCountAmongItsSessions) {
  // Each worker opens callee_sessions callees beside its share of the connections.
  const std::string rpc =
      "protocol = \"wamp_rpc\"\ncallee = \"worker\"\ninvoke = \"roundrobin\"\n"
      "callee_sessions = 1024\n";
  EXPECT_EQ(limits_refusals(rpc + "connections = 1043457\n"),
            std::vector<std::string>{
                "s.toml:8:1: error: workload 'w': connections (1043457) over workers (1) and "
                "callee_sessions (1024) on each give a worker 1044481 sessions; the bundled "
                "worker opens at most 1044480 (a file descriptor each, within Linux's default "
                "fs.nr_open of 1048576 with room for its threads' and its own): use more workers "
                "or fewer connections"});
  const auto swept = limits_refusals(rpc + "sweep = { connections = [1, 1043457] }\n");
  ASSERT_EQ(swept.size(), 1u);
  EXPECT_NE(swept[0].find("sweep value: connections (1043457) over workers (1) and "
                          "callee_sessions (1024) on each give a worker 1044481 sessions"),
            std::string::npos)
      << swept[0];
}

TEST(WorkloadLimits, TheDefaultNrOpenIsNoWorkersLimitOfConnections) {
  // 2^20 connections and the worker's own descriptors cannot fit RLIMIT_NOFILE under the
  // default fs.nr_open (2^20): the worker refused them after the run had started.
  const auto refused = limits_refusals("connections = 1048576\n");
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_NE(refused[0].find("give a worker 1048576 sessions; the bundled worker opens at most "
                            "1044480"),
            std::string::npos)
      << refused[0];
  EXPECT_EQ(workload_limits::kMaxConnectionsPerWorker +
                workload_limits::kMaxThreads * workload_limits::kDescriptorsPerLoadThread +
                workload_limits::kProcessDescriptorReserve,
            workload_limits::kDefaultMaxDescriptors);
}

TEST(WorkloadLimits, AnInvalidPublishersIsBlamedAloneNotCheckedAgainstTheRate) {
  // publishers = 0 left the default 1 in place, and the rate was refused over it as well.
  const auto refused = limits_refusals("protocol = \"wamp_pubsub\"\npublishers = 0\nrate = 4e6\n");
  ASSERT_EQ(refused.size(), 1u) << refused.back();
  EXPECT_NE(refused[0].find("s.toml:5:14: error: key 'publishers'"), std::string::npos)
      << refused[0];
}

TEST(WorkloadLimits, LimitsAndRatesInMessagesAreWrittenAsTheDocsWriteThem) {
  EXPECT_EQ(workload_limits::decimal_text(1e6), "1000000");
  EXPECT_EQ(workload_limits::decimal_text(1e-6), "0.000001");
  EXPECT_EQ(workload_limits::decimal_text(1000000.5), "1000000.5");
  EXPECT_EQ(workload_limits::decimal_text(0.1), "0.1");
  EXPECT_EQ(workload_limits::decimal_text(1e-300), "1e-300");
  EXPECT_EQ(workload_limits::decimal_text(1e300), "1e+300");
}

TEST(WorkloadLimits, AnExpectedBodyLengthPastTheProtocolsInt64IsRefused) {
  // 10^19 bytes reached the worker as a negative length, which it refused after the start.
  EXPECT_EQ(limits_refusals("expect_body_bytes = \"10000000TB\"\n"),
            std::vector<std::string>{
                "s.toml:4:21: error: key 'expect_body_bytes' must be at most 9223372036854775807 "
                "(the worker protocol's 64-bit length), got \"10000000TB\" (10000000000000000000 "
                "bytes)"});
  EXPECT_TRUE(
      test_support::load_hermetic(limits_scenario("expect_body_bytes = 9223372036854775807\n"))
          .ok());
}

TEST(WorkloadLimits, ValuesAtTheLimitsAreAccepted) {
  using namespace workload_limits;
  for (const std::string keys : {
           "in_flight = 4096\nrequest_bytes = \"64KiB\"\n",
           "request_bytes = \"256MiB\"\n",
           "threads = 1024\nworkers = 1024\nconnections = 1069547520\n",
           "connections = 1044480\nrate = 1e6\n",
           "workers = 2\nconnections = 2088960\n",
           "protocol = \"wamp_rpc\"\ncallee = \"worker\"\ninvoke = \"roundrobin\"\n"
           "callee_sessions = 1024\nconnections = 1043456\n",
           "rate = 0.000001\n",
           "protocol = \"wamp_pubsub\"\npublishers = 522240\nsubscribers = 522240\n"
           "rate = 522240e6\n",
       }) {
    LoadResult r = test_support::load_hermetic(limits_scenario(keys));
    EXPECT_TRUE(r.ok()) << keys << test_support::diagnostics_text(r);
  }
}

// A duration limit is written from its constant (format_duration_ns), not beside it by hand: the
// text a refusal names is the one the constant makes, and it reads back as the constant, so that
// the value it names is one the key takes.
TEST(WorkloadLimits, ADurationLimitIsNamedAsItsConstantReadsBack) {
  using namespace workload_limits;
  struct Case {
    std::string keys;  // the key past its limit is the last one, on line 6 or 7
    std::string key;
    int64_t limit_ns;
    std::string got;
  };
  const std::string rpc = "protocol = \"wamp_rpc\"\n";
  for (const Case& c : {
           Case{rpc + "callee = \"worker\"\ncallee_delay = \"61s\"\n", "callee_delay",
                kMaxCalleeDelayNs, "61s"},
           Case{rpc + "cancel_after = \"2m\"\n", "cancel_after", kMaxCalleeDelayNs, "120s"},
           Case{rpc + "call_timeout = \"2h\"\n", "call_timeout", kMaxCallTimeoutNs, "7200s"},
       }) {
    const std::string limit = format_duration_ns(static_cast<double>(c.limit_ns));
    auto read_back = parse_duration_ns(limit);
    ASSERT_TRUE(read_back) << limit;
    EXPECT_EQ(*read_back, c.limit_ns) << limit;
    const auto lines = limits_refusals(c.keys);
    ASSERT_EQ(lines.size(), 1u) << c.keys;
    EXPECT_NE(
        lines[0].find(": error: key '" + c.key + "' must be at most " + limit + ", got " + c.got),
        std::string::npos)
        << lines[0];
  }
  EXPECT_EQ(format_duration_ns(static_cast<double>(kMaxCalleeDelayNs)), "60s");
  EXPECT_EQ(format_duration_ns(static_cast<double>(kMaxCallTimeoutNs)), "3600s");
}

}  // namespace
}  // namespace benchgate::scenario
