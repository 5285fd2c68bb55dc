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

TEST(Calibration, RepetitionsGiveTheWithinRunSpreadAndWhatAPairedGateCouldDetect) {
  // Three runs of three repetitions; each run's repetitions are its figure x (0.99, 1, 1.01).
  const std::vector<double> figures{100, 110, 90};
  std::vector<std::vector<double>> reps;
  for (double f : figures) reps.push_back({f * 0.99, f, f * 1.01});
  auto e = estimate_noise("throughput.rps", figures, 0.01, reps);
  ASSERT_TRUE(e.has_value());
  ASSERT_TRUE(e->within.has_value());
  EXPECT_EQ(e->within->repetitions, 3);
  // Pooled over the runs: each run contributes the same squares about its mean, 2 df each.
  double squares = 0;
  std::vector<double> logs;
  for (double v : reps[0]) logs.push_back(-std::log(v + 1e-3));
  const double m = mean(logs);
  for (double l : logs) squares += (l - m) * (l - m);
  const double within = std::sqrt(squares / 2);
  EXPECT_NEAR(e->within->log_sd, within, 1e-6);
  EXPECT_NEAR(e->within->between_sd, within / std::sqrt(3.0), 1e-6);
  EXPECT_NEAR(e->within->detectable_paired,
              std::expm1(student_t_quantile(0.99, 2) * std::sqrt(2.0 / 3) * within), 1e-6);
  // 3 pairs cannot bring a signed-rank p below 2^-3 = 0.125: nothing to detect with.
  EXPECT_FALSE(e->within->detectable_paired_signed_rank.has_value());
  // 3 runs are too few to speak of two groups.
  EXPECT_FALSE(e->groups_apart.has_value());
}

TEST(Calibration, TheSignedRankDetectsWhatThePairedTDoesWithPiOverThreeAsManyPairs) {
  const std::vector<double> figures{100, 101, 99};
  std::vector<std::vector<double>> reps;
  for (double f : figures) reps.push_back({f, f * 1.01, f * 0.99, f * 1.02, f, f * 0.98, f, f});
  auto e = estimate_noise("throughput.rps", figures, 0.01, reps);
  ASSERT_TRUE(e && e->within);
  EXPECT_EQ(e->within->repetitions, 8);
  ASSERT_TRUE(e->within->detectable_paired_signed_rank.has_value());  // 2^-8 < 0.01
  const double t = std::log1p(e->within->detectable_paired);
  EXPECT_NEAR(*e->within->detectable_paired_signed_rank, std::expm1(t * std::sqrt(M_PI / 3)),
              1e-12);
  EXPECT_GT(*e->within->detectable_paired_signed_rank, e->within->detectable_paired);
  // At alpha 0.001, 8 pairs (2^-8 = 0.0039) cannot reach it.
  auto strict = estimate_noise("throughput.rps", figures, 0.001, reps);
  ASSERT_TRUE(strict && strict->within);
  EXPECT_FALSE(strict->within->detectable_paired_signed_rank.has_value());
}

TEST(Calibration, RunsInTwoGroupsFarApartAreNamedAndOneGroupIsNot) {
  // Four fast runs and four 27% slower ones, each run's repetitions within 1%.
  const std::vector<double> bimodal{180, 181, 179, 180.5, 131, 132, 130.5, 131.5};
  std::vector<std::vector<double>> reps;
  for (double f : bimodal) reps.push_back({f * 0.995, f * 1.005});
  auto e = estimate_noise("throughput.rps", bimodal, 0.01, reps);
  ASSERT_TRUE(e.has_value());
  ASSERT_TRUE(e->groups_apart.has_value());
  EXPECT_NEAR(*e->groups_apart, 179.0 / 132 - 1, 1e-5);

  // The same spread without a gap (evenly spread runs) is no pair of groups.
  const std::vector<double> spread{131, 138, 145, 152, 159, 166, 173, 180};
  reps.clear();
  for (double f : spread) reps.push_back({f * 0.995, f * 1.005});
  auto u = estimate_noise("throughput.rps", spread, 0.01, reps);
  ASSERT_TRUE(u.has_value());
  EXPECT_FALSE(u->groups_apart.has_value());

  // One outlier is not a group: each side needs two runs.
  const std::vector<double> outlier{180, 181, 179, 180.5, 180.2, 179.8, 181.1, 131};
  reps.clear();
  for (double f : outlier) reps.push_back({f * 0.995, f * 1.005});
  auto o = estimate_noise("throughput.rps", outlier, 0.01, reps);
  ASSERT_TRUE(o.has_value());
  EXPECT_FALSE(o->groups_apart.has_value());
}

TEST(Calibration, WithoutTwoRepetitionsInEveryRunThereIsNoWithinRunSpread) {
  const std::vector<double> figures{100, 101, 99};
  const std::vector<std::vector<double>> reps{{100, 100.5}, {101}, {99, 99.2}};
  auto e = estimate_noise("throughput.rps", figures, 0.01, reps);
  ASSERT_TRUE(e.has_value());
  EXPECT_FALSE(e->within.has_value());
  EXPECT_FALSE(e->groups_apart.has_value());
  auto plain = estimate_noise("throughput.rps", figures, 0.01);
  ASSERT_TRUE(plain.has_value());
  EXPECT_FALSE(plain->within.has_value());
}

}  // namespace
}  // namespace benchgate::gates
