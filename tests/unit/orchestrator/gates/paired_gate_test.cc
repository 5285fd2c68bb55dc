// Paired gates (gate_evaluator.h, evaluate_paired_gate) with the paired t: one variant against
// another of the same run, repetition by repetition. Seeded series with a drift shared by both
// variants of a pair (the machine's speed between windows), which the pairs cancel and a comparison
// of whole runs would not.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "gate_test_support.h"
#include "orchestrator/gates/gate_evaluator.h"

namespace benchgate::gates {
namespace {

// The paired t (test = "t"): the signed-rank test, the default, is paired_signed_rank_test.cc's.
scenario::Gate paired_t_gate(std::string metric, double max_regression = 0.01,
                             double alpha = 0.01) {
  scenario::Gate g;
  g.paired_test = scenario::PairedTest::kT;
  g.workload = "hello";
  g.variant = "candidate";
  g.against = "baseline";
  g.metric = std::move(metric);
  g.max_regression = max_regression;
  g.alpha = alpha;
  return g;
}

// `n` pairs of windows: each pair shares a drift of relative size `drift` (both variants feel
// the machine's speed of that moment); each window adds its own noise of size `noise`; the
// candidate's level is `ratio` times the baseline's.
struct Pairs {
  RunValues baseline;
  RunValues candidate;
};
Pairs draw_pairs(std::mt19937_64& rng, int n, double centre, double ratio, double drift,
                 double noise) {
  std::normal_distribution<double> z(0, 1);
  std::vector<double> a, b;
  for (int i = 0; i < n; ++i) {
    const double moment = centre * std::exp(drift * z(rng));
    a.push_back(moment * std::exp(noise * z(rng)));
    b.push_back(moment * ratio * std::exp(noise * z(rng)));
  }
  return {testing::run(a), testing::run(b)};
}

TEST(PairedGate, AThroughputFivePercentLowerThanItsPartnerFailsThoughTheMachineDrifts) {
  std::mt19937_64 rng(11);
  // 4% drift between windows would hide a 5% change from any comparison of whole runs.
  const Pairs p = draw_pairs(rng, 10, 230e3, 0.95, 0.04, 0.01);
  const GateOutcome o =
      evaluate_paired_gate(paired_t_gate("throughput.rps"), p.candidate, p.baseline);
  EXPECT_EQ(o.verdict, Verdict::kFail) << o.explanation;
  EXPECT_EQ(o.method, Method::kPairedT);
  EXPECT_EQ(o.pairs, 10u);
  EXPECT_NEAR(*o.effect, -std::log(0.95), 0.01);
  EXPECT_LT(*o.p_value, 0.01);
  EXPECT_FALSE(o.underpowered) << o.explanation;
  ASSERT_TRUE(o.effect_interval);
  EXPECT_GT(o.effect_interval->low, 0);
  EXPECT_NE(o.explanation.find("vs variant baseline"), std::string::npos) << o.explanation;
  EXPECT_NE(o.explanation.find("10 pairs"), std::string::npos) << o.explanation;
  EXPECT_NE(o.explanation.find("paired-t"), std::string::npos) << o.explanation;
}

TEST(PairedGate, LatencyHigherThanItsPartnerFailsAndLowerPasses) {
  std::mt19937_64 rng(12);
  const Pairs worse = draw_pairs(rng, 8, 40e-6, 1.10, 0.05, 0.01);
  EXPECT_EQ(
      evaluate_paired_gate(paired_t_gate("latency.p50"), worse.candidate, worse.baseline).verdict,
      Verdict::kFail);
  const Pairs better = draw_pairs(rng, 8, 40e-6, 0.90, 0.05, 0.01);
  const GateOutcome o =
      evaluate_paired_gate(paired_t_gate("latency.p50"), better.candidate, better.baseline);
  EXPECT_EQ(o.verdict, Verdict::kPass) << o.explanation;
  EXPECT_LT(*o.effect, 0);
}

// False alarms stay at alpha: 4,000 A/A comparisons (equal levels, drift and noise), each of
// 10 pairs, fail about 1% of the time at alpha 0.01 (a binomial 99.99% band around 40).
TEST(PairedGate, AnAaSeriesFailsAtMostAsOftenAsAlpha) {
  std::mt19937_64 rng(13);
  int failed = 0;
  const int trials = 4000;
  for (int t = 0; t < trials; ++t) {
    const Pairs p = draw_pairs(rng, 10, 100, 1.0, 0.04, 0.01);
    // max_regression 0: every positive effect may fail, so the test alone decides.
    scenario::Gate gate = paired_t_gate("throughput.rps", 0.0);
    if (evaluate_paired_gate(gate, p.candidate, p.baseline).verdict == Verdict::kFail) ++failed;
  }
  EXPECT_GE(failed, 17);
  EXPECT_LE(failed, 67);
}

TEST(PairedGate, IdenticalPairsAreDeterministicAndAnyMoveIsCertain) {
  const RunValues a = testing::run({100, 100, 100, 100});
  const RunValues b = testing::run({90, 90, 90, 90});
  const GateOutcome o = evaluate_paired_gate(paired_t_gate("throughput.rps"), b, a);
  EXPECT_EQ(o.verdict, Verdict::kFail);
  EXPECT_EQ(*o.p_value, 0.0);
  const GateOutcome same = evaluate_paired_gate(paired_t_gate("throughput.rps"), a, a);
  EXPECT_EQ(same.verdict, Verdict::kPass);
}

TEST(PairedGate, OnePairHasNoPValueAndIsUnderpowered) {
  const GateOutcome o = evaluate_paired_gate(paired_t_gate("throughput.rps"), testing::run({80}),
                                             testing::run({100}));
  EXPECT_EQ(o.verdict, Verdict::kInconclusive) << o.explanation;
  EXPECT_FALSE(o.p_value);
  EXPECT_TRUE(o.underpowered);
  EXPECT_NE(o.explanation.find("one pair of windows"), std::string::npos) << o.explanation;
}

TEST(PairedGate, MismatchedOrMissingValuesAreErrorsNeverAPass) {
  const auto gate = paired_t_gate("throughput.rps");
  const GateOutcome uneven =
      evaluate_paired_gate(gate, testing::run({1, 2, 3}), testing::run({1, 2}));
  EXPECT_EQ(uneven.verdict, Verdict::kError);
  EXPECT_NE(uneven.explanation.find("cannot be paired"), std::string::npos) << uneven.explanation;
  const GateOutcome missing = evaluate_paired_gate(gate, testing::run({1, 2}), std::nullopt);
  EXPECT_EQ(missing.verdict, Verdict::kError);
  EXPECT_NE(missing.explanation.find("of variant baseline was not collected"), std::string::npos)
      << missing.explanation;
  const GateOutcome negative =
      evaluate_paired_gate(gate, testing::run({-1, 2}), testing::run({1, 2}));
  EXPECT_EQ(negative.verdict, Verdict::kError);
}

TEST(PairedGate, HolmCorrectsPairedGatesWithTheOthers) {
  std::mt19937_64 rng(14);
  const Pairs p = draw_pairs(rng, 6, 100, 0.97, 0.0, 0.01);
  std::vector<GateOutcome> outcomes;
  for (int i = 0; i < 3; ++i) {
    outcomes.push_back(
        evaluate_paired_gate(paired_t_gate("throughput.rps"), p.candidate, p.baseline));
  }
  apply_holm(outcomes);
  for (const auto& o : outcomes) {
    ASSERT_TRUE(o.p_adjusted);
    EXPECT_GE(*o.p_adjusted, *o.p_value);
  }
  EXPECT_DOUBLE_EQ(*outcomes.front().p_adjusted, std::min(1.0, 3 * *outcomes.front().p_value));
}

}  // namespace
}  // namespace benchgate::gates
