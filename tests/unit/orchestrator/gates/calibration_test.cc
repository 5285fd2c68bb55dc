// The between-run noise `orchestrator calibrate` stores, on hand-made figures.
#include "orchestrator/gates/calibration.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "orchestrator/gates/statistics.h"

namespace benchgate::gates {
namespace {

TEST(Calibration, NoiseIsTheSpreadOfTheRunsFiguresInTheGatesLogSpace) {
  const std::vector<double> figures{100, 102, 98, 101, 99};
  auto e = estimate_noise("throughput.rps", figures, 0.01);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->runs, 5);
  EXPECT_DOUBLE_EQ(e->mean, 100);
  EXPECT_NEAR(e->cv, sample_stddev(figures) / 100, 1e-12);
  std::vector<double> logs;
  for (double f : figures) logs.push_back(-std::log(f + 1e-3));  // higher is better: negated
  EXPECT_NEAR(e->log_sd, sample_stddev(logs), 1e-12);
  EXPECT_NEAR(e->detectable_1, std::expm1(student_t_quantile(0.99, 4) * e->log_sd * std::sqrt(2.0)),
              1e-12);
  // Five baseline runs pooled with the 5 calibration runs: 4 + 4 degrees of freedom, and the
  // median of 5 (variance 1.4342 / 5 of one run's) as the centre.
  EXPECT_NEAR(e->detectable_5,
              std::expm1(student_t_quantile(0.99, 8) * e->log_sd * std::sqrt(1 + 1.4342 / 5)),
              1e-12);
  EXPECT_GT(e->detectable_1, e->detectable_5);
}

TEST(Calibration, ADeterministicMetricHasNoNoiseAndDetectsAnything) {
  auto e = estimate_noise("errors.count", std::vector<double>{0, 0, 0}, 0.01);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->cv, 0);
  EXPECT_EQ(e->log_sd, 0);
  EXPECT_EQ(e->detectable_1, 0);
}

TEST(Calibration, TooFewRunsUnknownMetricsAndBadFiguresGiveNothing) {
  EXPECT_FALSE(estimate_noise("throughput.rps", std::vector<double>{100}, 0.01));
  EXPECT_FALSE(estimate_noise("latency.p98", std::vector<double>{1, 2}, 0.01));
  EXPECT_FALSE(estimate_noise("latency.p99", std::vector<double>{1, -2}, 0.01));
  EXPECT_FALSE(estimate_noise("latency.p99", std::vector<double>{1, NAN}, 0.01));
  EXPECT_FALSE(estimate_noise("latency.p99", std::vector<double>{1, 2}, 0));
}

}  // namespace
}  // namespace benchgate::gates
