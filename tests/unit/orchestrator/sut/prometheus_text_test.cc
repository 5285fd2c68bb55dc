// The counters read out of a Prometheus text exposition: which samples count, how they are
// keyed, the values that are no count, and bad lines named by their number.
#include <gtest/gtest.h>

#include "orchestrator/sut/prometheus_text.h"

namespace benchgate::sut {
namespace {

ExposedCounters counters_of(std::string_view text) {
  auto read = parse_prometheus_counters(text);
  EXPECT_TRUE(read) << (read ? "" : read.error().headline());
  return read ? std::move(read).value() : ExposedCounters{};
}

std::string error_of(std::string_view text) {
  auto read = parse_prometheus_counters(text);
  EXPECT_FALSE(read);
  return read ? std::string() : read.error().headline();
}

TEST(PrometheusText, CountersAndHistogramCountsAreCountedGaugesAndUntypedAreNot) {
  const auto read = counters_of(
      "# HELP requests_total Requests served.\n"
      "# TYPE requests_total counter\n"
      "requests_total{code=\"200\"} 1027\n"
      "requests_total{code=\"500\"} 3\n"
      "# TYPE in_flight gauge\n"
      "in_flight 7\n"
      "untyped_total 5\n"
      "# TYPE latency_seconds histogram\n"
      "latency_seconds_bucket{le=\"0.1\"} 10\n"
      "latency_seconds_bucket{le=\"+Inf\"} 12\n"
      "latency_seconds_sum 1.5\n"
      "latency_seconds_count 12\n"
      "# TYPE rpc_seconds summary\n"
      "rpc_seconds{quantile=\"0.5\"} 0.25\n"
      "rpc_seconds_sum 4\n"
      "rpc_seconds_count 16\n");
  const std::map<std::string, uint64_t> expected{
      {"requests_total{code=200}", 1027},     {"requests_total{code=500}", 3},
      {"latency_seconds_bucket{le=0.1}", 10}, {"latency_seconds_bucket{le=+Inf}", 12},
      {"latency_seconds_count", 12},          {"rpc_seconds_count", 16}};
  EXPECT_EQ(read.counters, expected);
  EXPECT_TRUE(read.uncounted.empty());
}

TEST(PrometheusText, ACounterFamilyMayNameItsSamplesWithTotal) {
  // OpenMetrics' spelling: the TYPE line names the family, its sample adds _total.
  const auto read = counters_of("# TYPE jobs counter\njobs_total 4\n");
  EXPECT_EQ(read.counters, (std::map<std::string, uint64_t>{{"jobs_total", 4}}));
}

TEST(PrometheusText, LabelsAreSortedByNameAndTheirValuesUnescaped) {
  const auto read = counters_of(
      "# TYPE c counter\n"
      "c{z=\"last\", a=\"say \\\"hi\\\"\",m=\"back\\\\slash\\nnewline\",} 1\n");
  EXPECT_EQ(
      read.counters,
      (std::map<std::string, uint64_t>{{"c{a=say \"hi\",m=back\\slash\nnewline,z=last}", 1}}));
}

TEST(PrometheusText, CommentsBlankLinesCarriageReturnsAndTimestampsAreSkipped) {
  const auto read = counters_of(
      "# a free comment\r\n"
      "\r\n"
      "#TYPE c counter\r\n"
      "  c\t 12   1700000000000\r\n"
      "# TYPE d counter\n"
      "d 3e2 -5\n");
  EXPECT_EQ(read.counters, (std::map<std::string, uint64_t>{{"c", 12}, {"d", 300}}));
}

TEST(PrometheusText, ACounterWhoseValueIsNoCountIsUncountedNotZero) {
  const auto read = counters_of(
      "# TYPE c counter\n"
      "c{v=\"nan\"} NaN\n"
      "c{v=\"inf\"} +Inf\n"
      "c{v=\"nan, as prometheus-cpp writes it\"} Nan\n"
      "c{v=\"-inf\"} -infinity\n"
      "c{v=\"fraction\"} 2.5\n"
      "c{v=\"negative\"} -1\n"
      "c{v=\"huge\"} 1e300\n"
      "c{v=\"whole\"} 2.0\n");
  EXPECT_EQ(read.counters, (std::map<std::string, uint64_t>{{"c{v=whole}", 2}}));
  EXPECT_EQ(read.uncounted,
            (std::set<std::string>{"c{v=-inf}", "c{v=fraction}", "c{v=huge}", "c{v=inf}",
                                   "c{v=nan, as prometheus-cpp writes it}", "c{v=nan}",
                                   "c{v=negative}"}));
}

TEST(PrometheusText, ABadLineIsAnErrorNamingItsNumber) {
  EXPECT_EQ(error_of("# TYPE c counter\nc\n"), "line 2: expected a blank and a value after 'c'");
  EXPECT_EQ(error_of("c 1\nc-x 1\n"), "line 2: expected a blank and a value after 'c'");
  EXPECT_EQ(error_of("c one\n"), "line 1: 'one' is not a sample value");
  EXPECT_EQ(error_of("c 1.2.3\n"), "line 1: '1.2.3' is not a sample value");
  EXPECT_EQ(error_of("c infinite\n"), "line 1: 'infinite' is not a sample value");
  EXPECT_EQ(error_of("c 1 2 3\n"), "line 1: unexpected text after the sample");
  EXPECT_EQ(error_of("c 1 1.5\n"), "line 1: '1.5' is not a timestamp (milliseconds)");
  EXPECT_EQ(error_of("\n\nc{a=\"x\\t\"} 1\n"),
            "line 3: label 'a': unknown escape in its value (only \\\\, \\\" and \\n are)");
  EXPECT_EQ(error_of("c{a=\"open} 1\n"), "line 1: label 'a': the value has no end quote");
  EXPECT_EQ(error_of("c{a=x} 1\n"), "line 1: the value of label 'a' must be in double quotes");
  EXPECT_EQ(error_of("c{a=\"1\" b=\"2\"} 1\n"), "line 1: expected ',' or '}' after a label");
  EXPECT_EQ(error_of("c{a=\"1\",a=\"2\"} 1\n"), "line 1: label 'a' is given twice");
  EXPECT_EQ(error_of("{a=\"1\"} 1\n"), "line 1: expected a metric name");
  EXPECT_EQ(error_of("c{a=\"1\"} 1\nc{a=\"1\"} 2\n"),
            "line 2: a second sample of 'c{a=1}' (the first is on line 1)");
  EXPECT_EQ(error_of("# TYPE c counter\n# TYPE c gauge\n"), "line 2: a second TYPE line for 'c'");
  EXPECT_EQ(error_of("c_total 1\n# TYPE c counter\n"),
            "line 2: the TYPE line for 'c' comes after its sample on line 1");
  EXPECT_EQ(error_of("# TYPE c countr\n"),
            "line 1: unknown type 'countr' for 'c' (counter, gauge, histogram, summary or "
            "untyped)");
}

TEST(PrometheusText, AnEmptyExpositionHasNoCounters) {
  const auto read = counters_of("");
  EXPECT_TRUE(read.counters.empty());
  EXPECT_TRUE(read.uncounted.empty());
}

}  // namespace
}  // namespace benchgate::sut
