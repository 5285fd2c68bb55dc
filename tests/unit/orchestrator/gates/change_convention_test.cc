// Every percentage of a gate's explanation is the candidate's change relative to the baseline
// (candidate / baseline - 1), whatever the metric's direction, and a smallest detectable change
// beyond a factor of 10 is said in words (docs/GATES.md, "Verdicts").
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gate_test_support.h"
#include "orchestrator/gates/gate_evaluator.h"
#include "orchestrator/gates/metrics.h"

namespace benchgate::gates {
namespace {

using testing::base;
using testing::relative_gate;
using testing::run;

scenario::Gate paired_gate(std::string metric, double max_regression, double alpha) {
  scenario::Gate g;
  g.workload = "hello";
  g.variant = "candidate";
  g.against = "baseline";
  g.metric = std::move(metric);
  g.max_regression = max_regression;
  g.alpha = alpha;
  return g;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ChangeConvention, HelpersGiveCandidateOverBaselineMinusOne) {
  // A throughput at 25% of the baseline: log effect ln 4 (worse), change -75%.
  EXPECT_NEAR(change_of_log_effect(std::log(4.0), Direction::kHigherIsBetter), -0.75, 1e-12);
  EXPECT_NEAR(change_of_log_effect(std::log(4.0), Direction::kLowerIsBetter), 3.0, 1e-12);
  // max_regression 5% on throughput: the candidate may fall to 1 / 1.05 of the baseline.
  EXPECT_NEAR(change_of_regression(0.05, Direction::kHigherIsBetter), 1 / 1.05 - 1, 1e-12);
  EXPECT_NEAR(change_of_regression(0.05, Direction::kLowerIsBetter), 0.05, 1e-12);
  // However large the regression, a drop of a higher-is-better metric stays above -100%.
  EXPECT_GT(change_of_regression(36931.253, Direction::kHigherIsBetter), -1);
  EXPECT_EQ(change_percent(-0.716), "-71.6%");
  EXPECT_EQ(change_percent(0.023), "+2.3%");
  EXPECT_EQ(change_percent(change_of_regression(0, Direction::kHigherIsBetter)), "+0.0%");
  // A change that rounds to 0 at the printed tenth reads +0.0%, whichever side of 0 it lies on.
  EXPECT_EQ(change_percent(-0.0004), "+0.0%");
  EXPECT_EQ(change_percent(0.0004), "+0.0%");
  EXPECT_EQ(change_percent(-0.0006), "-0.1%");
  EXPECT_FALSE(beyond_meaningful(9.0));  // exactly a factor of 10
  EXPECT_TRUE(beyond_meaningful(9.01));
}

// calibrate's `detect` columns: the walkthrough's "detect 1 run 11799.0%" on throughput.
TEST(ChangeConvention, CalibrateDetectColumnsAreChangesOrNone) {
  EXPECT_EQ(detectable_change_text(117.99, Direction::kHigherIsBetter), "none");
  EXPECT_EQ(detectable_change_text(117.99, Direction::kLowerIsBetter), "none");
  EXPECT_EQ(detectable_change_text(0.142, Direction::kHigherIsBetter), "-12.4%");
  EXPECT_EQ(detectable_change_text(0.142, Direction::kLowerIsBetter), "14.2%");
  EXPECT_EQ(detectable_change_text(9.0, Direction::kHigherIsBetter), "-90.0%");
}

// The walkthrough's case: a candidate at about 28% of the baseline's throughput read
// "-71.6% (Hodges-Lehmann +270.7% worse)", the second figure baseline / candidate - 1.
TEST(ChangeConvention, PairedThroughputDropIsOneNegativeChangeWorse) {
  const RunValues baseline = run({100, 101, 99, 100, 102, 98, 100});
  const RunValues candidate = run({28, 28.5, 27.5, 28.2, 28.4, 27.9, 28.1});
  const GateOutcome o =
      evaluate_paired_gate(paired_gate("throughput.rps", 0.05, 0.01), candidate, baseline);
  ASSERT_TRUE(o.effect.has_value());
  ASSERT_GT(*o.effect, 0);  // stored positive-is-worse, unchanged
  const double change = std::expm1(-*o.effect);
  EXPECT_GT(change, -0.75);
  EXPECT_LT(change, -0.70);
  EXPECT_TRUE(has(o.explanation, "(Hodges-Lehmann " + change_percent(change) + ", worse)"))
      << o.explanation;
  EXPECT_FALSE(has(o.explanation, "Hodges-Lehmann +")) << o.explanation;
  // The allowance in the same convention, the key's own value beside it.
  EXPECT_TRUE(has(o.explanation, "the -4.8% allowance (max_regression 5.0%, threshold"))
      << o.explanation;
}

TEST(ChangeConvention, PairedThroughputRiseIsPositiveAndBetter) {
  const RunValues baseline = run({100, 101, 99, 100, 102, 98, 100});
  const RunValues candidate = run({110, 111, 109, 110.5, 112, 108, 110});
  const GateOutcome o =
      evaluate_paired_gate(paired_gate("throughput.rps", 0.05, 0.01), candidate, baseline);
  ASSERT_LT(*o.effect, 0);
  EXPECT_TRUE(
      has(o.explanation, "(Hodges-Lehmann " + change_percent(std::expm1(-*o.effect)) + ", better)"))
      << o.explanation;
  EXPECT_TRUE(has(o.explanation, "Hodges-Lehmann +")) << o.explanation;
}

TEST(ChangeConvention, PairedLatencyRiseIsPositiveAndWorse) {
  const RunValues baseline = run({1.00e-3, 1.01e-3, 0.99e-3, 1.00e-3, 1.02e-3, 0.98e-3, 1.0e-3});
  const RunValues candidate = run({2.00e-3, 2.02e-3, 1.98e-3, 2.0e-3, 2.04e-3, 1.96e-3, 2.0e-3});
  const GateOutcome o =
      evaluate_paired_gate(paired_gate("latency.p50", 0.05, 0.01), candidate, baseline);
  ASSERT_GT(*o.effect, 0);
  EXPECT_TRUE(
      has(o.explanation, "(Hodges-Lehmann " + change_percent(std::expm1(*o.effect)) + ", worse)"))
      << o.explanation;
  EXPECT_TRUE(has(o.explanation, "the 5.0% allowance (threshold")) << o.explanation;
}

// Two baseline runs 30% apart: nested-t with one degree of freedom cannot detect a throughput
// falling to a tenth. The walkthrough's explanation printed "smallest detectable: 3693125.3%".
TEST(ChangeConvention, AnAbsurdSmallestDetectableIsSaidInWords) {
  const std::vector<BaselineRun> two{base(1, {100, 100.5, 99.5}), base(2, {130, 130.5, 129.5})};
  const GateOutcome o = evaluate_gate(relative_gate("throughput.rps"), run({100, 101, 99}), two);
  ASSERT_TRUE(o.underpowered);
  ASSERT_TRUE(o.detectable.has_value());
  EXPECT_GT(*o.detectable, 9);  // the stored figure keeps its definition
  EXPECT_TRUE(
      has(o.explanation, "(cannot detect any change within a factor of 10 with 2 baseline runs)"))
      << o.explanation;
  EXPECT_FALSE(has(o.explanation, "smallest detectable")) << o.explanation;
}

// Three baseline runs 2% apart: what the test can detect is a figure, a drop in the convention
// of the change beside it.
TEST(ChangeConvention, ThroughputSmallestDetectableIsADrop) {
  const std::vector<BaselineRun> three{base(1, {100, 100.1, 99.9}), base(2, {102, 102.1, 101.9}),
                                       base(3, {98, 98.1, 97.9})};
  const GateOutcome o =
      evaluate_gate(relative_gate("throughput.rps"), run({99, 99.1, 98.9}), three);
  ASSERT_TRUE(o.underpowered) << o.explanation;
  ASSERT_TRUE(o.detectable.has_value());
  ASSERT_FALSE(beyond_meaningful(*o.detectable));
  const double drop = 1 / (1 + *o.detectable) - 1;
  EXPECT_TRUE(has(o.explanation, "(smallest detectable: " + change_percent(drop) + ")"))
      << o.explanation;
  EXPECT_TRUE(has(o.explanation, "underpowered: a -9.3% regression")) << o.explanation;
}

TEST(ChangeConvention, LatencySmallestDetectableKeepsItsFigure) {
  const std::vector<BaselineRun> three{base(1, {1.00e-3, 1.001e-3, 0.999e-3}),
                                       base(2, {1.02e-3, 1.021e-3, 1.019e-3}),
                                       base(3, {0.98e-3, 0.981e-3, 0.979e-3})};
  const GateOutcome o =
      evaluate_gate(relative_gate("latency.p50"), run({1.0e-3, 1.001e-3, 0.999e-3}), three);
  ASSERT_TRUE(o.underpowered) << o.explanation;
  ASSERT_TRUE(o.detectable.has_value());
  char expected[64];
  std::snprintf(expected, sizeof expected, "(smallest detectable: %.1f%%)", *o.detectable * 100);
  EXPECT_TRUE(has(o.explanation, expected)) << o.explanation;
  EXPECT_TRUE(has(o.explanation, "underpowered: a 10.2% regression")) << o.explanation;
}

}  // namespace
}  // namespace benchgate::gates
