// Known series with known answers for the gates of docs/GATES.md, drawn with seeded generators:
// quiet healthy runs pass, a clear 10% regression fails in either direction, and heavy noise is
// never a silent pass.
#include <gtest/gtest.h>

#include <random>

#include "gate_test_support.h"
#include "orchestrator/gates/gate_evaluator.h"

namespace benchgate::gates {
namespace {

using testing::baseline_runs;
using testing::offset_runs;
using testing::relative_gate;
using testing::run;
using testing::series;

TEST(SyntheticSeries, QuietRunAgainstTenQuietBaselineRunsPasses) {
  std::mt19937_64 rng(1);
  auto baseline = baseline_runs(rng, 10, 100, 0.02, 20);
  const GateOutcome o =
      evaluate_gate(relative_gate("throughput.rps"), run(series(rng, 100, 0.02, 20)), baseline);
  EXPECT_EQ(o.verdict, Verdict::kPass) << o.explanation;
  EXPECT_EQ(o.method, Method::kTTest);
  EXPECT_FALSE(o.underpowered) << o.explanation;
  EXPECT_EQ(o.baseline_run_ids.size(), 10u);
  EXPECT_NEAR(*o.baseline_centre, 100, 2);
  EXPECT_NEAR(*o.threshold, *o.baseline_centre / 1.05, 1e-3);  // the 0.001 ops/s floor
  EXPECT_NEAR(*o.margin, std::log(1.05), 1e-15);
}

TEST(SyntheticSeries, ThroughputTenPercentLowerFails) {
  std::mt19937_64 rng(2);
  auto baseline = baseline_runs(rng, 10, 100, 0.02, 20);
  const GateOutcome o =
      evaluate_gate(relative_gate("throughput.rps"), run(series(rng, 90, 0.02, 20)), baseline);
  EXPECT_EQ(o.verdict, Verdict::kFail) << o.explanation;
  EXPECT_NEAR(*o.effect, std::log(100.0 / 90), 0.02);
  EXPECT_LT(*o.p_value, 1e-6);
  EXPECT_NE(o.explanation.find("ops/s"), std::string::npos) << o.explanation;
  // The allowance as the change it lets through (1 / 1.05 - 1), the key's value beside it.
  EXPECT_NE(o.explanation.find("-4.8% allowance (max_regression 5.0%"), std::string::npos)
      << o.explanation;
}

TEST(SyntheticSeries, LatencyTenPercentHigherFails) {
  std::mt19937_64 rng(3);
  auto baseline = baseline_runs(rng, 10, 0.002, 0.02, 20);  // 2 ms
  const GateOutcome o =
      evaluate_gate(relative_gate("latency.p99"), run(series(rng, 0.0022, 0.02, 20)), baseline);
  EXPECT_EQ(o.verdict, Verdict::kFail) << o.explanation;
  EXPECT_NEAR(*o.effect, std::log(1.1), 0.02);
  EXPECT_NE(o.explanation.find("ms"), std::string::npos) << o.explanation;
}

TEST(SyntheticSeries, LatencyTenPercentLowerIsAnImprovementAndPasses) {
  std::mt19937_64 rng(4);
  auto baseline = baseline_runs(rng, 10, 0.002, 0.02, 20);
  const GateOutcome o =
      evaluate_gate(relative_gate("latency.p99"), run(series(rng, 0.0018, 0.02, 20)), baseline);
  EXPECT_EQ(o.verdict, Verdict::kPass) << o.explanation;
  EXPECT_LT(*o.effect, 0);
}

TEST(SyntheticSeries, HeavyNoiseWithARegressionIsNeverASilentPass) {
  int passes = 0, not_passes = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    auto baseline = baseline_runs(rng, 10, 100, 0.30, 20);
    const GateOutcome o =
        evaluate_gate(relative_gate("throughput.rps"), run(series(rng, 90, 0.30, 20)), baseline);
    ASSERT_TRUE(o.verdict == Verdict::kPass || o.verdict == Verdict::kFail ||
                o.verdict == Verdict::kInconclusive)
        << o.explanation;
    if (o.verdict == Verdict::kPass) {
      ++passes;
      EXPECT_TRUE(o.underpowered) << "seed " << seed << ": " << o.explanation;
      EXPECT_NE(o.explanation.find("underpowered"), std::string::npos) << o.explanation;
    } else {
      ++not_passes;
    }
  }
  EXPECT_GT(not_passes, 0);  // the regression is seen at least sometimes
}

TEST(SyntheticSeries, HeavyNoiseWithFewBaselineRunsIsNeverASilentPass) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    auto baseline = baseline_runs(rng, 2, 100, 0.30, 20);
    const GateOutcome o =
        evaluate_gate(relative_gate("throughput.rps"), run(series(rng, 90, 0.30, 20)), baseline);
    EXPECT_EQ(o.method, Method::kNestedT);
    if (o.verdict == Verdict::kPass) {
      EXPECT_TRUE(o.underpowered) << o.explanation;
    }
  }
}

TEST(SyntheticSeries, FewQuietBaselineRunsStillDecide) {
  std::mt19937_64 rng(5);
  auto baseline = baseline_runs(rng, 4, 100, 0.02, 20);
  const GateOutcome healthy =
      evaluate_gate(relative_gate("throughput.rps"), run(series(rng, 100, 0.02, 20)), baseline);
  EXPECT_EQ(healthy.verdict, Verdict::kPass) << healthy.explanation;
  EXPECT_EQ(healthy.method, Method::kNestedT);

  const GateOutcome worse =
      evaluate_gate(relative_gate("throughput.rps"), run(series(rng, 80, 0.02, 20)), baseline);
  EXPECT_EQ(worse.verdict, Verdict::kFail) << worse.explanation;
  EXPECT_EQ(worse.baseline_run_ids, (std::vector<int64_t>{100, 101, 102, 103}));
}

// Issue 13: with few baseline runs, pooling their repetitions as if independent made a pure
// run-to-run offset (no change at all) fail. Runs lie at -3%, 0%, +3% with 0.5% noise within
// each; a new run of the same build lands at +4%, inside that spread.
TEST(SyntheticSeries, ARunToRunOffsetWithinTheObservedSpreadDoesNotFail) {
  const auto gate = relative_gate("throughput.rps", 0.02);
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    auto baseline = offset_runs(rng, 100, {-0.03, 0.0, 0.03}, 0.005, 10);
    const GateOutcome o =
        evaluate_gate(gate, run(series(rng, 100 * std::exp(-0.04), 0.005, 10)), baseline);
    EXPECT_EQ(o.method, Method::kNestedT);
    EXPECT_NE(o.verdict, Verdict::kFail) << "seed " << seed << ": " << o.explanation;
    // Pooled repetitions (the old test) see 10 new values below all 30 baseline ones.
  }
  // The same offset against the same runs, with a calibration saying runs vary by 3%: still
  // no fail; with 5 baseline runs and the t-test on their figures neither.
  std::mt19937_64 rng(99);
  auto three = offset_runs(rng, 100, {-0.03, 0.0, 0.03}, 0.005, 10);
  const GateOutcome calibrated = evaluate_gate(
      gate, run(series(rng, 100 * std::exp(-0.04), 0.005, 10)), three, CalibratedNoise{0.03, 10});
  EXPECT_EQ(calibrated.method, Method::kCalibratedT);
  EXPECT_NE(calibrated.verdict, Verdict::kFail) << calibrated.explanation;
  auto five = offset_runs(rng, 100, {-0.03, -0.015, 0.0, 0.015, 0.03}, 0.005, 10);
  const GateOutcome t =
      evaluate_gate(gate, run(series(rng, 100 * std::exp(-0.04), 0.005, 10)), five);
  EXPECT_EQ(t.method, Method::kTTest);
  EXPECT_NE(t.verdict, Verdict::kFail) << t.explanation;
}

// The same runs do catch a regression well beyond their spread.
TEST(SyntheticSeries, ARegressionBeyondTheRunToRunSpreadFails) {
  std::mt19937_64 rng(7);
  auto baseline = offset_runs(rng, 100, {-0.01, 0.0, 0.01, 0.005}, 0.005, 10);
  const GateOutcome o = evaluate_gate(relative_gate("throughput.rps", 0.02),
                                      run(series(rng, 70, 0.005, 10)), baseline);
  EXPECT_EQ(o.verdict, Verdict::kFail) << o.explanation;
}

// Runs of a testbed whose runs differ by `between` (log sd) and whose repetitions differ by
// `within` around their run's level: the model the calibration measures.
std::vector<BaselineRun> testbed_runs(std::mt19937_64& rng, int runs, double centre, double between,
                                      double within, int repetitions) {
  std::normal_distribution<double> z(0, 1);
  std::vector<double> offsets;
  for (int r = 0; r < runs; ++r) offsets.push_back(between * z(rng));
  return offset_runs(rng, centre, offsets, within, repetitions);
}

// With 5 baseline runs and a calibration of 10, the two estimates of the run-to-run spread
// are pooled (4 + 9 degrees of freedom): the method is calibrated-t and it detects less than
// the t-test on the 5 runs alone.
TEST(SyntheticSeries, FiveBaselineRunsAndACalibrationPoolTheirSpread) {
  std::mt19937_64 rng(11);
  auto baseline = testbed_runs(rng, 5, 100, 0.01, 0.002, 3);
  const auto candidate = run(series(rng, 100, 0.002, 3));
  const auto gate = relative_gate("throughput.rps", 0.01);
  const GateOutcome alone = evaluate_gate(gate, candidate, baseline);
  const GateOutcome pooled = evaluate_gate(gate, candidate, baseline, CalibratedNoise{0.01, 10});
  EXPECT_EQ(alone.method, Method::kTTest);
  EXPECT_EQ(pooled.method, Method::kCalibratedT);
  ASSERT_TRUE(alone.detectable && pooled.detectable);
  EXPECT_LT(*pooled.detectable, *alone.detectable);
}

// The pooled test keeps its false-alarm rate: 2,000 seeded A/A trials (a candidate run of the
// unchanged testbed against 5 baseline runs, a calibration measured on 10 runs of the same
// testbed) fail at most alpha of the time, give or take three binomial standard deviations;
// and a regression of four times the run-to-run spread is caught in most trials.
TEST(SyntheticSeries, PooledCalibrationKeepsFalseAlarmsAtAlphaAndCatchesARealRegression) {
  constexpr int kTrials = 2000;
  constexpr double kBetween = 0.01, kWithin = 0.002, kAlpha = 0.01;
  const auto gate = relative_gate("throughput.rps", 0.0001, kAlpha);
  std::mt19937_64 rng(12);
  std::normal_distribution<double> z(0, 1);
  int false_alarms = 0, caught = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    auto calibration_runs = testbed_runs(rng, 10, 100, kBetween, kWithin, 3);
    std::vector<double> figures;
    for (const auto& r : calibration_runs) figures.push_back(std::log(r.values.figure));
    double mean = 0, squares = 0;
    for (double f : figures) mean += f / figures.size();
    for (double f : figures) squares += (f - mean) * (f - mean);
    const CalibratedNoise noise{std::sqrt(squares / (figures.size() - 1)), 10};
    auto baseline = testbed_runs(rng, 5, 100, kBetween, kWithin, 3);
    const double same = 100 * std::exp(kBetween * z(rng));
    if (evaluate_gate(gate, run(series(rng, same, kWithin, 3)), baseline, noise).verdict ==
        Verdict::kFail) {
      ++false_alarms;
    }
    const double slower = 100 * std::exp(-4 * kBetween + kBetween * z(rng));
    if (evaluate_gate(gate, run(series(rng, slower, kWithin, 3)), baseline, noise).verdict ==
        Verdict::kFail) {
      ++caught;
    }
  }
  const double expected = kAlpha * kTrials;
  EXPECT_LE(false_alarms, expected + 3 * std::sqrt(expected * (1 - kAlpha)))
      << false_alarms << " false alarms in " << kTrials;
  EXPECT_GT(caught, kTrials / 2) << caught << " caught in " << kTrials;
}

}  // namespace
}  // namespace benchgate::gates
