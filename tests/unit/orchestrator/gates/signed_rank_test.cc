// The Wilcoxon signed-rank test, the Hodges-Lehmann centre and its Walsh-average interval
// (signed_rank.h) against values counted by hand from the 2^n sign assignments.
#include "orchestrator/gates/signed_rank.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace benchgate::gates {
namespace {

TEST(SignedRank, SixPositiveDifferencesHaveTheSmallestPOneIn64) {
  const std::vector<double> x = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
  const SignedRankResult r = wilcoxon_signed_rank(x);
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.nonzero, 6u);
  EXPECT_DOUBLE_EQ(r.w_plus, 21);
  EXPECT_DOUBLE_EQ(r.p_greater, 1.0 / 64);
  EXPECT_DOUBLE_EQ(r.smallest_p, 1.0 / 64);
}

TEST(SignedRank, ExactTailsCountTheSignAssignments) {
  // The largest difference negative: W+ = 15; W+ >= 15 when the negative ranks sum to at most
  // 6, which 14 of the 64 subsets of 1..6 do.
  const std::vector<double> x = {0.1, 0.2, 0.3, 0.4, 0.5, -0.6};
  EXPECT_DOUBLE_EQ(wilcoxon_signed_rank(x).w_plus, 15);
  EXPECT_DOUBLE_EQ(wilcoxon_signed_rank(x).p_greater, 14.0 / 64);
  // Ten values, only the smallest negative: W+ = 54, reached by 2 of the 1024 assignments.
  std::vector<double> ten = {-1};
  for (int i = 2; i <= 10; ++i) ten.push_back(i);
  EXPECT_DOUBLE_EQ(wilcoxon_signed_rank(ten).p_greater, 2.0 / 1024);
  // Everything negative: every assignment is at least as large.
  EXPECT_DOUBLE_EQ(wilcoxon_signed_rank(std::vector<double>{-1, -2, -3}).p_greater, 1.0);
}

TEST(SignedRank, TiesShareTheirMidRankAndStayExact) {
  // |x| = 1, 1, 1, 2: ranks 2, 2, 2, 4; W+ = 2 + 2 + 4 = 8, reached when 4 and at least two
  // of the 2s are positive: 3 + 1 of 16 assignments.
  const std::vector<double> x = {1, 1, -1, 2};
  const SignedRankResult r = wilcoxon_signed_rank(x);
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.w_plus, 8);
  EXPECT_DOUBLE_EQ(r.p_greater, 4.0 / 16);
}

TEST(SignedRank, ZerosAreRankedButCarryNoSign) {
  // Pratt: ranks 1 (the zero), 2, 3, 4, 5; the nonzero ranks 2..5 take signs, W+ = 4 + 5 = 9,
  // reached by 6 of their 16 assignments (dropping the zero would rank them 1..4: 5 of 16).
  const std::vector<double> x = {0, -0.1, -0.2, 0.3, 0.4};
  const SignedRankResult r = wilcoxon_signed_rank(x);
  EXPECT_EQ(r.n, 5u);
  EXPECT_EQ(r.nonzero, 4u);
  EXPECT_DOUBLE_EQ(r.w_plus, 9);
  EXPECT_DOUBLE_EQ(r.p_greater, 6.0 / 16);
  EXPECT_DOUBLE_EQ(r.smallest_p, 1.0 / 16);
  // All zeros: no evidence either way.
  const SignedRankResult zeros = wilcoxon_signed_rank(std::vector<double>{0, 0, 0});
  EXPECT_EQ(zeros.nonzero, 0u);
  EXPECT_DOUBLE_EQ(zeros.p_greater, 1.0);
}

TEST(SignedRank, LargeSamplesUseTheNormalApproximation) {
  std::vector<double> x;
  for (int i = 1; i <= 400; ++i) x.push_back(i % 2 ? i : -i);  // odd positive, even negative
  const SignedRankResult r = wilcoxon_signed_rank(x);
  EXPECT_FALSE(r.exact);
  // W+ = 1 + 3 + ... + 399 = 40000 against a mean of 40100 and a variance of
  // 400 * 401 * 801 / 24: z = (40000 - 40100 - 0.5) / 2313.7.
  EXPECT_DOUBLE_EQ(r.w_plus, 40000);
  EXPECT_NEAR(r.p_greater, 0.5172, 5e-4);
  // At the limit the exact law is used.
  x.resize(kSignedRankExactLimit);
  EXPECT_TRUE(wilcoxon_signed_rank(x).exact);
}

TEST(SignedRank, HodgesLehmannIsTheMedianOfTheWalshAverages) {
  // Walsh averages of 1, 2, 3, 10: 1, 1.5, 2, 2, 2.5, 3, 5.5, 6, 6.5, 10; median 2.75 (the
  // mean, 4, follows the outlier).
  EXPECT_DOUBLE_EQ(hodges_lehmann_centre(std::vector<double>{1, 2, 3, 10}), 2.75);
  EXPECT_DOUBLE_EQ(hodges_lehmann_centre(std::vector<double>{-3}), -3);
  EXPECT_TRUE(std::isnan(hodges_lehmann_centre(std::vector<double>{})));
}

// Past 2 million Walsh averages they are selected by bisection, not kept: the same doubles.
TEST(SignedRank, ManyPairsGiveTheSameHodgesLehmannWithoutKeepingEveryAverage) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> z(0.03, 0.1);
  for (size_t n : {2100u, 2101u}) {  // an even and an odd number of averages
    std::vector<double> x;
    for (size_t i = 0; i < n; ++i) x.push_back(z(rng));
    std::vector<double> w;
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = i; j < n; ++j) w.push_back((x[i] + x[j]) / 2);
    }
    std::sort(w.begin(), w.end());
    const size_t m = w.size();
    ASSERT_GT(m, 2'000'000u);
    const double expected = m % 2 ? w[m / 2] : (w[m / 2 - 1] + w[m / 2]) / 2;
    EXPECT_EQ(hodges_lehmann_centre(x), expected) << n;
    const CentreInterval i = walsh_interval(x, 0.98);
    ASSERT_TRUE(i.bounded);
    // Its ends are Walsh averages, symmetric in rank.
    const auto low = std::lower_bound(w.begin(), w.end(), i.low);
    const auto high = std::lower_bound(w.begin(), w.end(), i.high);
    ASSERT_TRUE(low != w.end() && *low == i.low);
    ASSERT_TRUE(high != w.end() && *high == i.high);
    const auto low_rank = static_cast<size_t>(low - w.begin());
    const auto high_rank =
        static_cast<size_t>(std::upper_bound(w.begin(), w.end(), i.high) - w.begin()) - 1;
    EXPECT_EQ(low_rank, m - 1 - high_rank);
    EXPECT_LT(i.low, expected);
    EXPECT_GT(i.high, expected);
  }
}

TEST(SignedRank, WalshIntervalTakesItsEndsFromTheSameLaw) {
  // n = 6, 90%: P(T <= 2) = 3/64 <= 0.05 < P(T <= 3) = 5/64, so c = 2: the 3rd smallest and
  // 3rd largest of the 21 Walsh averages of 1..6, at confidence 1 - 6/64.
  const std::vector<double> x = {1, 2, 3, 4, 5, 6};
  const CentreInterval i = walsh_interval(x, 0.90);
  ASSERT_TRUE(i.bounded);
  EXPECT_DOUBLE_EQ(i.low, 2);
  EXPECT_DOUBLE_EQ(i.high, 5);
  EXPECT_DOUBLE_EQ(i.achieved_confidence, 1 - 6.0 / 64);
  // Four values cannot reach 98%: even T = 0 has probability 1/16 > 0.01.
  EXPECT_FALSE(walsh_interval(std::vector<double>{1, 2, 3, 4}, 0.98).bounded);
}

}  // namespace
}  // namespace benchgate::gates
