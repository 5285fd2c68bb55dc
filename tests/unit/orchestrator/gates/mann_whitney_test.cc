// The Mann-Whitney U test against exact combinatorial values and benchstat's printed ones.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "orchestrator/gates/statistics.h"

namespace benchgate::gates {
namespace {

// n new samples all above n baseline samples.
struct Separated {
  std::vector<double> worse, baseline;
  explicit Separated(int n) {
    for (int i = 0; i < n; ++i) {
      baseline.push_back(100 + i);
      worse.push_back(200 + i);
    }
  }
};

TEST(MannWhitney, MinimumOneSidedPValuesMatchTheOracles) {
  EXPECT_NEAR(
      mann_whitney_u(Separated(3).worse, Separated(3).baseline, Alternative::kGreater).p_value,
      0.05, 5e-6);
  EXPECT_NEAR(
      mann_whitney_u(Separated(4).worse, Separated(4).baseline, Alternative::kGreater).p_value,
      0.0143, 5e-5);
  EXPECT_NEAR(
      mann_whitney_u(Separated(5).worse, Separated(5).baseline, Alternative::kGreater).p_value,
      0.00397, 5e-6);
  // Exactly 1 / C(2n, n).
  EXPECT_DOUBLE_EQ(
      mann_whitney_u(Separated(4).worse, Separated(4).baseline, Alternative::kGreater).p_value,
      1.0 / 70);
}

TEST(MannWhitney, TwoSidedPValuesMatchBenchstat) {
  EXPECT_NEAR(
      mann_whitney_u(Separated(3).worse, Separated(3).baseline, Alternative::kTwoSided).p_value,
      0.1, 5e-5);
  EXPECT_NEAR(
      mann_whitney_u(Separated(4).worse, Separated(4).baseline, Alternative::kTwoSided).p_value,
      0.02857, 5e-6);
  EXPECT_NEAR(
      mann_whitney_u(Separated(5).worse, Separated(5).baseline, Alternative::kTwoSided).p_value,
      0.00794, 5e-6);
}

// The bound is what the test gives samples that do not overlap at all; 3 + 3 never reach 0.05.
TEST(MannWhitney, TheSmallestTwoSidedPIsThatOfSamplesThatDoNotOverlap) {
  for (size_t n1 = 1; n1 <= 6; ++n1) {
    for (size_t n2 = 1; n2 <= 6; ++n2) {
      std::vector<double> low, high;
      for (size_t i = 0; i < n1; ++i) low.push_back(static_cast<double>(i));
      for (size_t i = 0; i < n2; ++i) high.push_back(100.0 + static_cast<double>(i));
      EXPECT_NEAR(mann_whitney_smallest_p(n1, n2),
                  mann_whitney_u(high, low, Alternative::kTwoSided).p_value, 1e-12)
          << n1 << "+" << n2;
    }
  }
  EXPECT_DOUBLE_EQ(mann_whitney_smallest_p(3, 3), 0.1);
  EXPECT_NEAR(mann_whitney_smallest_p(4, 4), 2.0 / 70, 1e-15);
  EXPECT_NEAR(mann_whitney_smallest_p(3, 5), 2.0 / 56, 1e-15);
  EXPECT_DOUBLE_EQ(mann_whitney_smallest_p(1, 1), 1);
  EXPECT_DOUBLE_EQ(mann_whitney_smallest_p(0, 5), 1);
}

TEST(MannWhitney, OppositeDirectionGivesNoEvidenceAndUCountsPairs) {
  const Separated s(4);
  const MannWhitneyResult greater = mann_whitney_u(s.worse, s.baseline, Alternative::kGreater);
  EXPECT_DOUBLE_EQ(greater.u, 16);
  EXPECT_TRUE(greater.exact);
  EXPECT_DOUBLE_EQ(mann_whitney_u(s.worse, s.baseline, Alternative::kLess).p_value, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u(s.baseline, s.worse, Alternative::kLess).p_value, 1.0 / 70);
}

TEST(MannWhitney, UnequalSizesEnumerateTheSmallerSample) {
  // One new value above three baseline values: P = 1 / C(4, 1).
  EXPECT_DOUBLE_EQ(
      mann_whitney_u(std::vector<double>{9}, std::vector<double>{1, 2, 3}, Alternative::kGreater)
          .p_value,
      0.25);
  // And the mirror: three above one.
  EXPECT_DOUBLE_EQ(
      mann_whitney_u(std::vector<double>{7, 8, 9}, std::vector<double>{1}, Alternative::kGreater)
          .p_value,
      0.25);
}

TEST(MannWhitney, TiesUseMidRanksAndTheExactPermutationOfTiedRanks) {
  // x = {2, 3}, y = {1, 2}: U = 1 (3>1) + 1 (3>2) + 1 (2>1) + 0.5 (2=2) = 3.5.
  // Mid-ranks 1, 2.5, 2.5, 4; the six 2-subsets sum to 3.5, 5, 3.5, 6.5, 5, 6.5 and x has 6.5:
  // P(W >= 6.5) = 2/6.
  const MannWhitneyResult r =
      mann_whitney_u(std::vector<double>{2, 3}, std::vector<double>{1, 2}, Alternative::kGreater);
  EXPECT_DOUBLE_EQ(r.u, 3.5);
  EXPECT_NEAR(r.p_value, 2.0 / 6, 1e-15);
}

TEST(MannWhitney, AllValuesTiedIsNoEvidence) {
  const std::vector<double> same{5, 5, 5};
  EXPECT_DOUBLE_EQ(mann_whitney_u(same, same, Alternative::kGreater).p_value, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u(same, same, Alternative::kTwoSided).p_value, 1.0);
}

TEST(MannWhitney, EmptySampleIsNoEvidence) {
  EXPECT_DOUBLE_EQ(
      mann_whitney_u(std::vector<double>{}, std::vector<double>{1}, Alternative::kGreater).p_value,
      1.0);
}

TEST(MannWhitney, ExactTailsWithTiesMatchBruteForceEnumeration) {
  // Every 4-subset of the 9 pooled values, as the new sample: count how often its U is at
  // least the observed one. Independent of the rank-sum dynamic programming.
  const std::vector<double> x{3, 5, 5, 8};
  const std::vector<double> y{1, 3, 5, 6, 6};
  std::vector<double> pooled = x;
  pooled.insert(pooled.end(), y.begin(), y.end());
  const auto u_of = [](const std::vector<double>& a, const std::vector<double>& b) {
    double u = 0;
    for (double ai : a) {
      for (double bj : b) u += ai > bj ? 1.0 : ai == bj ? 0.5 : 0.0;
    }
    return u;
  };
  const double observed = u_of(x, y);
  int at_least = 0, total = 0;
  for (unsigned mask = 0; mask < (1u << 9); ++mask) {
    if (__builtin_popcount(mask) != 4) continue;
    std::vector<double> a, b;
    for (int i = 0; i < 9; ++i) ((mask >> i) & 1 ? a : b).push_back(pooled[i]);
    ++total;
    if (u_of(a, b) >= observed - 1e-9) ++at_least;
  }
  const MannWhitneyResult r = mann_whitney_u(x, y, Alternative::kGreater);
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, observed);
  EXPECT_NEAR(r.p_value, static_cast<double>(at_least) / total, 1e-14);
}

TEST(MannWhitney, LargeSamplesUseTheNormalApproximation) {
  // x_i = i + 30.5, y_j = j for 300 each (past the exact limit): U = 53685, and with
  // mean 45000, sd sqrt(300 * 300 * 601 / 12) and continuity correction, p = 2.1522e-5.
  std::vector<double> x, y;
  for (int i = 0; i < 300; ++i) {
    x.push_back(i + 30.5);
    y.push_back(i);
  }
  const MannWhitneyResult r = mann_whitney_u(x, y, Alternative::kGreater);
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 53685);
  EXPECT_NEAR(r.p_value, 2.1522e-5, 1e-9);
}

TEST(MannWhitney, NormalApproximationIsCloseToExactForModerateSamples) {
  std::mt19937_64 rng(42);
  std::normal_distribution<double> noise(0, 1);
  std::vector<double> x, y;
  for (int i = 0; i < 30; ++i) x.push_back(noise(rng) + 0.5);
  for (int i = 0; i < 40; ++i) y.push_back(noise(rng));
  const MannWhitneyResult exact = mann_whitney_u(x, y, Alternative::kGreater);
  ASSERT_TRUE(exact.exact);
  const double a = 30, b = 40;
  const double z = (exact.u - a * b / 2 - 0.5) / std::sqrt(a * b * (a + b + 1) / 12);
  EXPECT_NEAR(exact.p_value, normal_cdf(-z), 0.005);
}

}  // namespace
}  // namespace benchgate::gates
