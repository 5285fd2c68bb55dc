// The Hodges-Lehmann shift interval and the benchstat-style comparison.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "orchestrator/gates/statistics.h"

namespace benchgate::gates {
namespace {

TEST(HodgesLehmann, FiveAgainstFiveGivesTheExactOrderStatisticInterval) {
  // Differences are 10 + (i - j): 6 once, 7 twice, ..., 14 once. At 95%, the null law of U for
  // 5 vs 5 gives c = 2 (P(U <= 2) = 4/252), so the interval is [D(3), D(23)] = [7, 13].
  const std::vector<double> y{1, 2, 3, 4, 5};
  const std::vector<double> x{11, 12, 13, 14, 15};
  const ShiftInterval s = hodges_lehmann_interval(x, y, 0.95);
  ASSERT_TRUE(s.bounded);
  EXPECT_DOUBLE_EQ(s.estimate, 10);
  EXPECT_DOUBLE_EQ(s.low, 7);
  EXPECT_DOUBLE_EQ(s.high, 13);
  EXPECT_NEAR(s.achieved_confidence, 1 - 8.0 / 252, 1e-12);
}

TEST(HodgesLehmann, TooFewSamplesForTheConfidenceGiveAnUnboundedInterval) {
  const ShiftInterval s =
      hodges_lehmann_interval(std::vector<double>{4, 5, 6}, std::vector<double>{1, 2, 3}, 0.95);
  EXPECT_FALSE(s.bounded);
  EXPECT_TRUE(std::isinf(s.low));
  EXPECT_TRUE(std::isinf(s.high));
  EXPECT_DOUBLE_EQ(s.estimate, 3);
}

TEST(HodgesLehmann, LargeSamplesUseTheNormalCriticalValue) {
  std::vector<double> x, y;
  for (int i = 0; i < 400; ++i) {
    y.push_back(i);
    x.push_back(i + 50);
  }
  const ShiftInterval s = hodges_lehmann_interval(x, y, 0.95);
  ASSERT_TRUE(s.bounded);
  EXPECT_DOUBLE_EQ(s.estimate, 50);
  EXPECT_LT(s.low, 50);
  EXPECT_GT(s.high, 50);
  EXPECT_NEAR(s.achieved_confidence, 0.95, 0.002);
}

TEST(CompareSamples, ATenPercentRiseIsSignificantWithItsRatioInterval) {
  const std::vector<double> a{100, 101, 99, 100.5, 102};
  std::vector<double> b;
  for (double v : a) b.push_back(v * 1.1);
  const SampleComparison c = compare_samples(a, b);
  EXPECT_DOUBLE_EQ(c.median_a, 100.5);
  EXPECT_NEAR(c.change, 0.1, 1e-12);
  EXPECT_NEAR(c.p_value, 0.00794, 5e-6);
  EXPECT_TRUE(c.significant);
  ASSERT_TRUE(c.interval_bounded);
  EXPECT_LT(c.change_low, 0.1);
  EXPECT_GT(c.change_high, 0.1);
  EXPECT_GT(c.change_low, 0.0);
}

TEST(CompareSamples, IdenticalSamplesAreNotSignificant) {
  const std::vector<double> a{5, 6, 7, 8, 9};
  const SampleComparison c = compare_samples(a, a);
  EXPECT_DOUBLE_EQ(c.change, 0);
  EXPECT_FALSE(c.significant);
  EXPECT_LE(c.change_low, 0);
  EXPECT_GE(c.change_high, 0);
}

// One definition of a change (relative_change), for compare's figures and the repetitions'
// medians alike: 0 to 0 is no change (no errors in either run), 0 to anything else has no
// relative size.
TEST(CompareSamples, ZeroToZeroIsNoChangeAndFromZeroHasNoRelativeSize) {
  EXPECT_EQ(relative_change(0, 0), 0);
  EXPECT_TRUE(std::isnan(relative_change(0, 3)));
  EXPECT_DOUBLE_EQ(relative_change(4, 5), 0.25);
  const std::vector<double> zeros{0, 0, 0, 0, 0};
  EXPECT_EQ(compare_samples(zeros, zeros).change, 0);
  EXPECT_TRUE(std::isnan(compare_samples(zeros, std::vector<double>{1, 2, 3, 4, 5}).change));
}

TEST(CompareSamples, ZerosFallBackToADifferenceInterval) {
  const std::vector<double> a{0, 1, 2, 3, 4};
  const std::vector<double> b{2, 3, 4, 5, 6};
  const SampleComparison c = compare_samples(a, b);
  EXPECT_DOUBLE_EQ(c.change, 1.0);  // 4 / 2 - 1
  ASSERT_TRUE(c.interval_bounded);
  EXPECT_LE(c.change_low, 1.0);  // the shift 2, relative to a's median 2
  EXPECT_GE(c.change_high, 1.0);
}

}  // namespace
}  // namespace benchgate::gates
