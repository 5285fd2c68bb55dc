// Decisions over a whole run's gates: Holm's correction and exit codes.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "gate_test_support.h"
#include "orchestrator/gates/gate_evaluator.h"

namespace benchgate::gates {
namespace {

using testing::base;
using testing::relative_gate;
using testing::run;

// Five baseline runs at 1.00 .. 1.04.
std::vector<BaselineRun> five_runs() {
  std::vector<BaselineRun> runs;
  for (int r = 0; r < 5; ++r) runs.push_back(base(r, {1.0 + 0.01 * r}));
  return runs;
}

// A borderline regression: a run at 1.10 against them, t-test p about 0.006.
GateOutcome borderline_fail() {
  return evaluate_gate(relative_gate("latency.p50"), run({1.10}), five_runs());
}

GateOutcome healthy(const char* metric) {
  return evaluate_gate(relative_gate(metric), run({1.02}), five_runs());
}

TEST(Holm, ALoneBorderlineFailStaysAFail) {
  std::vector<GateOutcome> family{borderline_fail()};
  apply_holm(family);
  EXPECT_EQ(family[0].verdict, Verdict::kFail);
  EXPECT_DOUBLE_EQ(*family[0].p_adjusted, *family[0].p_value);
}

TEST(Holm, ABorderlineFailBecomesInconclusiveWhenManyGatesAreTested) {
  std::vector<GateOutcome> family{borderline_fail(), healthy("latency.p75"), healthy("latency.p90"),
                                  healthy("latency.p95"), healthy("latency.p99")};
  ASSERT_EQ(family[0].verdict, Verdict::kFail);
  apply_holm(family);
  EXPECT_EQ(family[0].verdict, Verdict::kInconclusive) << family[0].explanation;
  EXPECT_NEAR(*family[0].p_adjusted, 5 * *family[0].p_value, 1e-12);
  EXPECT_NE(family[0].explanation.find("Holm-adjusted"), std::string::npos)
      << family[0].explanation;
  for (size_t i = 1; i < family.size(); ++i) EXPECT_EQ(family[i].verdict, Verdict::kPass);
  // Applying it again changes nothing.
  apply_holm(family);
  EXPECT_EQ(family[0].verdict, Verdict::kInconclusive);
  EXPECT_NEAR(*family[0].p_adjusted, 5 * *family[0].p_value, 1e-12);
}

TEST(Holm, AbsoluteAndErrorOutcomesAreNotInTheFamily) {
  std::vector<GateOutcome> family{
      borderline_fail(), evaluate_gate(testing::absolute_gate("latency.p99", 5), run({1}), {}),
      evaluate_gate(relative_gate("latency.p50"), std::nullopt, {})};
  apply_holm(family);
  EXPECT_EQ(family[0].verdict, Verdict::kFail);
  EXPECT_FALSE(family[1].p_adjusted.has_value());
  EXPECT_EQ(family[2].verdict, Verdict::kError);
}

// Underpowered says a regression of twice the allowance could not have failed the gate, so it
// takes the correction the verdict takes. A 4% allowance on the five runs above: a regression
// of 8.2% would give p about 0.006, below alpha 0.01 alone, but not below the 0.01 / 3 Holm
// asks of the smallest of three p-values when the other two gates are healthy. When those two
// fail clearly, Holm asks the third only p < alpha again, and it has the power.
TEST(Holm, UnderpoweredAccountsForTheCorrectionApplied) {
  const GateOutcome alone =
      evaluate_gate(relative_gate("latency.p50", 0.04), run({1.02}), five_runs());
  ASSERT_EQ(alone.method, Method::kTTest);
  std::vector<GateOutcome> single{alone};
  apply_holm(single);
  EXPECT_FALSE(single[0].underpowered) << single[0].explanation;

  std::vector<GateOutcome> with_healthy{alone, healthy("latency.p75"), healthy("latency.p90")};
  apply_holm(with_healthy);
  EXPECT_EQ(with_healthy[0].verdict, Verdict::kPass);
  EXPECT_TRUE(with_healthy[0].underpowered) << with_healthy[0].explanation;
  EXPECT_NE(with_healthy[0].explanation.find(
                "underpowered: a 8.2% regression could not be detected at alpha 0.01 after "
                "Holm's correction over 3 gates"),
            std::string::npos)
      << with_healthy[0].explanation;
  apply_holm(with_healthy);  // idempotent
  EXPECT_TRUE(with_healthy[0].underpowered);

  const auto clear_fail = [](const char* metric) {
    return evaluate_gate(relative_gate(metric), run({1.5}), five_runs());
  };
  std::vector<GateOutcome> with_failing{alone, clear_fail("latency.p75"),
                                        clear_fail("latency.p90")};
  apply_holm(with_failing);
  ASSERT_EQ(with_failing[1].verdict, Verdict::kFail);
  ASSERT_EQ(with_failing[2].verdict, Verdict::kFail);
  EXPECT_FALSE(with_failing[0].underpowered) << with_failing[0].explanation;
}

// The smallest detectable regression is the one the verdict could catch, at the level Holm's
// correction sets: beside two healthy gates the 4% gate above cannot detect the 8.2% regression
// (underpowered), so what it can detect is more than 8.2%, not the 6.8% it detects alone at
// the raw alpha that the explanation printed beside "underpowered" before.
TEST(Holm, TheSmallestDetectableRegressionTakesTheCorrectionTheVerdictTakes) {
  const GateOutcome alone =
      evaluate_gate(relative_gate("latency.p50", 0.04), run({1.02}), five_runs());
  std::vector<GateOutcome> single{alone};
  apply_holm(single);
  ASSERT_TRUE(alone.detectable.has_value());
  ASSERT_TRUE(single[0].detectable.has_value());
  EXPECT_DOUBLE_EQ(*single[0].detectable, *alone.detectable);  // a family of one: alpha
  const double twice = std::expm1(2 * std::log1p(0.04));
  EXPECT_LT(*alone.detectable, twice);

  std::vector<GateOutcome> with_healthy{alone, healthy("latency.p75"), healthy("latency.p90")};
  apply_holm(with_healthy);
  ASSERT_TRUE(with_healthy[0].underpowered);
  ASSERT_TRUE(with_healthy[0].detectable.has_value());
  EXPECT_GT(*with_healthy[0].detectable, twice) << with_healthy[0].explanation;
  // Holm asks the smallest of three p-values for p < alpha / 3: the level of a lone gate at
  // alpha 0.01 / 3.
  GateOutcome at_a_third = alone;
  EXPECT_NEAR(*with_healthy[0].detectable, *at_a_third.detectable_at(0.01 / 3), 1e-9);
  EXPECT_EQ(with_healthy[0].explanation.find("before the correction"), std::string::npos)
      << with_healthy[0].explanation;
  apply_holm(with_healthy);  // idempotent
  EXPECT_NEAR(*with_healthy[0].detectable, *at_a_third.detectable_at(0.01 / 3), 1e-9);
}

GateOutcome with(Verdict v, scenario::GateSeverity s = scenario::GateSeverity::kCritical) {
  GateOutcome o;
  o.verdict = v;
  o.severity = s;
  return o;
}

TEST(ExitCode, AllCriticalPassIsZero) {
  EXPECT_EQ(exit_code_for(std::vector<GateOutcome>{}, false), kExitPass);
  EXPECT_EQ(exit_code_for(std::vector{with(Verdict::kPass), with(Verdict::kPass)}, true), 0);
}

TEST(ExitCode, CriticalFailIsOneAndWarningsAreReportedOnly) {
  EXPECT_EQ(exit_code_for(std::vector{with(Verdict::kPass), with(Verdict::kFail)}, false), 1);
  const auto warn = scenario::GateSeverity::kWarning;
  EXPECT_EQ(
      exit_code_for(std::vector{with(Verdict::kFail, warn), with(Verdict::kError, warn)}, true), 0);
}

TEST(ExitCode, InconclusiveAndNoBaselineFailOnlyWhenStrict) {
  const std::vector soft{with(Verdict::kInconclusive), with(Verdict::kNoBaseline)};
  EXPECT_EQ(exit_code_for(soft, false), 0);
  EXPECT_EQ(exit_code_for(soft, true), 1);
  EXPECT_EQ(exit_code_for(std::vector{with(Verdict::kNoBaseline)}, true), 1);
}

TEST(ExitCode, NotConfiguredFailsOnlyWhenStrict) {
  EXPECT_EQ(exit_code_for(std::vector{with(Verdict::kNotConfigured)}, false), 0);
  EXPECT_EQ(exit_code_for(std::vector{with(Verdict::kNotConfigured)}, true), 1);
}

TEST(ExitCode, UnderpoweredFailsWhenStrictOrAskedFor) {
  GateOutcome weak = with(Verdict::kPass);
  weak.underpowered = true;
  EXPECT_EQ(exit_code_for(std::vector{weak}, false), 0);
  EXPECT_EQ(exit_code_for(std::vector{weak}, true), 1);
  weak.fail_when_underpowered = true;
  EXPECT_EQ(exit_code_for(std::vector{weak}, false), 1);
  weak.severity = scenario::GateSeverity::kWarning;
  EXPECT_EQ(exit_code_for(std::vector{weak}, false), 0);
}

TEST(ExitCode, ErrorIsThreeAndWinsOverFail) {
  EXPECT_EQ(exit_code_for(std::vector{with(Verdict::kFail), with(Verdict::kError)}, false), 3);
  EXPECT_EQ(exit_code_for(std::vector{with(Verdict::kError), with(Verdict::kFail)}, true), 3);
}

}  // namespace
}  // namespace benchgate::gates
