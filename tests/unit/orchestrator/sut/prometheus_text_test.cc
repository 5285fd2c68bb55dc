// The counters read out of a Prometheus text exposition: which samples count, how they are
// keyed, the values that are no count, and bad lines named by their number.
#include <gtest/gtest.h>

#include <string>

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

TEST(PrometheusText, LabelsAreSortedByNameAndTheirValuesUnescapedThenEscapedForTheKey) {
  // A quote needs no escape in an unquoted value; a backslash, and a newline, which would
  // break the key's line in messages and files, do.
  const auto read = counters_of(
      "# TYPE c counter\n"
      "c{z=\"last\", a=\"say \\\"hi\\\"\",m=\"back\\\\slash\\nnewline\",} 1\n");
  EXPECT_EQ(
      read.counters,
      (std::map<std::string, uint64_t>{{"c{a=say \"hi\",m=back\\\\slash\\nnewline,z=last}", 1}}));
}

TEST(PrometheusText, ALabelValueThatLooksLikeMoreLabelsIsKeyedApartFromThem) {
  // c{a="1,b=2"} and c{a="1",b="2"} are two series; unescaped, both would be c{a=1,b=2}.
  const auto read = counters_of(
      "# TYPE c counter\n"
      "c{a=\"1,b=2\"} 5\n"
      "c{a=\"1\",b=\"2\"} 7\n"
      "c{a=\"x}\"} 1\n"
      "c{a=\"x\\\\\"} 2\n"
      "c{a=\"\x1b[31m\"} 3\n");
  EXPECT_EQ(read.counters, (std::map<std::string, uint64_t>{{"c{a=1\\,b=2}", 5},
                                                            {"c{a=1,b=2}", 7},
                                                            {"c{a=x\\}}", 1},
                                                            {"c{a=x\\\\}", 2},
                                                            {"c{a=\\x1B[31m}", 3}}));
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
                                   "c{v=nan\\, as prometheus-cpp writes it}", "c{v=nan}",
                                   "c{v=negative}"}));
}

TEST(PrometheusText, ABadLineIsAnErrorNamingItsNumber) {
  EXPECT_EQ(error_of("# TYPE c counter\nc\n"),
            "line 2: expected a blank and a value after the metric name");
  EXPECT_EQ(error_of("c 1\nc-x 1\n"), "line 2: expected a blank and a value after the metric name");
  // No number: a word, a second dot; the float forms Go 1.13 added, a hex float and a digit
  // separator, which Prometheus's own text parser refuses even where the value would be a whole
  // number; a sign before NaN (Go's ParseFloat takes one before Inf and Infinity only).
  for (const std::string value : {"one", "1.2.3", "infinite", "0X1.8P1", "1_000", "+NaN", "-nan"}) {
    EXPECT_EQ(error_of("c " + value + "\n"), "line 1: the sample value is not a number") << value;
  }
  EXPECT_EQ(error_of("# TYPE c counter\nc 0x1p3\n"), "line 2: the sample value is not a number");

  EXPECT_EQ(error_of("c 1 2 3\n"), "line 1: unexpected text after the sample");
  EXPECT_EQ(error_of("c 1 1.5\n"), "line 1: the timestamp is not a whole number of milliseconds");
  EXPECT_EQ(error_of("\n\nc{a=\"x\\t\"} 1\n"),
            "line 3: a label value holds an unknown escape (only \\\\, \\\" and \\n are)");
  EXPECT_EQ(error_of("c{a=\"open} 1\n"), "line 1: a label value has no end quote");
  EXPECT_EQ(error_of("c{a=x} 1\n"), "line 1: a label value must be in double quotes");
  EXPECT_EQ(error_of("c{a 1\n"), "line 1: expected '=' after a label name");
  EXPECT_EQ(error_of("c{a=\"1\" b=\"2\"} 1\n"), "line 1: expected ',' or '}' after a label");
  EXPECT_EQ(error_of("c{a=\"1\",a=\"2\"} 1\n"), "line 1: the sample names a label twice");
  EXPECT_EQ(error_of("{a=\"1\"} 1\n"), "line 1: expected a metric name");
  EXPECT_EQ(error_of("c{a=\"1\"} 1\nc{a=\"1\"} 2\n"),
            "line 2: a second sample of the series on line 1");
  EXPECT_EQ(error_of("# TYPE c counter\n# TYPE c gauge\n"),
            "line 2: a second TYPE line for a metric (the first is on line 1)");
  EXPECT_EQ(error_of("c_total 1\n# TYPE c counter\n"),
            "line 2: the TYPE line comes after its metric's sample on line 1");
  EXPECT_EQ(error_of("# TYPE c countr\n"),
            "line 1: an unknown type (counter, gauge, histogram, summary or untyped are)");
}

TEST(PrometheusText, AnErrorQuotesNothingOfTheBody) {
  // A `metrics` URL may point at any path of an address serve allows: what the scrape reads
  // there must not come back to the client through the error, nor its control characters.
  for (const char* body : {
           "secret_token 1\nsecret_token SECRET\x1b[2J\n",
           "c 1 SECRET\x1b[2J\n",
           "c{secret=\"SECRET\x1b[2J\"} 1\nc{secret=\"SECRET\x1b[2J\"} 1\n",
           "c{secret=\"SECRET\x1b[2J\",secret=\"x\"} 1\n",
           "c{secret=SECRET\x1b[2J} 1\n",
           "c{secret=\"\\SECRET\x1b[2J\"} 1\n",
           "# TYPE secret SECRET\x1b[2J\n",
           "# TYPE secret counter\n# TYPE secret counter\n",
           "secret_total 1\n# TYPE secret counter\n",
           "secret\n",
       }) {
    const std::string error = error_of(body);
    EXPECT_EQ(error.find("secret"), std::string::npos) << error;
    EXPECT_EQ(error.find("SECRET"), std::string::npos) << error;
    EXPECT_EQ(error.find('\x1b'), std::string::npos) << error;
    EXPECT_TRUE(error.starts_with("line ")) << error;
  }
}

TEST(PrometheusText, AnEmptyExpositionHasNoCounters) {
  const auto read = counters_of("");
  EXPECT_TRUE(read.counters.empty());
  EXPECT_TRUE(read.uncounted.empty());
}

}  // namespace
}  // namespace benchgate::sut
