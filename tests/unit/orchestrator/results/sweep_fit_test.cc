// The sweep model: least squares cost = a + b*n with R^2, the median and worst exponents of
// adjacent pairs, and the growth class they name.
#include <gtest/gtest.h>

#include <vector>

#include "orchestrator/results/sweep_fit.h"

namespace benchgate::results {
namespace {

TEST(SweepFit, AnExactLineIsRecoveredWithR2One) {
  const std::vector<double> n = {1, 10, 100, 1000};
  const std::vector<double> cost = {5 + 2 * 1.0, 5 + 2 * 10.0, 5 + 2 * 100.0, 5 + 2 * 1000.0};
  auto fit = fit_linear(n, cost);
  ASSERT_TRUE(fit);
  EXPECT_NEAR(fit->a, 5, 1e-9);
  EXPECT_NEAR(fit->b, 2, 1e-12);
  EXPECT_NEAR(fit->r2, 1, 1e-12);
}

TEST(SweepFit, AFlatSeriesHasZeroSlopeAndIsConstant) {
  const std::vector<double> n = {64, 1024, 65536};
  const std::vector<double> cost = {30, 30, 30};
  auto fit = fit_linear(n, cost);
  ASSERT_TRUE(fit);
  EXPECT_DOUBLE_EQ(fit->b, 0);
  EXPECT_DOUBLE_EQ(fit->r2, 1);
  auto growth = growth_exponents(n, cost);
  ASSERT_TRUE(growth);
  EXPECT_DOUBLE_EQ(growth->median, 0);
  EXPECT_EQ(growth_class(growth->median), "constant");
}

TEST(SweepFit, NoisyPointsGiveR2BelowOne) {
  const std::vector<double> n = {1, 2, 3, 4};
  const std::vector<double> cost = {1, 3, 2, 4};
  auto fit = fit_linear(n, cost);
  ASSERT_TRUE(fit);
  EXPECT_NEAR(fit->b, 0.8, 1e-12);
  EXPECT_NEAR(fit->r2, 0.64, 1e-12);
}

TEST(SweepFit, FewerThanTwoDistinctPointsHaveNoFit) {
  EXPECT_FALSE(fit_linear(std::vector<double>{3}, std::vector<double>{1}));
  EXPECT_FALSE(fit_linear(std::vector<double>{3, 3}, std::vector<double>{1, 2}));
}

TEST(SweepFit, ProportionalCostHasExponentOneAndIsLinear) {
  const std::vector<double> n = {10, 100, 1000};
  const std::vector<double> cost = {1, 10, 100};
  auto growth = growth_exponents(n, cost);
  ASSERT_TRUE(growth);
  EXPECT_NEAR(growth->median, 1, 1e-12);
  EXPECT_EQ(growth->pairs, 2u);
  EXPECT_EQ(growth_class(growth->median), "linear");
}

TEST(SweepFit, TheWorstPairIsTheSteepestBesideTheMedian) {
  // Exponents: 0.5, 0.5, 2 -> median 0.5 (sublinear), worst 2 at pair 2.
  const std::vector<double> n = {1, 100, 10000, 100000};
  const std::vector<double> cost = {1, 10, 100, 10000};
  auto growth = growth_exponents(n, cost);
  ASSERT_TRUE(growth);
  EXPECT_NEAR(growth->median, 0.5, 1e-12);
  EXPECT_NEAR(growth->worst, 2, 1e-12);
  EXPECT_EQ(growth->worst_pair, 2u);
  EXPECT_EQ(growth_class(growth->median), "sublinear");
  EXPECT_EQ(growth_class(growth->worst), "superlinear");
}

TEST(SweepFit, PairsWithAZeroParameterAreSkipped) {
  const std::vector<double> n = {0, 10, 100};
  const std::vector<double> cost = {1, 2, 20};
  auto growth = growth_exponents(n, cost);
  ASSERT_TRUE(growth);
  EXPECT_EQ(growth->pairs, 1u);
  EXPECT_NEAR(growth->median, 1, 1e-12);
  EXPECT_FALSE(growth_exponents(std::vector<double>{0, 1}, std::vector<double>{0, 5}));
}

}  // namespace
}  // namespace benchgate::results
