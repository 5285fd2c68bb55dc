// Single-gate verdicts on hand-made values: absolute bounds on the run's figure, missing data,
// missing baselines, malformed gates, values log space cannot take, few baseline runs.
#include "orchestrator/gates/gate_evaluator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gate_test_support.h"

namespace benchgate::gates {
namespace {

using testing::absolute_gate;
using testing::base;
using testing::relative_gate;
using testing::run;

TEST(AbsoluteGate, TheFigureWithinMaxPassesAndAboveFails) {
  const auto gate = absolute_gate("throughput.rps", 20000);
  const GateOutcome ok = evaluate_gate(gate, run({15000, 16000, 30000}), {});
  EXPECT_EQ(ok.verdict, Verdict::kPass);
  EXPECT_EQ(ok.method, Method::kAbsolute);
  EXPECT_DOUBLE_EQ(*ok.observed, 16000);  // the figure: here the median, not the worst one
  EXPECT_DOUBLE_EQ(*ok.threshold, 20000);
  EXPECT_EQ(ok.explanation, "16000 ops/s (median of 3 repetitions) within max 20000 ops/s");

  const GateOutcome bad = evaluate_gate(gate, run({21000, 21500, 1000}), {});
  EXPECT_EQ(bad.verdict, Verdict::kFail);
  EXPECT_EQ(bad.explanation, "21000 ops/s (median of 3 repetitions) above max 20000 ops/s");
  EXPECT_NEAR(*bad.effect, 1000, 1e-9);
}

TEST(AbsoluteGate, ErrorsAreSummedOverRepetitionsNotTheirMedian) {
  // [0, 0, 500]: the median is 0, and the report prints errors=500. The gate judges 500.
  const GateOutcome o = evaluate_gate(absolute_gate("errors.count", 0), run(500, {0, 0, 500}), {});
  EXPECT_EQ(o.verdict, Verdict::kFail) << o.explanation;
  EXPECT_DOUBLE_EQ(*o.observed, 500);
  EXPECT_EQ(o.explanation, "500 (summed over 3 repetitions) above max 0");
}

TEST(AbsoluteGate, LatencyJudgesTheMergedFigureItIsGiven) {
  // One slow repetition: the merged p99 is 8.9 ms while the median of per-repetition p99s is
  // about 1 ms. The gate judges the figure the report prints.
  const GateOutcome o =
      evaluate_gate(absolute_gate("latency.p99", 0.005), run(0.0089, {0.00105, 0.001, 0.0089}), {});
  EXPECT_EQ(o.verdict, Verdict::kFail) << o.explanation;
  EXPECT_DOUBLE_EQ(*o.observed, 0.0089);
  EXPECT_EQ(o.explanation, "8.9ms (3 repetitions merged) above max 5ms");
}

TEST(AbsoluteGate, MinBoundFailsBelowAndTheViolatedBoundIsReported) {
  const auto gate = absolute_gate("throughput.rps", 20000, 10000);
  const GateOutcome low = evaluate_gate(gate, run({9000, 9500, 9900}), {});
  EXPECT_EQ(low.verdict, Verdict::kFail);
  EXPECT_FALSE(low.threshold_is_max);
  EXPECT_DOUBLE_EQ(*low.threshold, 10000);
  EXPECT_EQ(low.explanation, "9500 ops/s (median of 3 repetitions) below min 10000 ops/s");
  const GateOutcome mid = evaluate_gate(gate, run({15000}), {});
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
  const std::vector<BaselineRun> baseline{base(1, {100, 101})};
  EXPECT_EQ(evaluate_gate(gate, run({}), baseline).verdict, Verdict::kError);
  EXPECT_EQ(evaluate_gate(gate, run(100, {100, std::nan("")}), baseline).verdict, Verdict::kError);
  EXPECT_EQ(evaluate_gate(gate, run({std::numeric_limits<double>::infinity()}), baseline).verdict,
            Verdict::kError);
  EXPECT_EQ(evaluate_gate(gate, run(std::nan(""), {100}), baseline).verdict, Verdict::kError);
}

TEST(MissingData, MissingMetricIsAnErrorEvenWithoutABaseline) {
  EXPECT_EQ(evaluate_gate(relative_gate("throughput.rps"), std::nullopt, {}).verdict,
            Verdict::kError);
}

TEST(NoBaseline, NoBaselineRunGivesNoBaseline) {
  const GateOutcome o = evaluate_gate(relative_gate("throughput.rps"), run({100, 101, 99}), {});
  EXPECT_EQ(o.verdict, Verdict::kNoBaseline);
  EXPECT_TRUE(o.baseline_run_ids.empty());
  EXPECT_NE(o.explanation.find("'main'"), std::string::npos) << o.explanation;
}

// A baseline that holds the workload only under an earlier definition: the verdict stays
// no_baseline and says why, with the parameters that changed, so that the user re-baselines.
TEST(NoBaseline, ABaselineOfAnotherDefinitionIsSaidWithItsDifferences) {
  const OtherDefinition other{4, {"duration_ns (run 4: 1000000000, now: 1500000000)"}};
  const GateOutcome o =
      evaluate_gate(relative_gate("throughput.rps"), run({100, 101, 99}), {}, std::nullopt, other);
  EXPECT_EQ(o.verdict, Verdict::kNoBaseline);
  EXPECT_EQ(o.explanation,
            "baseline 'main' has no run with throughput.rps for this workload's definition on "
            "this testbed: its runs of the workload (the latest: run 4) measured another "
            "definition, which differs in duration_ns (run 4: 1000000000, now: 1500000000); a "
            "changed definition starts a new series, so promote a run of this one to 'main' "
            "(--promote main)");
}

TEST(NoBaseline, BaselineRunsWithoutTheMetricAreLeftOut) {
  const std::vector<BaselineRun> empty_runs{
      base(7, {}), base(8, {std::nan("")}), {9, run(std::nan(""), {100})}};
  EXPECT_EQ(evaluate_gate(relative_gate("throughput.rps"), run({100}), empty_runs).verdict,
            Verdict::kNoBaseline);
  const std::vector<BaselineRun> mixed{base(7, {}), base(8, {100, 101, 99})};
  const GateOutcome o = evaluate_gate(relative_gate("throughput.rps"), run({100, 100.5}), mixed);
  EXPECT_EQ(o.verdict, Verdict::kPass) << o.explanation;
  EXPECT_EQ(o.baseline_run_ids, std::vector<int64_t>{8});
}

TEST(MalformedGate, UnknownMetricIsAnError) {
  const GateOutcome o = evaluate_gate(absolute_gate("latency.p98", 0.005), run({0.001}), {});
  EXPECT_EQ(o.verdict, Verdict::kError);
  EXPECT_EQ(o.explanation, "unknown metric 'latency.p98'");
}

TEST(MalformedGate, RelativeGateWithoutBaselineNameOrWithoutBoundIsAnError) {
  auto no_name = relative_gate("throughput.rps");
  no_name.baseline.clear();
  EXPECT_EQ(evaluate_gate(no_name, run({1}), {}).verdict, Verdict::kError);
  auto no_bound = relative_gate("throughput.rps");
  no_bound.baseline.clear();
  no_bound.max_regression.reset();
  EXPECT_EQ(evaluate_gate(no_bound, run({1}), {}).verdict, Verdict::kError);
  auto bad_alpha = relative_gate("throughput.rps", 0.05, 0);
  EXPECT_EQ(evaluate_gate(bad_alpha, run({1}), {base(1, {1})}).verdict, Verdict::kError);
}

TEST(LogSpace, NegativeValuesGiveAnErrorInsteadOfACrash) {
  const auto gate = relative_gate("latency.p50");
  const GateOutcome neg_new = evaluate_gate(gate, run({-1, 0.001}), {base(1, {0.001})});
  EXPECT_EQ(neg_new.verdict, Verdict::kError);
  EXPECT_NE(neg_new.explanation.find("log space"), std::string::npos);
  const GateOutcome neg_base = evaluate_gate(gate, run({0.001}), {base(1, {-0.001})});
  EXPECT_EQ(neg_base.verdict, Verdict::kError);
}

TEST(LogSpace, ZeroErrorsStayComparableThroughTheMetricFloor) {
  const auto gate = relative_gate("errors.count");
  std::vector<BaselineRun> clean;
  for (int r = 0; r < 5; ++r) clean.push_back(base(r, {0, 0, 0}));
  const GateOutcome still_clean = evaluate_gate(gate, run(0, {0, 0, 0}), clean);
  EXPECT_EQ(still_clean.verdict, Verdict::kPass) << still_clean.explanation;
  EXPECT_DOUBLE_EQ(*still_clean.baseline_centre, 0);
  // A deterministic metric that moves is certain: zero spread gives p = 0.
  const GateOutcome now_failing = evaluate_gate(gate, run(10, {3, 3, 4}), clean);
  EXPECT_EQ(now_failing.verdict, Verdict::kFail) << now_failing.explanation;
  EXPECT_DOUBLE_EQ(*now_failing.p_value, 0);
}

TEST(SmallBaseline, OneBaselineRunWithoutCalibrationCannotFailAndSaysUnderpowered) {
  // 3 against 3 repetitions, a 20% regression: the within-run spread is tiny, but nothing
  // says how far a second run of the same build would land, so the gate cannot fail.
  const std::vector<BaselineRun> one{base(43, {1.00, 1.01, 1.02})};
  const GateOutcome worse =
      evaluate_gate(relative_gate("latency.p50"), run({1.2, 1.21, 1.22}), one);
  EXPECT_EQ(worse.method, Method::kNestedT);
  EXPECT_EQ(worse.verdict, Verdict::kInconclusive) << worse.explanation;
  EXPECT_TRUE(worse.underpowered);
  EXPECT_FALSE(worse.p_value.has_value());
  EXPECT_NE(worse.explanation.find("underpowered"), std::string::npos) << worse.explanation;
  EXPECT_NE(worse.explanation.find("run-to-run noise is unknown"), std::string::npos);
  const GateOutcome same = evaluate_gate(relative_gate("latency.p50"), run({1.0, 1.01, 1.02}), one);
  EXPECT_EQ(same.verdict, Verdict::kPass);
  EXPECT_TRUE(same.underpowered);
}

TEST(SmallBaseline, TheBaselineReadsAsItsRunsReportPrintedIt) {
  // A stored 40485.5 ops/s is 40486 in that run's RESULT line and in `compare`; back from log
  // space it was 40485.49999999996, and the explanation said "baseline 40485 ops/s".
  const GateOutcome one =
      evaluate_gate(relative_gate("throughput.rps"), run({40000}), {base(7, {40485.5})});
  EXPECT_DOUBLE_EQ(*one.baseline_centre, 40485.5);
  EXPECT_NE(one.explanation.find(" vs baseline 40486 ops/s (1 run)"), std::string::npos)
      << one.explanation;
  // With three runs the centre is the middle run's figure, as stored.
  const GateOutcome three =
      evaluate_gate(relative_gate("throughput.rps"), run({40000}),
                    {base(7, {41000.25}), base(8, {40485.5}), base(9, {39000.75})});
  EXPECT_DOUBLE_EQ(*three.baseline_centre, 40485.5);
  EXPECT_NE(three.explanation.find(" vs baseline 40486 ops/s (3 runs)"), std::string::npos)
      << three.explanation;
}

TEST(SmallBaseline, ACalibrationLetsOneBaselineRunDecide) {
  const std::vector<BaselineRun> one{base(43, {1.00, 1.01, 1.02})};
  // 1% between runs in log space, measured over 10 runs, calibrate's cv 1.2%.
  const CalibratedNoise quiet{0.01, 10, 0.012};
  const GateOutcome worse =
      evaluate_gate(relative_gate("latency.p50"), run({1.2, 1.21, 1.22}), one, quiet);
  EXPECT_EQ(worse.method, Method::kCalibratedT);
  EXPECT_EQ(worse.verdict, Verdict::kFail) << worse.explanation;
  EXPECT_FALSE(worse.underpowered);
  // t(0.99, 9) * 1% * sqrt(2) = 4.0%: the smallest change this testbed can detect.
  ASSERT_TRUE(worse.detectable.has_value());
  EXPECT_NEAR(*worse.detectable, std::expm1(2.821 * 0.01 * std::sqrt(2.0)), 2e-4);
  // A 2% allowance is below that: the explanation says so.
  const GateOutcome tight =
      evaluate_gate(relative_gate("latency.p50", 0.02), run({1.0, 1.01, 1.02}), one, quiet);
  EXPECT_EQ(tight.verdict, Verdict::kPass);
  EXPECT_TRUE(tight.underpowered);
  EXPECT_NE(tight.explanation.find("max_regression 2.0% is below the 4.1% this testbed can detect"),
            std::string::npos)
      << tight.explanation;
  // The calibration is quoted by the figure calibrate printed, under its name: its cv (sd /
  // mean), not a second figure from the log-space spread (1.0% here) under another name.
  EXPECT_NE(tight.explanation.find("; calibrated cv 1.2% over 10 runs"), std::string::npos)
      << tight.explanation;
  EXPECT_EQ(tight.explanation.find("calibrated noise"), std::string::npos) << tight.explanation;
}

TEST(SmallBaseline, UnderpoweredIsReportedForEveryVerdictAndCanFailTheRun) {
  // The case: 3 vs 3 repetitions, a 26% slower candidate.
  auto gate = relative_gate("throughput.rps");
  const std::vector<BaselineRun> one{base(1, {100, 101, 99})};
  const GateOutcome slower = evaluate_gate(gate, run({74, 75, 73}), one);
  EXPECT_EQ(slower.verdict, Verdict::kInconclusive);
  EXPECT_TRUE(slower.underpowered);
  EXPECT_EQ(exit_code_for(std::vector{slower}, false), kExitPass);
  EXPECT_EQ(exit_code_for(std::vector{slower}, true), kExitGateFailed);
  gate.fail_when_underpowered = true;
  const GateOutcome asked = evaluate_gate(gate, run({74, 75, 73}), one);
  EXPECT_TRUE(asked.fail_when_underpowered);
  EXPECT_EQ(exit_code_for(std::vector{asked}, false), kExitGateFailed);
  EXPECT_NE(asked.explanation.find("fail_when_underpowered"), std::string::npos);
  // Even a pass fails then: it says nothing.
  const GateOutcome pass = evaluate_gate(gate, run({100, 100, 101}), one);
  EXPECT_EQ(pass.verdict, Verdict::kPass);
  EXPECT_EQ(exit_code_for(std::vector{pass}, false), kExitGateFailed);
}

TEST(SmallBaseline, TwoToFourRunsUseTheirOwnSpreadAtLeastTheWithinRunOne) {
  // Three identical-looking baseline runs with no spread between them: the within-run spread
  // (1%) is the floor, so a 20% move is significant.
  const std::vector<BaselineRun> three{base(1, {0.99, 1.0, 1.01}), base(2, {0.99, 1.0, 1.01}),
                                       base(3, {0.99, 1.0, 1.01})};
  const GateOutcome worse =
      evaluate_gate(relative_gate("latency.p50"), run({1.19, 1.2, 1.21}), three);
  EXPECT_EQ(worse.method, Method::kNestedT);
  EXPECT_EQ(worse.verdict, Verdict::kFail) << worse.explanation;
  ASSERT_TRUE(worse.p_value.has_value());
  EXPECT_LT(*worse.p_value, 0.01);
}

// One more baseline run must not make the gate more confident on the same evidence. Every
// baseline run has repetitions {0.9, 1.0, 1.1} ms and the figure 1.00 ms: the runs agree
// exactly, but each run's figure varies as its repetitions do. A new run at 1.06 ms against a
// 5% allowance is inconclusive (p about 0.22) with 4 runs (nested-t, the within-run floor),
// and stays so with 5 (the t-test takes the same floor): without it, s = 0 gave p = 0, a fail.
TEST(LargerBaseline, FiveOrMoreRunsUseTheirOwnSpreadAtLeastTheWithinRunOne) {
  const auto gate = relative_gate("latency.p50", 0.05, 0.05);
  const RunValues candidate = run(0.00106, {0.00096, 0.00106, 0.00116});
  std::vector<BaselineRun> runs;
  std::vector<GateOutcome> outcomes;
  for (int k = 1; k <= 6; ++k) {
    runs.push_back(base(k, {0.0009, 0.0010, 0.0011}));
    if (k >= 4) outcomes.push_back(evaluate_gate(gate, candidate, runs));
  }
  const GateOutcome &four = outcomes[0], &five = outcomes[1], &six = outcomes[2];
  EXPECT_EQ(four.method, Method::kNestedT);
  ASSERT_TRUE(four.p_value.has_value());
  EXPECT_NEAR(*four.p_value, 0.22, 0.01);
  EXPECT_EQ(four.verdict, Verdict::kInconclusive) << four.explanation;
  for (const GateOutcome* o : {&five, &six}) {
    EXPECT_EQ(o->method, Method::kTTest);
    EXPECT_EQ(o->verdict, Verdict::kInconclusive) << o->explanation;
    ASSERT_TRUE(o->p_value.has_value());
    EXPECT_NEAR(*o->p_value, 0.21, 0.01) << o->explanation;
    EXPECT_TRUE(o->underpowered) << o->explanation;
  }
  // Deterministic only where the repetitions have no spread either: then a move is certain.
  std::vector<BaselineRun> flat;
  for (int k = 1; k <= 5; ++k) flat.push_back(base(k, {0.0010, 0.0010, 0.0010}));
  const GateOutcome moved = evaluate_gate(gate, run({0.00106, 0.00106, 0.00106}), flat);
  EXPECT_EQ(moved.method, Method::kTTest);
  EXPECT_EQ(moved.verdict, Verdict::kFail) << moved.explanation;
  ASSERT_TRUE(moved.p_value.has_value());
  EXPECT_DOUBLE_EQ(*moved.p_value, 0);
}

TEST(CombinedGate, AbsoluteFailureWinsOtherwiseTheRelativeVerdictDecides) {
  auto gate = relative_gate("latency.p50");
  gate.max = 1.1;
  const std::vector<BaselineRun> baseline{base(1, {1.00, 1.01, 1.02, 1.03, 1.04})};
  const GateOutcome over = evaluate_gate(gate, run({1.5, 1.5, 1.5}), baseline);
  EXPECT_EQ(over.verdict, Verdict::kFail);
  EXPECT_EQ(over.method, Method::kAbsolute);
  const GateOutcome under = evaluate_gate(gate, run({1.0, 1.01, 1.02}), baseline);
  EXPECT_EQ(under.verdict, Verdict::kPass);
  EXPECT_EQ(under.method, Method::kNestedT);
}

TEST(Outcome, CarriesTheGateIdentityAndNamesItsVerdicts) {
  auto gate = absolute_gate("latency.p99", 0.005);
  gate.severity = scenario::GateSeverity::kWarning;
  gate.workload = "wamp_*";
  const GateOutcome o = evaluate_gate(gate, run({0.001}), {});
  EXPECT_EQ(o.workload, "wamp_*");
  EXPECT_EQ(o.metric, "latency.p99");
  EXPECT_EQ(o.severity, scenario::GateSeverity::kWarning);
  EXPECT_EQ(to_string(Verdict::kNoBaseline), "no_baseline");
  EXPECT_EQ(to_string(Method::kNestedT), "nested-t");
  EXPECT_EQ(to_string(Method::kCalibratedT), "calibrated-t");
  EXPECT_EQ(to_string(Verdict::kNotConfigured), "not_configured");
  const GateOutcome e = error_outcome(gate, "the workload crashed");
  EXPECT_EQ(e.verdict, Verdict::kError);
  EXPECT_EQ(e.explanation, "the workload crashed");
}

}  // namespace
}  // namespace benchgate::gates
