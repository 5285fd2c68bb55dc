// The answer of every /metrics benchgate serves (the orchestrator's, serve's and the router's:
// common/http_listener/metrics_page.h): its status, headers and body for each request.
#include "common/http_listener/metrics_page.h"

#include <gtest/gtest.h>

#include <string>

namespace benchgate::http_listener {
namespace {

std::vector<prometheus::MetricFamily> one_counter() {
  prometheus::MetricFamily family;
  family.name = "things_total";
  family.help = "Things";
  family.type = prometheus::MetricType::Counter;
  prometheus::ClientMetric metric;
  metric.counter.value = 3;
  family.metric.push_back(metric);
  return {family};
}

// Prometheus' text format names its version in the content type (0.0.4, the one
// prometheus-cpp writes); the answer said only text/plain before.
TEST(MetricsPage, AScrapeIsAnsweredAsTheTextFormatVersion004) {
  for (const char* method : {"GET", "HEAD"}) {
    const Answer answer = metrics_page({method, "/metrics", ""}, one_counter);
    EXPECT_EQ(answer.status, 200);
    const std::vector<std::pair<std::string, std::string>> headers = {
        {"Content-Type", "text/plain; version=0.0.4; charset=utf-8"}};
    EXPECT_EQ(answer.headers, headers) << method;
    EXPECT_NE(answer.body.find("\nthings_total 3\n"), std::string::npos) << answer.body;
  }
}

TEST(MetricsPage, AnotherPathOrMethodIsPlainTextAndCollectsNothing) {
  int collected = 0;
  const CollectFamilies counting = [&collected] {
    ++collected;
    return one_counter();
  };
  const Answer not_found = metrics_page({"GET", "/other", ""}, counting);
  EXPECT_EQ(not_found.status, 404);
  const std::vector<std::pair<std::string, std::string>> text = {
      {"Content-Type", "text/plain; charset=utf-8"}};
  EXPECT_EQ(not_found.headers, text);
  const Answer not_allowed = metrics_page({"POST", "/metrics", ""}, counting);
  EXPECT_EQ(not_allowed.status, 405);
  const std::vector<std::pair<std::string, std::string>> allow = {
      {"Content-Type", "text/plain; charset=utf-8"}, {"Allow", "GET, HEAD"}};
  EXPECT_EQ(not_allowed.headers, allow);
  EXPECT_EQ(collected, 0);
}

}  // namespace
}  // namespace benchgate::http_listener
