// The worker-check rules for one window's result: a builtin-style result with a histogram, and
// an adapter-style result that declares what it could not measure and gives a tool's figures.
#include "orchestrator/workers/result_checks.h"

#include <gtest/gtest.h>

#include <limits>

#include "common/histogram/hdr_histogram.h"

namespace benchgate::workers {
namespace {

constexpr int64_t kStart = 1'700'000'000'000'000'000;
const WindowFacts kWindow{0, kStart, 1'000'000'000, 5'000'000'000};

std::vector<std::string> failed(const v1::WindowResult& result) {
  std::vector<std::string> out;
  for (const auto& outcome : check_window_result(result, kWindow)) {
    if (!outcome.passed) out.push_back(outcome.rule + " (" + outcome.detail + ")");
  }
  return out;
}

v1::WindowResult measured_result() {
  v1::WindowResult r;
  r.set_window(0);
  r.set_operations(3);
  r.set_successes(3);
  r.set_bytes_sent(300);
  r.set_bytes_received(600);
  r.set_first_send_unix_ns(kStart + 1000);
  r.set_last_receive_unix_ns(kStart + 900'000'000);
  r.set_cpu_user_ns(5);
  r.set_wall_ns(1'000'000'000);
  r.set_threads(1);
  HdrHistogram h;
  for (int64_t v : {1000, 2000, 3000}) h.record(v);
  const auto bytes = h.encode_compressed();
  r.mutable_latency()->set_hdr_v2_compressed(std::string(bytes.begin(), bytes.end()));
  return r;
}

v1::WindowResult adapter_result() {
  v1::WindowResult r = measured_result();
  r.clear_latency();
  r.set_bytes_sent(0);
  r.set_first_send_unix_ns(0);
  r.set_last_receive_unix_ns(0);
  for (const char* name : {"bytes_sent", "data_window", "latency", "errors.connect"}) {
    r.add_not_measured(name);
  }
  auto* tool = r.mutable_tool_latency();
  tool->set_tool("h2load nghttp2/1.52.0");
  tool->set_min_ns(900);
  tool->set_mean_ns(2000);
  tool->set_max_ns(3100);
  return r;
}

TEST(ResultChecks, AMeasuredResultPassesEveryRule) {
  EXPECT_TRUE(failed(measured_result()).empty())
      << testing::PrintToString(failed(measured_result()));
}

TEST(ResultChecks, AnAdapterResultThatDeclaresWhatItCouldNotMeasurePasses) {
  EXPECT_TRUE(failed(adapter_result()).empty()) << testing::PrintToString(failed(adapter_result()));
}

TEST(ResultChecks, UndeclaredMissingFiguresStillFail) {
  v1::WindowResult r = adapter_result();
  r.clear_not_measured();
  r.add_not_measured("latency");
  // bytes_sent 0 and an empty data window without saying they were not measured.
  const auto problems = failed(r);
  ASSERT_EQ(problems.size(), 2u) << testing::PrintToString(problems);
  EXPECT_NE(problems[0].find("data window lies inside"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("bytes counted"), std::string::npos) << problems[1];
}

TEST(ResultChecks, ToolLatencyMustNameTheToolAndBeOrdered) {
  v1::WindowResult r = adapter_result();
  r.mutable_tool_latency()->set_tool("");
  EXPECT_EQ(failed(r).size(), 1u);
  r = adapter_result();
  (*r.mutable_tool_latency()->mutable_percentiles_ns())["99"] = 5000;  // above max
  EXPECT_EQ(failed(r).size(), 1u);
}

// A tool's percentiles rise with the percentile, as a histogram's do (p50 <= p99 <= p99.9,
// between min and max): a p99 below the p50 fails the rule, naming both, though each lies
// between min and max. The keys are ordered as numbers ("100" after "50").
TEST(ResultChecks, ToolLatencyPercentilesMustRiseWithThePercentile) {
  v1::WindowResult r = adapter_result();
  auto& printed = *r.mutable_tool_latency()->mutable_percentiles_ns();
  printed["50"] = 2000;
  printed["99"] = 2900;
  printed["99.9"] = 3000;
  printed["100"] = 3100;
  EXPECT_TRUE(failed(r).empty()) << testing::PrintToString(failed(r));
  printed["99"] = 1500;
  auto problems = failed(r);
  ASSERT_EQ(problems.size(), 1u) << testing::PrintToString(problems);
  EXPECT_NE(problems[0].find("window 0: latency not measured as a histogram"), std::string::npos)
      << problems[0];
  EXPECT_NE(problems[0].find("tool_latency of 'h2load nghttp2/1.52.0' is out of order: p99 1500 "
                             "ns < p50 2000 ns"),
            std::string::npos)
      << problems[0];
  // Below min, and a key that is no percentile.
  r = adapter_result();
  (*r.mutable_tool_latency()->mutable_percentiles_ns())["50"] = 800;
  problems = failed(r);
  ASSERT_EQ(problems.size(), 1u) << testing::PrintToString(problems);
  EXPECT_NE(problems[0].find("p50 800 ns < min 900 ns"), std::string::npos) << problems[0];
  r = adapter_result();
  (*r.mutable_tool_latency()->mutable_percentiles_ns())["median"] = 2000;
  problems = failed(r);
  ASSERT_EQ(problems.size(), 1u) << testing::PrintToString(problems);
  EXPECT_NE(problems[0].find("'median' is no percentile"), std::string::npos) << problems[0];
}

TEST(ResultChecks, UnknownNotMeasuredNamesAreRefused) {
  v1::WindowResult r = adapter_result();
  r.add_not_measured("throughput");
  const auto problems = failed(r);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("not_measured names known fields"), std::string::npos);
}

// A worker that triples `operations` and reports no error would pass as "errors 0".
TEST(ResultChecks, FailedOperationsMustBeCountedAsErrors) {
  v1::WindowResult r = measured_result();
  r.set_operations(9);  // 3 successes: 6 operations failed, and no error says how
  auto problems = failed(r);
  ASSERT_EQ(problems.size(), 1u) << testing::PrintToString(problems);
  EXPECT_NE(problems[0].find("errors add up to at least operations - successes"), std::string::npos)
      << problems[0];
  EXPECT_NE(problems[0].find("errors add up to 0 but 6 of 9 operations failed"), std::string::npos)
      << problems[0];
  (*r.mutable_errors())["timeout"] = 5;
  EXPECT_EQ(failed(r).size(), 1u);
  // Every failure counted, and a failed reconnect besides (it belongs to no operation).
  (*r.mutable_errors())["status"] = 1;
  (*r.mutable_errors())["connect"] = 2;
  EXPECT_TRUE(failed(r).empty()) << testing::PrintToString(failed(r));
  // Counts that would wrap a 64-bit sum around are not few.
  r.clear_errors();
  (*r.mutable_errors())["timeout"] = ~uint64_t{0};
  (*r.mutable_errors())["status"] = 2;
  EXPECT_TRUE(failed(r).empty()) << testing::PrintToString(failed(r));
}

// The failures of a kind the worker cannot detect are missing from its errors, as declared.
TEST(ResultChecks, AShortfallIsAllowedWhenAnErrorKindIsDeclaredNotMeasured) {
  v1::WindowResult r = adapter_result();  // declares errors.connect not measured
  r.set_operations(9);
  EXPECT_TRUE(failed(r).empty()) << testing::PrintToString(failed(r));
  r = measured_result();
  r.set_operations(9);
  r.add_not_measured("errors.length");
  EXPECT_TRUE(failed(r).empty()) << testing::PrintToString(failed(r));
}

// Throughput is counted from in_window: a worker that claims more there than in the whole
// window inflates ops/s and bytes/s.
TEST(ResultChecks, InWindowCountsMayNotExceedTheWholeWindow) {
  v1::WindowResult r = measured_result();  // 3 successes, 600 bytes received
  r.mutable_in_window()->set_successes(3);
  r.mutable_in_window()->set_bytes_received(600);
  r.mutable_in_window()->set_payload_bytes(600);
  EXPECT_TRUE(failed(r).empty()) << testing::PrintToString(failed(r));
  const auto only = [](const v1::WindowResult& result, const std::string& expected) {
    const auto problems = failed(result);
    ASSERT_EQ(problems.size(), 1u) << testing::PrintToString(problems);
    EXPECT_NE(problems[0].find("in_window holds no more than the whole window"), std::string::npos)
        << problems[0];
    EXPECT_NE(problems[0].find(expected), std::string::npos) << problems[0];
  };
  r.mutable_in_window()->set_successes(7);
  only(r, "in_window.successes 7 exceed successes 3");
  r.mutable_in_window()->set_successes(3);
  r.mutable_in_window()->set_bytes_received(601);
  only(r, "in_window.bytes_received 601 exceed bytes_received 600");
  r.mutable_in_window()->set_bytes_received(500);
  only(r, "in_window.payload_bytes 600 exceed in_window.bytes_received 500");
  // A payload declared not measured is not compared.
  r.add_not_measured("payload_bytes");
  EXPECT_TRUE(failed(r).empty()) << testing::PrintToString(failed(r));
}

// A kind the protocol does not define is counted in no report's kind and would be summed into
// "errors" without meaning anything.
TEST(ResultChecks, ErrorsOfAKindTheProtocolDoesNotDefineAreRefused) {
  v1::WindowResult r = measured_result();
  r.set_operations(5);
  (*r.mutable_errors())["frobnicated"] = 2;
  auto problems = failed(r);
  ASSERT_EQ(problems.size(), 1u) << testing::PrintToString(problems);
  EXPECT_NE(problems[0].find("errors are counted under the protocol's kinds"), std::string::npos)
      << problems[0];
  EXPECT_NE(problems[0].find("errors of a kind the protocol does not define: 'frobnicated' (the "
                             "kinds: connect, timeout, status, length, short_read, mismatch, "
                             "protocol, reset, wamp_error, lost, not_sent, not_authorized, "
                             "chunk_mismatch, call_timeout, canceled, callee_error)"),
            std::string::npos)
      << problems[0];
  r.clear_errors();
  (*r.mutable_errors())["chunk_mismatch"] = 2;
  EXPECT_TRUE(failed(r).empty()) << testing::PrintToString(failed(r));
}

TEST(ResultChecks, NotMeasuredErrorKindsMustBeTheProtocolsAndCountNothing) {
  v1::WindowResult r = adapter_result();
  r.add_not_measured("errors.frobnicated");
  auto problems = failed(r);
  ASSERT_EQ(problems.size(), 2u) << testing::PrintToString(problems);
  EXPECT_NE(problems[0].find("'errors.frobnicated' in not_measured"), std::string::npos)
      << problems[0];
  EXPECT_NE(problems[1].find("not_measured names known fields"), std::string::npos) << problems[1];
  r = adapter_result();  // errors.connect not measured
  (*r.mutable_errors())["connect"] = 4;
  problems = failed(r);
  ASSERT_EQ(problems.size(), 1u) << testing::PrintToString(problems);
  EXPECT_NE(problems[0].find("errors.connect is declared not measured but counts 4"),
            std::string::npos)
      << problems[0];
}

// What a worker sent is quoted escaped and cut (common/util/shown_text.h): a tool name with an
// escape sequence and a line break, a percentile key of a megabyte, an error kind and a
// not_measured name with control characters reach neither the terminal nor the JSON report as
// they were (before: as sent, whole).
TEST(ResultChecks, AWorkersTextIsQuotedEscapedAndCut) {
  v1::WindowResult r = adapter_result();
  r.mutable_tool_latency()->set_tool("wrk\x1b[31m\nFORGED");
  const std::string huge(1 << 20, '7');
  (*r.mutable_tool_latency()->mutable_percentiles_ns())[huge] = 2000;
  std::string order = check_tool_latency_order(r.tool_latency());
  EXPECT_EQ(order, "tool_latency of 'wrk\\x1b[31m\\nFORGED': '" + huge.substr(0, 200) +
                       "...' is no percentile (a number above 0, at most 100)");
  auto problems = failed(r);
  ASSERT_EQ(problems.size(), 1u) << testing::PrintToString(problems);
  EXPECT_NE(problems[0].find("(tool 'wrk\\x1b[31m\\nFORGED', 1 percentiles"), std::string::npos)
      << problems[0];
  EXPECT_LT(problems[0].size(), 1000u);

  r = measured_result();
  r.set_operations(5);
  (*r.mutable_errors())["bad\x1b]0;t\x07"] = 2;
  r.add_not_measured("errors.x\ry");
  EXPECT_EQ(check_error_kinds(r).rfind("errors of a kind the protocol does not define: "
                                       "'bad\\x1b]0;t\\x07', 'errors.x\\ry' in not_measured",
                                       0),
            0u)
      << check_error_kinds(r);
  r = measured_result();
  r.add_not_measured("late\x1b[2J");
  r.add_not_measured(std::string(5000, 'n'));
  const std::string not_measured = check_not_measured(r);
  EXPECT_EQ(not_measured.rfind("not_measured names no field a worker may leave unmeasured: "
                               "'late\\x1b[2J', '" +
                                   std::string(200, 'n') + "...' (the fields: ",
                               0),
            0u)
      << not_measured;
  problems = failed(r);
  ASSERT_EQ(problems.size(), 1u) << testing::PrintToString(problems);
  EXPECT_EQ(problems[0].find('\x1b'), std::string::npos) << problems[0];
  EXPECT_LT(problems[0].size(), 2000u);
}

// A header that declares 2 significant digits over counts bucketed for 3: the counts do not fit
// the declared layout, and the message must still name the layout, not where the counts stop.
TEST(ResultChecks, AHistogramOfAnotherLayoutIsNamedByItsLayoutWhateverItsCounts) {
  HdrHistogram h;
  h.record_n(1'000'000'000, 3);
  auto raw = h.encode_uncompressed();
  raw[15] = 2;  // significant digits: the big-endian int32 at offset 12
  ASSERT_FALSE(HdrHistogram::decode(raw).ok());
  v1::WindowResult r = measured_result();  // 3 successes
  r.mutable_latency()->set_hdr_v2_compressed(std::string(raw.begin(), raw.end()));
  const auto problems = failed(r);
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems[0].find("latency histogram is HdrHistogram V2 (1 ns..1 h, 3 digits) (layout "
                             "is 1..3600000000000 ns with 2 digits, not 1..3600000000000 ns with "
                             "3 digits)"),
            std::string::npos)
      << problems[0];
}

// What `run` refuses (check_result) and the worker-check rule that fails with it: the rule's
// name (after "window 0: ") and its detail.
std::string failed_rule(const v1::WindowResult& result, const std::string& detail) {
  for (const auto& outcome : check_window_result(result, kWindow)) {
    if (!outcome.passed && outcome.detail.find(detail) != std::string::npos) return outcome.rule;
  }
  return "no rule failed with '" + detail + "': " + testing::PrintToString(failed(result));
}

TEST(ResultChecks, TheResultsEveryRulePassesAreAcceptedByRun) {
  EXPECT_EQ(check_result(measured_result(), kWindow), "");
  EXPECT_EQ(check_result(adapter_result(), kWindow), "");
}

TEST(ResultChecks, MoreSuccessesThanOperationsNameTheWindowAndBothFields) {
  v1::WindowResult r = measured_result();
  r.set_successes(5);
  EXPECT_EQ(check_result(r, kWindow), "in window 0, successes 5 > operations 3");
  EXPECT_EQ(failed_rule(r, "successes 5 > operations 3"),
            "window 0: operations > 0 and successes <= operations");
}

TEST(ResultChecks, NegativeCpuIsRefusedByRunAsByWorkerCheck) {
  v1::WindowResult r = measured_result();
  r.set_cpu_user_ns(-5);
  r.set_wall_ns(-1000);
  EXPECT_EQ(check_result(r, kWindow), "in window 0, cpu_user_ns -5 ns is negative");
  EXPECT_NE(failed_rule(r, "cpu_user_ns -5 ns is negative").find("CPU fields present"),
            std::string::npos);
  r.set_cpu_user_ns(5);
  r.set_cpu_system_ns(-1);
  EXPECT_EQ(check_result(r, kWindow), "in window 0, cpu_system_ns -1 ns is negative");
  r.set_cpu_system_ns(0);
  EXPECT_EQ(check_result(r, kWindow),
            "in window 0, wall_ns -1000 ns is not above 0 (the window's wall time, which the CPU "
            "is a share of)");
  r.set_wall_ns(1'000'000'000);
  r.set_threads(0);
  EXPECT_NE(check_result(r, kWindow).find("in window 0, threads 0: no load thread"),
            std::string::npos);
  // Declared not measured: none of it is looked at.
  r.set_cpu_user_ns(-5);
  r.add_not_measured("cpu");
  EXPECT_EQ(check_result(r, kWindow), "");
}

// No CPU at all is possible in `run` (a short window of little load on a coarse clock), not in
// worker-check's window of load.
TEST(ResultChecks, NoCpuAtAllFailsWorkerCheckOnly) {
  v1::WindowResult r = measured_result();
  r.set_cpu_user_ns(0);
  EXPECT_EQ(check_result(r, kWindow), "");
  ASSERT_EQ(failed(r).size(), 1u);
  EXPECT_NE(failed(r)[0].find("CPU fields present"), std::string::npos);
}

TEST(ResultChecks, AThreadsCpuAboveItsWallTimeIsRefused) {
  v1::WindowResult r = measured_result();
  auto* thread = r.add_thread_cpu();
  thread->set_wall_ns(1'000'000'000);
  thread->set_cpu_ns(50 * thread->wall_ns());
  thread->set_run_delay_ns(0);
  EXPECT_EQ(check_result(r, kWindow),
            "in window 0, thread_cpu[0].cpu_ns 50000000000 ns exceeds its wall_ns 1000000000 ns "
            "by more than 10 ms (a thread runs on one CPU at a time; 10 ms: a CPU clock's "
            "coarsest tick)");
  EXPECT_NE(failed_rule(r, "thread_cpu[0].cpu_ns").find("CPU fields present"), std::string::npos);
  // The 10 ms of a clock's tick are allowed, not one nanosecond more.
  thread->set_cpu_ns(thread->wall_ns() + kThreadCpuSlackNs);
  EXPECT_EQ(check_result(r, kWindow), "");
  thread->set_cpu_ns(thread->wall_ns() + kThreadCpuSlackNs + 1);
  EXPECT_NE(check_result(r, kWindow), "");
  thread->set_cpu_ns(-5);
  EXPECT_EQ(check_result(r, kWindow), "in window 0, thread_cpu[0].cpu_ns -5 ns is negative");
  thread->set_cpu_ns(5);
  thread->set_run_delay_ns(-1);
  EXPECT_EQ(check_result(r, kWindow), "in window 0, thread_cpu[0].run_delay_ns -1 ns is negative");
  thread->set_run_delay_ns(0);
  thread->set_wall_ns(-1000);
  EXPECT_EQ(check_result(r, kWindow), "in window 0, thread_cpu[0].wall_ns -1000 ns is negative");
}

TEST(ResultChecks, ADataWindowInSecondsIsRefused) {
  v1::WindowResult r = measured_result();
  r.set_first_send_unix_ns(kStart / 1'000'000'000);
  r.set_last_receive_unix_ns(kStart / 1'000'000'000 + 1);
  const std::string problem = check_result(r, kWindow);
  EXPECT_EQ(problem, "in window 0, first_send_unix_ns 1700000000 is " +
                         std::to_string(kStart - 1'700'000'000) +
                         " ns before the window's start, more than 1 h (ns since the Unix epoch, "
                         "CLOCK_REALTIME?)");
  EXPECT_EQ(failed_rule(r, "first_send_unix_ns 1700000000 is"),
            "window 0: data window lies inside the window and its drain");
  // An hour either side is a clock's disagreement, not a unit: `run` takes it.
  r.set_first_send_unix_ns(kStart - kClockDisagreementNs);
  r.set_last_receive_unix_ns(kStart + kWindow.duration_ns + kClockDisagreementNs);
  EXPECT_EQ(check_result(r, kWindow), "");
  r.set_last_receive_unix_ns(kStart + kWindow.duration_ns + kClockDisagreementNs + 1);
  EXPECT_NE(check_result(r, kWindow).find("last_receive_unix_ns"), std::string::npos);
}

TEST(ResultChecks, ADataWindowThatEndsBeforeItBeginsOrLacksAnInstantIsRefused) {
  v1::WindowResult r = measured_result();
  r.set_last_receive_unix_ns(kStart);
  EXPECT_EQ(check_result(r, kWindow), "in window 0, last_receive_unix_ns " +
                                          std::to_string(kStart) + " < first_send_unix_ns " +
                                          std::to_string(kStart + 1000) +
                                          " (the data window ends before it begins)");
  r.set_last_receive_unix_ns(0);
  EXPECT_NE(check_result(r, kWindow).find("an instant is missing (0)"), std::string::npos);
  // Declared not measured, the instants are left 0.
  r.add_not_measured("data_window");
  EXPECT_NE(check_result(r, kWindow).find("data_window is declared not measured, but"),
            std::string::npos);
  r.set_first_send_unix_ns(0);
  EXPECT_EQ(check_result(r, kWindow), "");
}

// Without an operation nothing was written: worker-check says so rather than print the
// distance from 0 to the start instant, and fails the window on its operations alone.
TEST(ResultChecks, AWindowWithoutOperationsHasNoDataWindowToJudge) {
  v1::WindowResult r = measured_result();
  r.set_operations(0);
  r.set_successes(0);
  r.clear_latency();
  r.set_first_send_unix_ns(0);
  r.set_last_receive_unix_ns(0);
  EXPECT_EQ(check_result(r, kWindow), "");
  for (const auto& outcome : check_window_result(r, kWindow)) {
    if (outcome.rule.find("data window") == std::string::npos) continue;
    EXPECT_TRUE(outcome.passed);
    EXPECT_EQ(outcome.detail, "none: no request was written (0 operations)");
  }
  EXPECT_EQ(failed_rule(r, "0 operations, 0 successes"),
            "window 0: operations > 0 and successes <= operations");
}

TEST(ResultChecks, AStartInMillisecondsIsRefused) {
  v1::WindowResult r = measured_result();
  r.set_started_unix_ns(kStart / 1'000'000);
  EXPECT_EQ(check_result(r, kWindow),
            "in window 0, started_unix_ns 1700000000000 is " +
                std::to_string(kStart - 1'700'000'000'000) +
                " ns before the window's start, more than 1 h (ns since the Unix epoch, "
                "CLOCK_REALTIME?)");
  EXPECT_EQ(failed_rule(r, "started_unix_ns 1700000000000 is"),
            "window 0: started_unix_ns (when reported) lies inside the window");
  // A minute off: another host's clock for `run`, a wrong start on worker-check's one host.
  r.set_started_unix_ns(kStart + 60'000'000'000);
  EXPECT_EQ(check_result(r, kWindow), "");
  EXPECT_EQ(failed_rule(r, "60000000000 ns after the start instant"),
            "window 0: started_unix_ns (when reported) lies inside the window");
  r.set_started_unix_ns(kStart + 20'000'000);
  EXPECT_TRUE(failed(r).empty()) << testing::PrintToString(failed(r));
}

// A worker may send any int64: the distance to the window is told exactly, never overflowed
// (INT64_MIN is 2^63 + kStart ns before it), and CPU figures near INT64_MAX are not summed.
TEST(ResultChecks, InstantsAndCpuAtTheEndsOfInt64AreToldWithoutOverflow) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  v1::WindowResult r = measured_result();
  r.set_first_send_unix_ns(kMin);
  EXPECT_EQ(check_result(r, kWindow),
            "in window 0, first_send_unix_ns -9223372036854775808 is " +
                std::to_string(uint64_t{1} << 63 | uint64_t{kStart}) +
                " ns before the window's start, more than 1 h (ns since the Unix epoch, "
                "CLOCK_REALTIME?)");
  r.set_first_send_unix_ns(kStart + 1000);
  r.set_started_unix_ns(kMax);
  EXPECT_EQ(check_result(r, kWindow),
            "in window 0, started_unix_ns 9223372036854775807 is " +
                std::to_string(kMax - kStart - kWindow.duration_ns) +
                " ns after the window's end, more than 1 h (ns since the Unix epoch, "
                "CLOCK_REALTIME?)");
  r.set_started_unix_ns(0);
  r.set_cpu_user_ns(kMax);
  r.set_cpu_system_ns(kMax);
  EXPECT_TRUE(failed(r).empty()) << testing::PrintToString(failed(r));
  r.set_cpu_user_ns(0);
  r.set_cpu_system_ns(0);
  (*r.mutable_errors())["status"] = std::numeric_limits<uint64_t>::max();
  (*r.mutable_errors())["reset"] = 2;
  // The errors worker-check prints saturate rather than wrap around to 1.
  for (const auto& outcome : check_window_result(r, kWindow)) {
    if (outcome.rule.find("errors add up") == std::string::npos) continue;
    EXPECT_EQ(outcome.detail, "18446744073709551615 errors, 0 operations failed");
  }
}

// With the clock exchange the start on the worker's own clock is known, so a started_worker_ns
// an hour or more from it is refused, and named a unit mistake when scaled it lies in the window.
TEST(ResultChecks, AStartOnTheWorkersClockInMillisecondsIsRefusedNamingTheUnit) {
  constexpr int64_t kOnWorker = 864'000'000'000'000;  // a machine up for 10 days
  WindowFacts window = kWindow;
  window.start_at_worker_ns = kOnWorker;
  v1::WindowResult r = measured_result();
  r.set_started_worker_ns(kOnWorker + 2'000'000);
  EXPECT_EQ(check_result(r, window), "");
  r.set_started_worker_ns((kOnWorker + 2'000'000) / 1'000'000);
  EXPECT_EQ(check_result(r, window),
            "in window 0, started_worker_ns 864000002 is " +
                std::to_string(kOnWorker - 864'000'002) +
                " ns before the window's start on the worker's clock (start_at_worker_ns " +
                std::to_string(kOnWorker) +
                "), more than 1 h; x 1000000 it lies in the window: milliseconds, not "
                "nanoseconds?");
  r.set_started_worker_ns(kOnWorker / 1'000);
  EXPECT_NE(check_result(r, window).find("; x 1000 it lies in the window: microseconds"),
            std::string::npos);
  // Merely wrong, in no unit: refused without a guess.
  r.set_started_worker_ns(kOnWorker / 7);
  EXPECT_EQ(check_result(r, window),
            "in window 0, started_worker_ns " + std::to_string(kOnWorker / 7) + " is " +
                std::to_string(kOnWorker - kOnWorker / 7) +
                " ns before the window's start on the worker's clock (start_at_worker_ns " +
                std::to_string(kOnWorker) +
                "), more than 1 h (ns of the clock start_at_worker_ns is on, CLOCK_MONOTONIC?)");
  r.set_started_worker_ns(std::numeric_limits<int64_t>::max());
  EXPECT_NE(check_result(r, window).find("ns after the window's end on the worker's clock"),
            std::string::npos);
  // No start sent on the worker's clock (no exchange, worker-check): nothing to judge it by.
  EXPECT_EQ(check_result(r, kWindow), "");
  // A clock read less than an hour after its epoch: a value in ms lies within the hour too.
  window.start_at_worker_ns = 1'800'000'000'000;
  r.set_started_worker_ns(1'800'000);
  EXPECT_EQ(check_result(r, window), "");
}

TEST(ResultChecks, EverySuccessReceivedAtLeastOneByte) {
  v1::WindowResult r = measured_result();  // 3 successes
  r.set_bytes_received(2);
  EXPECT_EQ(check_result(r, kWindow),
            "in window 0, bytes_received 2 < successes 3 (every success reads its answer: at "
            "least one byte each)");
  EXPECT_EQ(failed_rule(r, "bytes_received 2 < successes 3"),
            "window 0: bytes counted (unless declared not measured), at least one received per "
            "success");
  r.set_bytes_received(3);
  EXPECT_EQ(check_result(r, kWindow), "");
  r.set_bytes_received(0);
  r.add_not_measured("bytes_received");
  EXPECT_EQ(check_result(r, kWindow), "");
}

// Its errors may exceed its operations: a failed reconnect is an error of no operation.
TEST(ResultChecks, AProgressEventNamesItsWindowAndAnIntervalNotNegative) {
  v1::Progress p;
  p.set_window(2);
  p.set_interval_ns(100'000'000);
  p.set_operations(0);
  p.set_errors(5);
  EXPECT_EQ(check_progress(p, 2), "");
  EXPECT_EQ(check_progress(p, 1), "progress names window 2");
  p.set_interval_ns(-1);
  EXPECT_EQ(check_progress(p, 2), "progress interval_ns -1 ns is negative");
}

// One result per window, as `run` and worker-check both hold a stream to it: a second one is
// malformed wherever it comes (its own window, the next one, the clock exchange between), one
// of a window not running is named as such, and neither is taken.
TEST(ResultChecks, OneResultPerWindowNamesASecondResultAndOneOutOfTurn) {
  OneResultPerWindow results;
  EXPECT_EQ(results.take(0, 0), "");
  EXPECT_TRUE(results.answered(0));
  EXPECT_EQ(results.take(0, 0), "a malformed result: a second result for window 0");
  EXPECT_EQ(results.take(0, 1, /*between=*/true),
            "a malformed result: a second result for window 0");
  EXPECT_EQ(results.take(0, 1), "a malformed result: a second result for window 0");
  EXPECT_EQ(results.take(1, 1, /*between=*/true),
            "a result for window 1 while window 1 was running");
  EXPECT_EQ(results.take(7, 1), "a result for window 7 while window 1 was running");
  EXPECT_FALSE(results.answered(1));
  EXPECT_FALSE(results.answered(7));
  EXPECT_EQ(results.take(1, 1), "");
}

TEST(ResultChecks, ReadyCountsEveryConnectionAsked) {
  v1::Ready ready;
  ready.set_connections(0);
  EXPECT_EQ(check_ready(ready, 2),
            "ready counts 0 connections of the 2 asked (ready comes once every connection is "
            "established)");
  ready.set_connections(2);
  EXPECT_EQ(check_ready(ready, 2), "");
  ready.set_connections(3);  // a WAMP callee session of the worker's own
  EXPECT_EQ(check_ready(ready, 2), "");
}

// A worker that sends 100,000 names no rule knows makes messages of the first ten and how many
// more (common/util/shown_list.h): each name was cut and escaped, but the list was whole, a
// message of megabytes in the terminal, the JSON report and the stored run.
TEST(ResultChecks, AListOfAWorkersNamesIsCappedInCount) {
  v1::WindowResult r = measured_result();
  for (int i = 0; i < 100'000; ++i) r.add_not_measured("x" + std::to_string(i));
  const std::string not_measured = check_not_measured(r);
  EXPECT_EQ(not_measured.rfind("not_measured names no field a worker may leave unmeasured: 'x0', "
                               "'x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'x7', 'x8', 'x9' and 99990 "
                               "more (the fields: ",
                               0),
            0u)
      << not_measured.substr(0, 1000);
  for (const RuleOutcome& outcome : check_window_result(r, kWindow)) {
    EXPECT_LT(outcome.detail.size(), 2000u)
        << outcome.rule << ": " << outcome.detail.substr(0, 500);
  }

  r = measured_result();
  for (int i = 0; i < 100'000; ++i) (*r.mutable_errors())["kind" + std::to_string(i)] = 1;
  r.set_operations(r.successes() + 100'000);
  const std::string kinds = check_error_kinds(r);
  EXPECT_NE(kinds.find(" and 99990 more (the kinds: "), std::string::npos) << kinds.substr(0, 1000);
  EXPECT_LT(kinds.size(), 2000u);
}

}  // namespace
}  // namespace benchgate::workers
