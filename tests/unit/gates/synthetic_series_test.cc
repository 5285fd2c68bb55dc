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
using testing::relative_gate;
using testing::series;

TEST(SyntheticSeries, QuietRunAgainstTenQuietBaselineRunsPasses) {
  std::mt19937_64 rng(1);
  auto baseline = baseline_runs(rng, 10, 100, 0.02, 20);
  const GateOutcome o =
      evaluate_gate(relative_gate("throughput.rps"), series(rng, 100, 0.02, 20), baseline);
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
      evaluate_gate(relative_gate("throughput.rps"), series(rng, 90, 0.02, 20), baseline);
  EXPECT_EQ(o.verdict, Verdict::kFail) << o.explanation;
  EXPECT_NEAR(*o.effect, std::log(100.0 / 90), 0.02);
  EXPECT_LT(*o.p_value, 1e-6);
  EXPECT_NE(o.explanation.find("ops/s"), std::string::npos) << o.explanation;
  EXPECT_NE(o.explanation.find("5.0% allowance"), std::string::npos) << o.explanation;
}

TEST(SyntheticSeries, LatencyTenPercentHigherFails) {
  std::mt19937_64 rng(3);
  auto baseline = baseline_runs(rng, 10, 0.002, 0.02, 20);  // 2 ms
  const GateOutcome o =
      evaluate_gate(relative_gate("latency.p99"), series(rng, 0.0022, 0.02, 20), baseline);
  EXPECT_EQ(o.verdict, Verdict::kFail) << o.explanation;
  EXPECT_NEAR(*o.effect, std::log(1.1), 0.02);
  EXPECT_NE(o.explanation.find("ms"), std::string::npos) << o.explanation;
}

TEST(SyntheticSeries, LatencyTenPercentLowerIsAnImprovementAndPasses) {
  std::mt19937_64 rng(4);
  auto baseline = baseline_runs(rng, 10, 0.002, 0.02, 20);
  const GateOutcome o =
      evaluate_gate(relative_gate("latency.p99"), series(rng, 0.0018, 0.02, 20), baseline);
  EXPECT_EQ(o.verdict, Verdict::kPass) << o.explanation;
  EXPECT_LT(*o.effect, 0);
}

TEST(SyntheticSeries, HeavyNoiseWithARegressionIsNeverASilentPass) {
  int passes = 0, not_passes = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    auto baseline = baseline_runs(rng, 10, 100, 0.30, 20);
    const GateOutcome o =
        evaluate_gate(relative_gate("throughput.rps"), series(rng, 90, 0.30, 20), baseline);
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
        evaluate_gate(relative_gate("throughput.rps"), series(rng, 90, 0.30, 20), baseline);
    EXPECT_EQ(o.method, Method::kMannWhitney);
    if (o.verdict == Verdict::kPass) {
      EXPECT_TRUE(o.underpowered) << o.explanation;
    }
  }
}

TEST(SyntheticSeries, FewBaselineRunsUseMannWhitneyAndStillDecide) {
  std::mt19937_64 rng(5);
  auto baseline = baseline_runs(rng, 2, 100, 0.02, 20);
  const GateOutcome healthy =
      evaluate_gate(relative_gate("throughput.rps"), series(rng, 100, 0.02, 20), baseline);
  EXPECT_EQ(healthy.verdict, Verdict::kPass) << healthy.explanation;
  EXPECT_EQ(healthy.method, Method::kMannWhitney);
  EXPECT_FALSE(healthy.underpowered) << healthy.explanation;

  const GateOutcome worse =
      evaluate_gate(relative_gate("throughput.rps"), series(rng, 90, 0.02, 20), baseline);
  EXPECT_EQ(worse.verdict, Verdict::kFail) << worse.explanation;
  EXPECT_EQ(worse.baseline_run_ids, (std::vector<int64_t>{100, 101}));
}

}  // namespace
}  // namespace benchgate::gates
