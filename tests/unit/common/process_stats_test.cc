// The calling thread's CPU clock and scheduler run delay, which the worker reads at a window's
// start and end for saturation and starvation (docs/MEASUREMENT.md "Worker CPU and start").
#include "common/process/process_stats.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace benchgate {
namespace {

TEST(ProcessStats, ThreadCpuClockAdvancesWithTheThreadsOwnWork) {
  const int64_t before = thread_cpu_ns();
  volatile uint64_t sink = 0;
  for (uint64_t i = 0; i < 20'000'000; ++i) sink = sink + i;
  EXPECT_GT(thread_cpu_ns(), before);
}

TEST(ProcessStats, RunDelayIsTheSecondFieldOfSchedstat) {
  EXPECT_EQ(parse_schedstat_delay("5139283 62495 12\n"), 62495);
  EXPECT_EQ(parse_schedstat_delay("0 0 0"), 0);
  EXPECT_FALSE(parse_schedstat_delay("").has_value());
  EXPECT_FALSE(parse_schedstat_delay("12").has_value());
  EXPECT_FALSE(parse_schedstat_delay("1 -4 2").has_value());
  EXPECT_FALSE(parse_schedstat_delay("run delay").has_value());
}

TEST(ProcessStats, RunDelayOfTheCallingThreadIsReadWhereTheKernelHasIt) {
  const auto delay = thread_run_delay_ns();
  if (!delay) GTEST_SKIP() << "no /proc/thread-self/schedstat on this kernel";
  EXPECT_GE(*delay, 0);
}

}  // namespace
}  // namespace benchgate
