// The h2load and wrk adapters' output parsers against real captured output
// (tests/data/adapters/, see its README), and against truncated or garbled output, which must
// be a clear error and never a crash or a zero result.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "worker/adapters/h2load_output.h"
#include "worker/adapters/wrk_output.h"

namespace benchgate::worker::adapters {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(BENCHGATE_ADAPTER_DATA) + "/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

uint64_t errors_of(const ToolFigures& f, ErrorKind kind) {
  return f.errors[static_cast<size_t>(kind)];
}

int64_t percentile(const ToolLatency& latency, const std::string& key) {
  for (const auto& [k, ns] : latency.percentiles_ns) {
    if (k == key) return ns;
  }
  ADD_FAILURE() << "no percentile " << key;
  return -1;
}

TEST(H2loadOutput, ReadsTheCountsBytesAndRequestTimesH2loadPrinted) {
  auto f = parse_h2load_output(fixture("h2load_ok.txt"));
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f->operations, 51096u);
  EXPECT_EQ(f->successes, 51096u);
  for (size_t k = 0; k < kErrorKindCount; ++k) EXPECT_EQ(f->errors[k], 0u) << k;
  EXPECT_EQ(f->bytes_received, 5262888u);
  // "time for request:       38us      7.53ms       156us       225us"
  EXPECT_EQ(f->latency.min_ns, 38'000);
  EXPECT_EQ(f->latency.max_ns, 7'530'000);
  EXPECT_EQ(f->latency.mean_ns, 156'000);
  EXPECT_EQ(f->latency.stdev_ns, 225'000);
  EXPECT_TRUE(f->latency.percentiles_ns.empty());  // h2load prints none
}

// Over TLS h2load prints the TLS the server chose; the counts read as over cleartext.
TEST(H2loadOutput, ReadsTheTlsTheServerChoseOverH2) {
  auto f = parse_h2load_output(fixture("h2load_h2_tls.txt"));
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f->operations, 3696u);
  EXPECT_EQ(f->successes, 3696u);
  EXPECT_EQ(f->bytes_received, 111074u);
  EXPECT_EQ(f->latency.min_ns, 27'000);
  ASSERT_TRUE(f->tls);
  EXPECT_EQ(f->tls->version, "TLSv1.3");
  EXPECT_EQ(f->tls->cipher, "TLS_AES_256_GCM_SHA384");
  EXPECT_EQ(f->tls->alpn, "h2");
  // Cleartext output has no TLS lines: nothing, never a guess.
  auto plain = parse_h2load_output(fixture("h2load_ok.txt"));
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->tls);
}

TEST(H2loadOutput, CountsNon2xxAnswersAsStatusErrors) {
  auto f = parse_h2load_output(fixture("h2load_404.txt"));
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f->operations, 16274u);
  EXPECT_EQ(f->successes, 0u);
  EXPECT_EQ(errors_of(*f, ErrorKind::kStatus), 16274u);
  EXPECT_EQ(errors_of(*f, ErrorKind::kReset), 0u);
  EXPECT_EQ(f->bytes_received, 1757592u);
  EXPECT_EQ(f->latency.max_ns, 578'000);
}

TEST(H2loadOutput, GivesNoLatencyFiguresWhenNoRequestCompleted) {
  auto f = parse_h2load_output(fixture("h2load_refused.txt"));
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f->operations, 0u);
  EXPECT_EQ(f->bytes_received, 0u);
  // h2load printed "0us" for all of them: that is no measurement.
  EXPECT_FALSE(f->latency.min_ns.has_value());
  EXPECT_FALSE(f->latency.mean_ns.has_value());
  EXPECT_FALSE(f->latency.max_ns.has_value());
  EXPECT_FALSE(f->latency.stdev_ns.has_value());
}

TEST(H2loadOutput, ReadsMillisecondFiguresOfAServerThatClosesConnections) {
  auto f = parse_h2load_output(fixture("h2load_errors.txt"));
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f->operations, 1u);
  EXPECT_EQ(f->successes, 1u);
  EXPECT_EQ(f->bytes_received, 40u);
  EXPECT_EQ(f->latency.min_ns, 27'200'000);
  EXPECT_EQ(f->latency.stdev_ns, 0);
}

TEST(H2loadOutput, SplitsErroredRequestsIntoTimeoutsAndResets) {
  const std::string out =
      "requests: 100 total, 100 started, 100 done, 80 succeeded, 20 failed, 15 errored, 5 "
      "timeout\n"
      "traffic: 1KB (1000) total, 1B (1) headers (space savings 0.00%), 1B (1) data\n"
      "time for request:     1.00s      2.5s     1.50s     0us    100.00%\n";
  auto f = parse_h2load_output(out);
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(errors_of(*f, ErrorKind::kStatus), 5u);
  EXPECT_EQ(errors_of(*f, ErrorKind::kTimeout), 5u);
  EXPECT_EQ(errors_of(*f, ErrorKind::kReset), 10u);
  EXPECT_EQ(f->latency.max_ns, 2'500'000'000);
}

TEST(H2loadOutput, ParsesTheDurationFormatsH2loadPrints) {
  EXPECT_EQ(parse_h2load_duration("38us"), 38'000);
  EXPECT_EQ(parse_h2load_duration("7.53ms"), 7'530'000);
  EXPECT_EQ(parse_h2load_duration("1.02s"), 1'020'000'000);
  EXPECT_FALSE(parse_h2load_duration("7.53").has_value());
  EXPECT_FALSE(parse_h2load_duration("ms").has_value());
  EXPECT_FALSE(parse_h2load_duration("-1us").has_value());
  EXPECT_FALSE(parse_h2load_duration("1.5m").has_value());
}

TEST(H2loadOutput, RefusesOutputWithoutTheSummaryNamingWhatIsMissing) {
  auto empty = parse_h2load_output("");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.message().find("no 'requests:' line"), std::string::npos) << empty.message();

  const std::string full = fixture("h2load_ok.txt");
  auto no_traffic = parse_h2load_output(full.substr(0, full.find("traffic:")));
  ASSERT_FALSE(no_traffic.ok());
  EXPECT_NE(no_traffic.message().find("traffic"), std::string::npos) << no_traffic.message();

  auto garbled = parse_h2load_output(
      "requests: 10 total, x started, 10 done, 10 succeeded, 0 failed, 0 errored, 0 timeout\n");
  ASSERT_FALSE(garbled.ok());
  EXPECT_NE(garbled.message().find("'x'"), std::string::npos) << garbled.message();

  auto inconsistent = parse_h2load_output(
      "requests: 10 total, 10 started, 10 done, 11 succeeded, 0 failed, 0 errored, 0 timeout\n");
  EXPECT_FALSE(inconsistent.ok());
}

TEST(WrkOutput, ReadsWrksExactCountsBytesAndLatencyFromTheSummaryScript) {
  auto f = parse_wrk_output(fixture("wrk_ok.txt"));
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f->operations, 15328u);  // "15328 requests in 1.01s"
  EXPECT_EQ(f->successes, 15328u);
  for (size_t k = 0; k < kErrorKindCount; ++k) EXPECT_EQ(f->errors[k], 0u) << k;
  EXPECT_EQ(f->bytes_received, 1578784u);  // wrk itself printed "1.51MB read"
  EXPECT_EQ(f->latency.min_ns, 28'000);
  EXPECT_EQ(f->latency.max_ns, 27'532'000);
  EXPECT_EQ(f->latency.mean_ns, 2'081'616);
  EXPECT_EQ(f->latency.stdev_ns, 3'965'217);
  EXPECT_EQ(percentile(f->latency, "50"), 104'000);
  EXPECT_EQ(percentile(f->latency, "75"), 2'251'000);
  EXPECT_EQ(percentile(f->latency, "90"), 7'099'000);
  EXPECT_EQ(percentile(f->latency, "99"), 18'557'000);
  EXPECT_EQ(percentile(f->latency, "99.9"), 24'364'000);
}

TEST(WrkOutput, CountsAnswersOf400AndAboveAsStatusErrors) {
  auto f = parse_wrk_output(fixture("wrk_404.txt"));
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f->operations, 16451u);
  EXPECT_EQ(f->successes, 0u);
  EXPECT_EQ(errors_of(*f, ErrorKind::kStatus), 16451u);
  EXPECT_EQ(f->bytes_received, 1776708u);
}

TEST(WrkOutput, CountsReadAndWriteSocketErrorsAsResets) {
  auto f = parse_wrk_output(fixture("wrk_errors.txt"));
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f->operations, 155u);
  EXPECT_EQ(f->successes, 155u);
  EXPECT_EQ(errors_of(*f, ErrorKind::kReset), 308u);  // "Socket errors: ... read 308"
  EXPECT_EQ(errors_of(*f, ErrorKind::kConnect), 0u);
  EXPECT_EQ(f->bytes_received, 6200u);
}

TEST(WrkOutput, RefusesOutputWithoutTheScriptsSummary) {
  const std::string full = fixture("wrk_ok.txt");
  auto plain = parse_wrk_output(full.substr(0, full.find("benchgate-wrk:")));
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.message().find("no 'benchgate-wrk:' line"), std::string::npos) << plain.message();
  auto no_latency = parse_wrk_output(full.substr(0, full.find("benchgate-wrk-latency-us:")));
  ASSERT_FALSE(no_latency.ok());
  EXPECT_NE(no_latency.message().find("latency"), std::string::npos) << no_latency.message();
}

TEST(WrkOutput, RefusesScriptFiguresThatDisagreeWithWrksOwnLines) {
  std::string out = fixture("wrk_ok.txt");
  out.replace(out.find("requests=15328"), 14, "requests=15329");
  auto f = parse_wrk_output(out);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.message().find("disagrees"), std::string::npos) << f.message();

  std::string status = fixture("wrk_404.txt");
  status.replace(status.find("status=16451"), 12, "status=16450");
  EXPECT_FALSE(parse_wrk_output(status).ok());
}

// Every prefix of every capture (a tool killed mid-print) parses to a result or to an error.
TEST(ToolOutput, EveryTruncationOfRealOutputIsAResultOrAnErrorNeverACrash) {
  for (const char* name :
       {"h2load_ok.txt", "h2load_404.txt", "h2load_refused.txt", "h2load_errors.txt"}) {
    const std::string full = fixture(name);
    for (size_t n = 0; n <= full.size(); ++n) {
      auto f = parse_h2load_output(std::string_view(full).substr(0, n));
      if (f.ok()) {
        EXPECT_LE(f->successes, f->operations);
      }
    }
  }
  for (const char* name : {"wrk_ok.txt", "wrk_404.txt", "wrk_errors.txt"}) {
    const std::string full = fixture(name);
    for (size_t n = 0; n <= full.size(); ++n) {
      auto f = parse_wrk_output(std::string_view(full).substr(0, n));
      if (f.ok()) {
        EXPECT_LE(f->successes, f->operations);
      }
    }
  }
  // A number cut short is not read as a smaller number.
  const std::string wrk = fixture("wrk_ok.txt");
  EXPECT_FALSE(parse_wrk_output(wrk.substr(0, wrk.find("p99.9=24") + 8)).ok());
  EXPECT_FALSE(parse_wrk_output(fixture("h2load_ok.txt")).ok());
  EXPECT_FALSE(parse_h2load_output(fixture("wrk_ok.txt")).ok());
}

}  // namespace
}  // namespace benchgate::worker::adapters
