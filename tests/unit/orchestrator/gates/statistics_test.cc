// Descriptive statistics, Student's t and Holm's correction against published values.
#include "orchestrator/gates/statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

namespace benchgate::gates {
namespace {

TEST(Descriptive, MedianOfOddAndEvenCountsAndNaNWhenEmpty) {
  EXPECT_DOUBLE_EQ(median(std::vector<double>{5, 1, 3}), 3);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{4, 1, 3, 2}), 2.5);
  EXPECT_TRUE(std::isnan(median(std::vector<double>{})));
}

TEST(Descriptive, QuantilesInterpolateBetweenOrderStatistics) {
  const std::vector<double> v{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_DOUBLE_EQ(quantile(v, 0), 1);
  EXPECT_DOUBLE_EQ(quantile(v, 1), 10);
  EXPECT_DOUBLE_EQ(quantile(v, 0.25), 3.25);  // R: quantile(1:10, 0.25)
  EXPECT_DOUBLE_EQ(quantile(v, 0.9), 9.1);
  EXPECT_TRUE(std::isnan(quantile(v, 1.5)));
}

TEST(Descriptive, MedianAbsoluteDeviationIgnoresOneOutlier) {
  EXPECT_DOUBLE_EQ(median_absolute_deviation(std::vector<double>{1, 1, 2, 2, 4, 6, 9}), 1);
  EXPECT_DOUBLE_EQ(median_absolute_deviation(std::vector<double>{10, 11, 12, 1000}), 1);
}

TEST(Descriptive, SampleStandardDeviationUsesNMinusOne) {
  EXPECT_DOUBLE_EQ(sample_stddev(std::vector<double>{2, 4, 4, 4, 5, 5, 7, 9}), std::sqrt(32.0 / 7));
  EXPECT_TRUE(std::isnan(sample_stddev(std::vector<double>{1})));
}

TEST(StudentT, QuantilesMatchTheTablesToPrintedPrecision) {
  EXPECT_NEAR(student_t_quantile(0.99, 4), 3.747, 5e-4);
  EXPECT_NEAR(student_t_quantile(0.99, 9), 2.821, 5e-4);
  EXPECT_NEAR(student_t_quantile(0.95, 9), 1.833, 5e-4);
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.706, 5e-4);
  EXPECT_NEAR(student_t_quantile(0.975, 30), 2.042, 5e-4);
  EXPECT_NEAR(student_t_quantile(0.01, 9), -2.821, 5e-4);
  EXPECT_DOUBLE_EQ(student_t_quantile(0.5, 7), 0);
}

TEST(StudentT, CdfAndQuantileAreInverses) {
  for (double df : {1.0, 2.5, 4.0, 9.0, 100.0}) {
    for (double p : {0.001, 0.05, 0.3, 0.7, 0.99, 0.9999}) {
      EXPECT_NEAR(student_t_cdf(student_t_quantile(p, df), df), p, 1e-10) << df << " " << p;
    }
  }
}

TEST(StudentT, CauchyCaseHasClosedForm) {
  // df = 1 is the Cauchy distribution: F(t) = 1/2 + atan(t)/pi.
  for (double t : {-3.0, -0.5, 0.0, 1.0, 7.0}) {
    EXPECT_NEAR(student_t_cdf(t, 1), 0.5 + std::atan(t) / M_PI, 1e-12);
  }
}

TEST(StudentT, SurvivalKeepsTinyTailsAndRejectsBadDegreesOfFreedom) {
  const double tail = student_t_sf(40, 9);
  EXPECT_GT(tail, 0);
  EXPECT_LT(tail, 1e-10);
  EXPECT_NEAR(student_t_sf(2.821, 9) + student_t_cdf(2.821, 9), 1, 1e-14);
  EXPECT_TRUE(std::isnan(student_t_cdf(1, 0)));
  EXPECT_TRUE(std::isnan(student_t_quantile(1.0, 5)));
}

TEST(IncompleteBeta, MatchesClosedForms) {
  // I_x(1, 1) = x; I_x(a, 1) = x^a; I_x(1, b) = 1 - (1 - x)^b.
  EXPECT_NEAR(regularized_incomplete_beta(1, 1, 0.3), 0.3, 1e-14);
  EXPECT_NEAR(regularized_incomplete_beta(3, 1, 0.6), 0.216, 1e-14);
  EXPECT_NEAR(regularized_incomplete_beta(1, 4, 0.2), 1 - std::pow(0.8, 4), 1e-14);
  EXPECT_NEAR(regularized_incomplete_beta(2.5, 2.5, 0.5), 0.5, 1e-14);
}

TEST(Normal, QuantileMatchesTables) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959964, 1e-6);
  EXPECT_NEAR(normal_quantile(0.01), -2.326348, 1e-6);
  EXPECT_NEAR(normal_cdf(1.644854), 0.95, 1e-6);
}

TEST(Holm, AdjustsStepDownAndKeepsInputOrder) {
  // Sorted: 0.01 * 4, 0.02 * 3, 0.03 * 2 (raised to the running max), 0.5 * 1.
  const std::vector<double> p{0.03, 0.01, 0.5, 0.02};
  const std::vector<double> adj = holm_adjust(p);
  ASSERT_EQ(adj.size(), 4u);
  EXPECT_NEAR(adj[1], 0.04, 1e-15);
  EXPECT_NEAR(adj[3], 0.06, 1e-15);
  EXPECT_NEAR(adj[0], 0.06, 1e-15);
  EXPECT_NEAR(adj[2], 0.5, 1e-15);
}

TEST(Holm, CapsAtOneAndLeavesNaNOutOfTheFamily) {
  const double nan = std::nan("");
  const std::vector<double> adj = holm_adjust(std::vector<double>{0.4, nan, 0.6});
  EXPECT_NEAR(adj[0], 0.8, 1e-15);
  EXPECT_TRUE(std::isnan(adj[1]));
  EXPECT_NEAR(adj[2], 0.8, 1e-15);  // min(1, 0.6) raised to the running max 0.8
  EXPECT_DOUBLE_EQ(holm_adjust(std::vector<double>{0.7, 0.9})[0], 1.0);
}

// The tabulated ratio against a seeded simulation: the variance of the median of k normal
// values, times k, within 2% (400,000 samples give a relative standard error of 0.22%).
TEST(Statistics, MedianVarianceRatioMatchesASimulation) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> z(0, 1);
  for (size_t k : {1u, 2u, 3u, 4u, 5u, 8u, 15u}) {
    constexpr int kSamples = 400000;
    double sum = 0, squares = 0;
    std::vector<double> v(k);
    for (int i = 0; i < kSamples; ++i) {
      for (double& x : v) x = z(rng);
      const double m = median(v);
      sum += m;
      squares += m * m;
    }
    const double variance = squares / kSamples - (sum / kSamples) * (sum / kSamples);
    EXPECT_NEAR(variance * static_cast<double>(k), median_variance_ratio(k),
                0.02 * median_variance_ratio(k))
        << "k = " << k;
  }
  EXPECT_NEAR(median_variance_ratio(1000), std::numbers::pi / 2, 1e-12);
  EXPECT_TRUE(std::isnan(median_variance_ratio(0)));
}

}  // namespace
}  // namespace benchgate::gates
