// Single-gate verdicts on hand-made values: absolute bounds, missing data, missing baselines,
// malformed gates, values log space cannot take, and the exact small-sample path.
#include "orchestrator/gates/gate_evaluator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gate_test_support.h"

namespace benchgate::gates {
namespace {

using testing::absolute_gate;
using testing::relative_gate;

TEST(AbsoluteGate, MedianWithinMaxPassesAndAboveFails) {
  const auto gate = absolute_gate("latency.p99", 0.005);
  const GateOutcome ok = evaluate_gate(gate, std::vector<double>{0.004, 0.0042, 0.009}, {});
  EXPECT_EQ(ok.verdict, Verdict::kPass);
  EXPECT_EQ(ok.method, Method::kAbsolute);
  EXPECT_DOUBLE_EQ(*ok.observed, 0.0042);  // the median, not the worst repetition
  EXPECT_DOUBLE_EQ(*ok.threshold, 0.005);
  EXPECT_EQ(ok.explanation, "median 4.20ms over 3 repetitions within max 5.00ms");

  const GateOutcome bad = evaluate_gate(gate, std::vector<double>{0.006, 0.0061, 0.001}, {});
  EXPECT_EQ(bad.verdict, Verdict::kFail);
  EXPECT_EQ(bad.explanation, "median 6.00ms over 3 repetitions above max 5.00ms");
  EXPECT_NEAR(*bad.effect, 0.001, 1e-15);
}

TEST(AbsoluteGate, MinBoundFailsBelowAndTheViolatedBoundIsReported) {
  const auto gate = absolute_gate("throughput.rps", 20000, 10000);
  const GateOutcome low = evaluate_gate(gate, std::vector<double>{9000, 9500, 9900}, {});
  EXPECT_EQ(low.verdict, Verdict::kFail);
  EXPECT_FALSE(low.threshold_is_max);
  EXPECT_DOUBLE_EQ(*low.threshold, 10000);
  EXPECT_EQ(low.explanation, "median 9.50k ops/s over 3 repetitions below min 10.0k ops/s");
  const GateOutcome mid = evaluate_gate(gate, std::vector<double>{15000}, {});
  EXPECT_EQ(mid.verdict, Verdict::kPass);
}

TEST(MissingData, AMetricThatWasNotCollectedIsAnErrorNeverAPass) {
  const GateOutcome o = evaluate_gate(absolute_gate("latency.p99", 0.005), std::nullopt, {});
  EXPECT_EQ(o.verdict, Verdict::kError);
  EXPECT_EQ(o.explanation, "latency.p99 was not collected");
  EXPECT_FALSE(o.observed.has_value());
}

TEST(MissingData, NoRepetitionsOrNonFiniteValuesAreErrors) {
  const auto gate = relative_gate("throughput.rps");
  const std::vector<BaselineRun> base{{1, {100, 101}}};
  EXPECT_EQ(evaluate_gate(gate, std::vector<double>{}, base).verdict, Verdict::kError);
  EXPECT_EQ(evaluate_gate(gate, std::vector<double>{100, std::nan("")}, base).verdict,
            Verdict::kError);
  EXPECT_EQ(evaluate_gate(gate, std::vector<double>{std::numeric_limits<double>::infinity()}, base)
                .verdict,
            Verdict::kError);
}

TEST(MissingData, MissingMetricIsAnErrorEvenWithoutABaseline) {
  EXPECT_EQ(evaluate_gate(relative_gate("throughput.rps"), std::nullopt, {}).verdict,
            Verdict::kError);
}

TEST(NoBaseline, NoBaselineRunGivesNoBaseline) {
  const GateOutcome o =
      evaluate_gate(relative_gate("throughput.rps"), std::vector<double>{100, 101, 99}, {});
  EXPECT_EQ(o.verdict, Verdict::kNoBaseline);
  EXPECT_TRUE(o.baseline_run_ids.empty());
  EXPECT_NE(o.explanation.find("'main'"), std::string::npos) << o.explanation;
}

TEST(NoBaseline, BaselineRunsWithoutTheMetricAreLeftOut) {
  const std::vector<BaselineRun> empty_runs{{7, {}}, {8, {std::nan("")}}};
  EXPECT_EQ(
      evaluate_gate(relative_gate("throughput.rps"), std::vector<double>{100}, empty_runs).verdict,
      Verdict::kNoBaseline);
  const std::vector<BaselineRun> mixed{{7, {}}, {8, {100, 101, 99}}};
  const GateOutcome o =
      evaluate_gate(relative_gate("throughput.rps"), std::vector<double>{100, 100.5}, mixed);
  EXPECT_EQ(o.verdict, Verdict::kPass) << o.explanation;
  EXPECT_EQ(o.baseline_run_ids, std::vector<int64_t>{8});
}

TEST(MalformedGate, UnknownMetricIsAnError) {
  const GateOutcome o =
      evaluate_gate(absolute_gate("latency.p98", 0.005), std::vector<double>{0.001}, {});
  EXPECT_EQ(o.verdict, Verdict::kError);
  EXPECT_EQ(o.explanation, "unknown metric 'latency.p98'");
}

TEST(MalformedGate, RelativeGateWithoutBaselineNameOrWithoutBoundIsAnError) {
  auto no_name = relative_gate("throughput.rps");
  no_name.baseline.clear();
  EXPECT_EQ(evaluate_gate(no_name, std::vector<double>{1}, {}).verdict, Verdict::kError);
  auto no_bound = relative_gate("throughput.rps");
  no_bound.baseline.clear();
  no_bound.max_regression.reset();
  EXPECT_EQ(evaluate_gate(no_bound, std::vector<double>{1}, {}).verdict, Verdict::kError);
  auto bad_alpha = relative_gate("throughput.rps", 0.05, 0);
  EXPECT_EQ(evaluate_gate(bad_alpha, std::vector<double>{1}, {{1, {1}}}).verdict, Verdict::kError);
}

TEST(LogSpace, NegativeValuesGiveAnErrorInsteadOfACrash) {
  const auto gate = relative_gate("latency.p50");
  const GateOutcome neg_new = evaluate_gate(gate, std::vector<double>{-1, 0.001}, {{1, {0.001}}});
  EXPECT_EQ(neg_new.verdict, Verdict::kError);
  EXPECT_NE(neg_new.explanation.find("log space"), std::string::npos);
  const GateOutcome neg_base = evaluate_gate(gate, std::vector<double>{0.001}, {{1, {-0.001}}});
  EXPECT_EQ(neg_base.verdict, Verdict::kError);
}

TEST(LogSpace, ZeroErrorsStayComparableThroughTheMetricFloor) {
  const auto gate = relative_gate("errors.count");
  std::vector<BaselineRun> clean;
  for (int r = 0; r < 5; ++r) clean.push_back({r, {0, 0, 0}});
  const GateOutcome still_clean = evaluate_gate(gate, std::vector<double>{0, 0, 0}, clean);
  EXPECT_EQ(still_clean.verdict, Verdict::kPass) << still_clean.explanation;
  EXPECT_DOUBLE_EQ(*still_clean.baseline_centre, 0);
  // A deterministic metric that moves is certain: zero spread gives p = 0.
  const GateOutcome now_failing = evaluate_gate(gate, std::vector<double>{3, 3, 4}, clean);
  EXPECT_EQ(now_failing.verdict, Verdict::kFail) << now_failing.explanation;
  EXPECT_DOUBLE_EQ(*now_failing.p_value, 0);
}

TEST(SmallBaseline, ExactMannWhitneyDecidesAtTheOracleValues) {
  // 5 new repetitions all 20% slower than 5 baseline ones: p = 1/252 = 0.00397 < 0.01.
  const std::vector<BaselineRun> base{{42, {1.00, 1.01, 1.02, 1.03, 1.04}}};
  const std::vector<double> worse{1.20, 1.21, 1.22, 1.23, 1.24};
  const GateOutcome five = evaluate_gate(relative_gate("latency.p50"), worse, base);
  EXPECT_EQ(five.method, Method::kMannWhitney);
  EXPECT_EQ(five.verdict, Verdict::kFail) << five.explanation;
  EXPECT_NEAR(*five.p_value, 0.00397, 5e-6);

  // 3 against 3 cannot reach p < 0.01 (its minimum is 0.05): a real regression is
  // inconclusive, and a pass is marked underpowered.
  const std::vector<BaselineRun> small{{43, {1.00, 1.01, 1.02}}};
  const GateOutcome three =
      evaluate_gate(relative_gate("latency.p50"), std::vector<double>{1.2, 1.21, 1.22}, small);
  EXPECT_EQ(three.verdict, Verdict::kInconclusive) << three.explanation;
  EXPECT_NEAR(*three.p_value, 0.05, 5e-6);
  EXPECT_NE(three.explanation.find("not significant"), std::string::npos);
  const GateOutcome same =
      evaluate_gate(relative_gate("latency.p50"), std::vector<double>{1.0, 1.01, 1.02}, small);
  EXPECT_EQ(same.verdict, Verdict::kPass);
  EXPECT_TRUE(same.underpowered);
  // With alpha 0.1 the same 3-vs-3 regression is significant.
  const GateOutcome lenient = evaluate_gate(relative_gate("latency.p50", 0.05, 0.1),
                                            std::vector<double>{1.2, 1.21, 1.22}, small);
  EXPECT_EQ(lenient.verdict, Verdict::kFail);
}

TEST(CombinedGate, AbsoluteFailureWinsOtherwiseTheRelativeVerdictDecides) {
  auto gate = relative_gate("latency.p50");
  gate.max = 1.1;
  const std::vector<BaselineRun> base{{1, {1.00, 1.01, 1.02, 1.03, 1.04}}};
  const GateOutcome over = evaluate_gate(gate, std::vector<double>{1.5, 1.5, 1.5}, base);
  EXPECT_EQ(over.verdict, Verdict::kFail);
  EXPECT_EQ(over.method, Method::kAbsolute);
  const GateOutcome under = evaluate_gate(gate, std::vector<double>{1.0, 1.01, 1.02}, base);
  EXPECT_EQ(under.verdict, Verdict::kPass);
  EXPECT_EQ(under.method, Method::kMannWhitney);
}

TEST(Outcome, CarriesTheGateIdentityAndNamesItsVerdicts) {
  auto gate = absolute_gate("latency.p99", 0.005);
  gate.severity = scenario::GateSeverity::kWarning;
  gate.workload = "wamp_*";
  const GateOutcome o = evaluate_gate(gate, std::vector<double>{0.001}, {});
  EXPECT_EQ(o.workload, "wamp_*");
  EXPECT_EQ(o.metric, "latency.p99");
  EXPECT_EQ(o.severity, scenario::GateSeverity::kWarning);
  EXPECT_EQ(to_string(Verdict::kNoBaseline), "no_baseline");
  EXPECT_EQ(to_string(Method::kMannWhitney), "mann-whitney");
  const GateOutcome e = error_outcome(gate, "the workload crashed");
  EXPECT_EQ(e.verdict, Verdict::kError);
  EXPECT_EQ(e.explanation, "the workload crashed");
}

}  // namespace
}  // namespace benchgate::gates
