// A gate's effect interval: d +- t * standard error from the test's own s and df, so it agrees
// with the p-value the gate decided on; none where the method has no such test.
#include "orchestrator/gates/effect_interval.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "gate_test_support.h"
#include "orchestrator/gates/gate_evaluator.h"
#include "orchestrator/gates/statistics.h"

namespace benchgate::gates {
namespace {

using testing::absolute_gate;
using testing::base;
using testing::relative_gate;
using testing::run;

TEST(EffectInterval, IsTheEffectPlusMinusTTimesTheStandardError) {
  // t(0.99, 4) = 3.746947 (published tables).
  const auto i = effect_interval(0.1, 0.02, 4, 0.98);
  ASSERT_TRUE(i.has_value());
  EXPECT_NEAR(i->low, 0.1 - 3.746947 * 0.02, 1e-6);
  EXPECT_NEAR(i->high, 0.1 + 3.746947 * 0.02, 1e-6);
  EXPECT_DOUBLE_EQ(i->confidence, 0.98);
  // A deterministic metric: no spread, the interval is the point.
  const auto point = effect_interval(0.25, 0, 3, 0.98);
  ASSERT_TRUE(point.has_value());
  EXPECT_DOUBLE_EQ(point->low, 0.25);
  EXPECT_DOUBLE_EQ(point->high, 0.25);
  EXPECT_FALSE(effect_interval(0.1, 0.02, 0, 0.98));  // no degrees of freedom
  EXPECT_FALSE(effect_interval(0.1, 0.02, 4, 1.0));   // no such level
  EXPECT_FALSE(effect_interval(NAN, 0.02, 4, 0.98));  // nothing to centre on
  EXPECT_FALSE(effect_interval(0.1, -1, 4, 0.98));    // not a standard error
  EXPECT_DOUBLE_EQ(interval_confidence(0.01), 0.98);
}

// The t-test's interval, recomputed by hand from the baseline runs' logs: the same s (their
// standard deviation), df = k - 1, standard error s * sqrt(1 + r_k/k) (r_k: median_variance_ratio).
TEST(EffectInterval, ATTestGateGivesTheIntervalOfItsOwnStandardErrorAndDf) {
  const std::vector<double> figures = {1000, 1010, 990, 1005, 995, 1002};
  std::vector<BaselineRun> baseline;
  std::vector<double> logs;
  for (size_t r = 0; r < figures.size(); ++r) {
    baseline.push_back(base(static_cast<int64_t>(r + 1), {figures[r]}));
    logs.push_back(-std::log(figures[r] + 1e-3));  // throughput: higher is better (metrics.cc)
  }
  const GateOutcome o = evaluate_gate(relative_gate("throughput.rps"), run({960}), baseline);
  ASSERT_EQ(o.method, Method::kTTest);
  ASSERT_TRUE(o.effect_interval.has_value());
  const double k = static_cast<double>(figures.size());
  const double se = sample_stddev(logs) * std::sqrt(1 + median_variance_ratio(figures.size()) / k);
  const double t = student_t_quantile(0.99, k - 1);
  EXPECT_NEAR(o.effect_interval->low, *o.effect - t * se, 1e-9);
  EXPECT_NEAR(o.effect_interval->high, *o.effect + t * se, 1e-9);
  EXPECT_DOUBLE_EQ(o.effect_interval->confidence, 0.98);
}

// One definition: the interval's lower end lies above 0 exactly when p < alpha, on seeded
// baselines of every method that tests (t-test, nested-t with 2..4 runs, calibrated-t).
TEST(EffectInterval, ItsLowerEndIsAboveZeroExactlyWhenTheGateIsSignificant) {
  std::mt19937_64 rng(11);
  int significant = 0;
  int not_significant = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int runs = 2 + trial % 8;
    auto baseline = testing::baseline_runs(rng, runs, 1000, 0.02, 3);
    const double slowdown = 0.9 + 0.002 * (trial % 60);
    const auto fresh = testing::series(rng, 1000 * slowdown, 0.02, 3);
    std::optional<CalibratedNoise> calibration;
    if (runs < 5 && trial % 3 == 0) calibration = CalibratedNoise{0.02, 10};
    const GateOutcome o =
        evaluate_gate(relative_gate("throughput.rps"), run(fresh), baseline, calibration);
    ASSERT_TRUE(o.p_value.has_value()) << trial;
    ASSERT_TRUE(o.effect_interval.has_value()) << trial;
    EXPECT_LE(o.effect_interval->low, *o.effect);
    EXPECT_GE(o.effect_interval->high, *o.effect);
    const bool below_alpha = *o.p_value < 0.01;
    EXPECT_EQ(o.effect_interval->low > 0, below_alpha)
        << trial << " p=" << *o.p_value << " low=" << o.effect_interval->low;
    (below_alpha ? significant : not_significant)++;
  }
  // Both sides of the decision were exercised.
  EXPECT_GT(significant, 20);
  EXPECT_GT(not_significant, 20);
}

TEST(EffectInterval, NoneWhereTheMethodHasNoTestAndTheReasonSaysWhy) {
  const GateOutcome absolute =
      evaluate_gate(absolute_gate("throughput.rps", 20000), run({15000}), {});
  EXPECT_FALSE(absolute.effect_interval.has_value());
  EXPECT_NE(why_no_interval(to_string(absolute.method), absolute.p_value.has_value()), "");

  const GateOutcome one_run =
      evaluate_gate(relative_gate("throughput.rps"), run({900}), {base(1, {1000, 1010})});
  ASSERT_EQ(one_run.method, Method::kNestedT);
  EXPECT_FALSE(one_run.p_value.has_value());
  EXPECT_FALSE(one_run.effect_interval.has_value());
  EXPECT_EQ(why_no_interval(to_string(one_run.method), false),
            "one baseline run: nothing measures the between-run spread");

  const GateOutcome two_runs = evaluate_gate(relative_gate("throughput.rps"), run({900}),
                                             {base(1, {1000, 1010}), base(2, {990, 1000})});
  EXPECT_TRUE(two_runs.effect_interval.has_value());
  EXPECT_EQ(why_no_interval(to_string(two_runs.method), true), "");

  const GateOutcome none = evaluate_gate(relative_gate("throughput.rps"), run({900}), {});
  EXPECT_EQ(none.verdict, Verdict::kNoBaseline);
  EXPECT_FALSE(none.effect_interval.has_value());
  EXPECT_EQ(why_no_interval(to_string(none.method), false), "nothing was compared");
  EXPECT_NE(why_no_interval(to_string(Method::kChangePoint), true), "");
  EXPECT_EQ(why_no_interval(to_string(Method::kTTest), true), "");
  EXPECT_EQ(why_no_interval(to_string(Method::kCalibratedT), true), "");
}

}  // namespace
}  // namespace benchgate::gates
