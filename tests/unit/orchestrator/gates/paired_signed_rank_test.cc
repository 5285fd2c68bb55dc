// Paired gates with the signed-rank test, the default (gate_evaluator.h, evaluate_paired_gate):
// exact p-values counted by hand, the Hodges-Lehmann effect, a wild pair that wrecks the paired
// t but not this test, and underpowered wherever 2^-n >= alpha.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "gate_test_support.h"
#include "orchestrator/gates/effect_interval.h"
#include "orchestrator/gates/gate_evaluator.h"

namespace benchgate::gates {
namespace {

scenario::Gate signed_rank_gate(std::string metric, double max_regression, double alpha,
                                scenario::PairedTest test = scenario::PairedTest::kSignedRank) {
  scenario::Gate g;
  g.workload = "hello";
  g.variant = "candidate";
  g.against = "baseline";
  g.metric = std::move(metric);
  g.max_regression = max_regression;
  g.alpha = alpha;
  g.paired_test = test;
  return g;
}

TEST(PairedSignedRank, IsThePairedGatesDefault) {
  EXPECT_EQ(scenario::Gate{}.paired_test, scenario::PairedTest::kSignedRank);
  const GateOutcome o = evaluate_paired_gate(
      [] {
        scenario::Gate g;
        g.workload = "hello";
        g.metric = "throughput.rps";
        g.against = "baseline";
        g.max_regression = 0.01;
        return g;
      }(),
      testing::run({90, 91, 92, 93, 94, 95, 96, 97}),
      testing::run({100, 100, 100, 100, 100, 100, 100, 100}));
  EXPECT_EQ(o.method, Method::kPairedSignedRank);
  EXPECT_EQ(to_string(o.method), "paired-signed-rank");
}

// Candidate throughput 4..9% below its partner in each of n pairs: every log ratio positive
// and distinct, so p = 2^-n exactly.
std::pair<RunValues, RunValues> all_worse(int n) {
  std::vector<double> a, b;
  for (int i = 0; i < n; ++i) {
    a.push_back(100);
    b.push_back(91 + 0.5 * i);
  }
  return {testing::run(b), testing::run(a)};
}

TEST(PairedSignedRank, SixPairsAllWorseHavePOneIn64AndAreUnderpoweredAtOnePercent) {
  const auto [candidate, baseline] = all_worse(6);
  const GateOutcome o =
      evaluate_paired_gate(signed_rank_gate("throughput.rps", 0.02, 0.01), candidate, baseline);
  ASSERT_TRUE(o.p_value);
  EXPECT_DOUBLE_EQ(*o.p_value, 1.0 / 64);
  // 1/64 >= 0.01: no six pairs could ever fail at alpha 0.01.
  EXPECT_EQ(o.verdict, Verdict::kInconclusive) << o.explanation;
  EXPECT_TRUE(o.underpowered);
  EXPECT_NE(o.explanation.find("6 pairs: no signed-rank p is below 2^-6 = 0.0156"),
            std::string::npos)
      << o.explanation;
  EXPECT_NE(o.explanation.find("paired-signed-rank p=0.0156 >= alpha 0.01"), std::string::npos)
      << o.explanation;
  // At alpha 0.05 the same pairs fail, with an interval whose lower end lies above 0.
  const GateOutcome at5 =
      evaluate_paired_gate(signed_rank_gate("throughput.rps", 0.02, 0.05), candidate, baseline);
  EXPECT_EQ(at5.verdict, Verdict::kFail) << at5.explanation;
  EXPECT_FALSE(at5.underpowered) << at5.explanation;
  ASSERT_TRUE(at5.effect_interval);
  EXPECT_GT(at5.effect_interval->low, 0);
  // Seven pairs reach 2^-7 < 0.01.
  const auto [c7, b7] = all_worse(7);
  const GateOutcome seven =
      evaluate_paired_gate(signed_rank_gate("throughput.rps", 0.02, 0.01), c7, b7);
  EXPECT_DOUBLE_EQ(*seven.p_value, 1.0 / 128);
  EXPECT_EQ(seven.verdict, Verdict::kFail) << seven.explanation;
  EXPECT_FALSE(seven.underpowered) << seven.explanation;
}

TEST(PairedSignedRank, TheEffectIsTheHodgesLehmannEstimateOfTheLogRatios) {
  // Latency (lower is better): log ratios ln 1.01, ln 1.02, ln 1.03, ln 1.10.
  const RunValues base = testing::run({100e-6, 100e-6, 100e-6, 100e-6});
  const RunValues cand = testing::run({101e-6, 102e-6, 103e-6, 110e-6});
  const GateOutcome o =
      evaluate_paired_gate(signed_rank_gate("latency.p50", 0.05, 0.05), cand, base);
  // The latency metric's floor is 1 ns, which enters every log.
  const auto g = [](double v) { return std::log(v + 1e-9); };
  std::vector<double> x;
  for (size_t i = 0; i < 4; ++i) x.push_back(g(cand.repetitions[i]) - g(base.repetitions[i]));
  // Walsh averages sorted: x0, (x0+x1)/2, x1 ~ (x0+x2)/2, ..., median = mean of the 5th and
  // 6th of 10: (x1 + x2) / 2 and (x0 + x3) / 2, here about 2.5% and 5.3% (not the mean, 3.9%).
  std::vector<double> w;
  for (size_t i = 0; i < 4; ++i) {
    for (size_t j = i; j < 4; ++j) w.push_back((x[i] + x[j]) / 2);
  }
  std::sort(w.begin(), w.end());
  EXPECT_DOUBLE_EQ(*o.effect, (w[4] + w[5]) / 2);
  EXPECT_EQ(o.verdict, Verdict::kPass) << o.explanation;  // below ln 1.05
  EXPECT_NE(o.explanation.find("Hodges-Lehmann"), std::string::npos) << o.explanation;
}

// Thirteen pairs 6% slower and one wild pair (the machine changed speed inside it) where the
// candidate looks 50% faster: the mean log ratio is dragged to 2.9% with a spread that the
// paired t cannot see past; the signed-rank test ranks the wild pair last and fails the gate.
TEST(PairedSignedRank, OneWildPairWrecksThePairedTButNotTheSignedRank) {
  std::vector<double> a, b;
  for (int i = 0; i < 14; ++i) {
    a.push_back(100);
    b.push_back(i == 6 ? 150 : 94 + 0.01 * i);
  }
  const RunValues baseline = testing::run(a), candidate = testing::run(b);
  const GateOutcome t =
      evaluate_paired_gate(signed_rank_gate("throughput.rps", 0.02, 0.01, scenario::PairedTest::kT),
                           candidate, baseline);
  EXPECT_EQ(t.method, Method::kPairedT);
  EXPECT_NE(t.verdict, Verdict::kFail) << t.explanation;
  EXPECT_GT(*t.p_value, 0.1) << t.explanation;
  const GateOutcome sr =
      evaluate_paired_gate(signed_rank_gate("throughput.rps", 0.02, 0.01), candidate, baseline);
  EXPECT_EQ(sr.verdict, Verdict::kFail) << sr.explanation;
  // W+ = 105 - 14: the negative rank set is {14}; W+ >= 91 when the negative ranks sum to at
  // most 14, which 110 of the 2^14 subsets of 1..14 do (distinct-part partitions of 0..14).
  EXPECT_DOUBLE_EQ(*sr.p_value, 110.0 / 16384);
  EXPECT_NEAR(*sr.effect, -std::log(0.9406), 0.001);  // the thirteen, not the wild one
  EXPECT_FALSE(sr.underpowered) << sr.explanation;
}

TEST(PairedSignedRank, IdenticalPairsTieAndEqualVariantsPass) {
  const RunValues a = testing::run({100, 100, 100, 100, 100, 100, 100, 100});
  const RunValues b = testing::run({90, 90, 90, 90, 90, 90, 90, 90});
  const GateOutcome o = evaluate_paired_gate(signed_rank_gate("throughput.rps", 0.01, 0.01), b, a);
  EXPECT_EQ(o.verdict, Verdict::kFail) << o.explanation;
  EXPECT_DOUBLE_EQ(*o.p_value, 1.0 / 256);  // eight tied positives: one assignment of 256
  EXPECT_NEAR(*o.effect, std::log(100.0 / 90), 1e-5);  // the metric's floor enters the logs
  const GateOutcome same =
      evaluate_paired_gate(signed_rank_gate("throughput.rps", 0.01, 0.01), a, a);
  EXPECT_EQ(same.verdict, Verdict::kPass);
  EXPECT_DOUBLE_EQ(*same.p_value, 1.0);  // all zeros: no signs
  EXPECT_DOUBLE_EQ(*same.effect, 0);
}

TEST(PairedSignedRank, OnePairIsTestedButUnderpowered) {
  const GateOutcome o = evaluate_paired_gate(signed_rank_gate("throughput.rps", 0.01, 0.01),
                                             testing::run({80}), testing::run({100}));
  EXPECT_EQ(o.verdict, Verdict::kInconclusive) << o.explanation;
  EXPECT_DOUBLE_EQ(*o.p_value, 0.5);
  EXPECT_TRUE(o.underpowered);
  EXPECT_FALSE(o.effect_interval);
  EXPECT_EQ(why_no_interval(to_string(o.method), true),
            "too few pairs for a distribution-free interval at this confidence");
  EXPECT_NE(o.explanation.find("1 pair: no signed-rank p is below 2^-1 = 0.5"), std::string::npos)
      << o.explanation;
}

// False alarms stay at alpha: 4,000 A/A comparisons of 10 pairs with a drift both variants
// share and the window's own noise; the exact test's size at alpha 0.01 with 10 pairs is
// P(T <= 5) = 10/1024, about 39 of 4000 (a binomial 99.99% band).
TEST(PairedSignedRank, AnAaSeriesFailsAtMostAsOftenAsAlpha) {
  std::mt19937_64 rng(13);
  std::normal_distribution<double> z(0, 1);
  int failed = 0;
  for (int t = 0; t < 4000; ++t) {
    std::vector<double> a, b;
    for (int i = 0; i < 10; ++i) {
      const double moment = 100 * std::exp(0.04 * z(rng));
      a.push_back(moment * std::exp(0.01 * z(rng)));
      b.push_back(moment * std::exp(0.01 * z(rng)));
    }
    const GateOutcome o = evaluate_paired_gate(signed_rank_gate("throughput.rps", 0.0, 0.01),
                                               testing::run(b), testing::run(a));
    if (o.verdict == Verdict::kFail) ++failed;
  }
  EXPECT_GE(failed, 16);
  EXPECT_LE(failed, 66);
}

TEST(PairedSignedRank, HolmCorrectsItWithTheOtherGates) {
  const auto [candidate, baseline] = all_worse(10);
  std::vector<GateOutcome> outcomes;
  for (int i = 0; i < 3; ++i) {
    outcomes.push_back(
        evaluate_paired_gate(signed_rank_gate("throughput.rps", 0.01, 0.01), candidate, baseline));
  }
  apply_holm(outcomes);
  for (const auto& o : outcomes) {
    ASSERT_TRUE(o.p_adjusted);
    EXPECT_DOUBLE_EQ(*o.p_adjusted, 3.0 / 1024);
    EXPECT_EQ(o.verdict, Verdict::kFail);
  }
}

}  // namespace
}  // namespace benchgate::gates
