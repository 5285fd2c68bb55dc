// Decisions over a whole run's gates: Holm's correction and exit codes.
#include <gtest/gtest.h>

#include <vector>

#include "gate_test_support.h"
#include "orchestrator/gates/gate_evaluator.h"

namespace benchgate::gates {
namespace {

using testing::relative_gate;

// A borderline regression: 5 repetitions all 20% slower than 5 baseline ones, p = 0.00397.
GateOutcome borderline_fail() {
  return evaluate_gate(relative_gate("latency.p50"),
                       std::vector<double>{1.20, 1.21, 1.22, 1.23, 1.24},
                       {{1, {1.00, 1.01, 1.02, 1.03, 1.04}}});
}

GateOutcome healthy(const char* metric) {
  return evaluate_gate(relative_gate(metric), std::vector<double>{1.00, 1.02, 1.04, 1.01, 1.03},
                       {{1, {1.00, 1.01, 1.02, 1.03, 1.04}}});
}

TEST(Holm, ALoneBorderlineFailStaysAFail) {
  std::vector<GateOutcome> run{borderline_fail()};
  apply_holm(run);
  EXPECT_EQ(run[0].verdict, Verdict::kFail);
  EXPECT_DOUBLE_EQ(*run[0].p_adjusted, *run[0].p_value);
}

TEST(Holm, ABorderlineFailBecomesInconclusiveWhenManyGatesAreTested) {
  std::vector<GateOutcome> run{borderline_fail(), healthy("latency.p75"), healthy("latency.p90"),
                               healthy("latency.p95"), healthy("latency.p99")};
  ASSERT_EQ(run[0].verdict, Verdict::kFail);
  apply_holm(run);
  EXPECT_EQ(run[0].verdict, Verdict::kInconclusive) << run[0].explanation;
  EXPECT_NEAR(*run[0].p_adjusted, 5 * (1.0 / 252), 1e-12);
  EXPECT_NE(run[0].explanation.find("Holm-adjusted"), std::string::npos) << run[0].explanation;
  for (size_t i = 1; i < run.size(); ++i) EXPECT_EQ(run[i].verdict, Verdict::kPass);
  // Applying it again changes nothing.
  apply_holm(run);
  EXPECT_EQ(run[0].verdict, Verdict::kInconclusive);
  EXPECT_NEAR(*run[0].p_adjusted, 5 * (1.0 / 252), 1e-12);
}

TEST(Holm, AbsoluteAndErrorOutcomesAreNotInTheFamily) {
  std::vector<GateOutcome> run{
      borderline_fail(),
      evaluate_gate(testing::absolute_gate("latency.p99", 5), std::vector<double>{1}, {}),
      evaluate_gate(relative_gate("latency.p50"), std::nullopt, {})};
  apply_holm(run);
  EXPECT_EQ(run[0].verdict, Verdict::kFail);
  EXPECT_FALSE(run[1].p_adjusted.has_value());
  EXPECT_EQ(run[2].verdict, Verdict::kError);
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

TEST(ExitCode, ErrorIsThreeAndWinsOverFail) {
  EXPECT_EQ(exit_code_for(std::vector{with(Verdict::kFail), with(Verdict::kError)}, false), 3);
  EXPECT_EQ(exit_code_for(std::vector{with(Verdict::kError), with(Verdict::kFail)}, true), 3);
}

}  // namespace
}  // namespace benchgate::gates
