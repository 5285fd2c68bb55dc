// Window deltas of system-under-test snapshots: CPU and RSS are a figure only when both
// readings had them and CPU did not go backwards.
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

}  // namespace
}  // namespace benchgate::sut
