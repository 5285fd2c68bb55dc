// Window deltas of system-under-test snapshots: CPU and RSS are a figure only when both
// readings had them and CPU did not go backwards; a counter only when it did not go down.
#include <gtest/gtest.h>

#include "orchestrator/sut/system_under_test.h"

namespace benchgate::sut {
namespace {

MetricsSnapshot reading(double cpu, uint64_t rss) {
  MetricsSnapshot s;
  s.has_resources = true;
  s.cpu_seconds = cpu;
  s.rss_bytes = rss;
  return s;
}

TEST(SutSnapshot, ResourcesAreTheCpuDeltaAndTheRssAfter) {
  auto delta = difference(reading(1.0, 100), reading(1.25, 300));
  EXPECT_TRUE(delta.has_resources);
  EXPECT_DOUBLE_EQ(delta.cpu_seconds, 0.25);
  EXPECT_EQ(delta.rss_bytes, 300u);
  EXPECT_FALSE(delta.has_counters);
}

TEST(SutSnapshot, NoResourcesUnlessBothReadingsHaveThem) {
  MetricsSnapshot none;
  EXPECT_FALSE(difference(none, reading(1, 1)).has_resources);
  EXPECT_FALSE(difference(reading(1, 1), none).has_resources);
}

TEST(SutSnapshot, CpuThatWentBackwardsIsNoFigure) {
  // A process of a command's tree exited during the window and nobody in the tree waited
  // for it: its CPU time left the sum. A negative delta is not a measurement.
  auto delta = difference(reading(2.0, 100), reading(1.5, 100));
  EXPECT_FALSE(delta.has_resources);
  EXPECT_DOUBLE_EQ(delta.cpu_seconds, 0);
  EXPECT_EQ(delta.rss_bytes, 0u);
}

MetricsSnapshot counted(std::map<std::string, uint64_t> counters) {
  MetricsSnapshot s;
  s.has_counters = true;
  s.counters = std::move(counters);
  return s;
}

TEST(SutSnapshot, CountersAreTheirGrowthAndOneFirstSeenAfterCountsFromZero) {
  auto delta = difference(counted({{"a", 10}, {"b", 5}}), counted({{"a", 25}, {"b", 5}, {"c", 2}}));
  EXPECT_TRUE(delta.has_counters);
  EXPECT_EQ(delta.counters, (std::map<std::string, uint64_t>{{"a", 15}, {"b", 0}, {"c", 2}}));
  EXPECT_TRUE(delta.went_down.empty());
}

TEST(SutSnapshot, ACounterThatWentDownIsLeftOutAndNamedNotAHugeDelta) {
  // The system restarted between the readings: after - before would wrap around.
  auto delta = difference(counted({{"a", 1000}, {"b", 1}}), counted({{"a", 40}, {"b", 3}}));
  EXPECT_EQ(delta.counters, (std::map<std::string, uint64_t>{{"b", 2}}));
  EXPECT_EQ(delta.went_down, (std::set<std::string>{"a"}));
}

TEST(SutSnapshot, ACounterGoneAfterTheWindowIsLeftOutAndNamedLikeOneThatWentDown) {
  // The system restarted and its client library creates labelled series only when first
  // used: "a" is missing from the reading after the window. Not measured, and said so.
  auto before = counted({{"a{code=500}", 4}, {"b", 1}, {"c", 2}});
  auto after = counted({{"b", 3}});
  after.uncounted = {"c"};  // read, but no count: left out as a reading that could not count
  auto delta = difference(before, after);
  EXPECT_EQ(delta.counters, (std::map<std::string, uint64_t>{{"b", 2}}));
  EXPECT_EQ(delta.went_down, (std::set<std::string>{"a{code=500}"}));
  // A reading after without counters read none: it names none gone, and the delta has none.
  auto none = difference(before, MetricsSnapshot{});
  EXPECT_FALSE(none.has_counters);
  EXPECT_TRUE(none.went_down.empty());
}

TEST(SutSnapshot, ACounterEitherReadingCouldNotCountIsLeftOut) {
  auto before = counted({{"b", 1}});
  before.uncounted = {"a"};  // NaN before, 7 after: 7 is no growth from 0
  auto after = counted({{"a", 7}, {"b", 1}});
  auto delta = difference(before, after);
  EXPECT_EQ(delta.counters, (std::map<std::string, uint64_t>{{"b", 0}}));
  EXPECT_TRUE(delta.went_down.empty());
}

TEST(SutSnapshot, ForeignCountersCountNoRequests) {
  // A [router] metrics scrape: counters, but nothing says which count requests.
  auto delta = difference(counted({{"http_requests", 1}}), counted({{"http_requests", 9}}));
  EXPECT_TRUE(delta.has_counters);
  EXPECT_FALSE(delta.has_requests);
  auto bundled_before = counted({{"http_requests", 1}});
  bundled_before.has_requests = true;
  bundled_before.requests = 1;
  auto bundled_after = counted({{"http_requests", 9}});
  bundled_after.has_requests = true;
  bundled_after.requests = 9;
  auto bundled = difference(bundled_before, bundled_after);
  EXPECT_TRUE(bundled.has_requests);
  EXPECT_EQ(bundled.requests, 8u);
}

}  // namespace
}  // namespace benchgate::sut
