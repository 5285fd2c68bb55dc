// Paired gates (`against = "VARIANT"`, docs/GATES.md "Paired gates"): what the loader accepts
// and the errors that name file:line:column, key and value.
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/scenario/scenario_loader.h"
#include "scenario_test_support.h"

namespace benchgate::scenario {
namespace {

using test_support::diagnostics_text;
using test_support::load_hermetic;

const std::string kPairedCompare = R"(name = "c"
[routers.old]
impl = "builtin"
[routers.new]
impl = "builtin"
[compare]
routers = ["old", "new"]
[[workloads]]
name = "w"
repetitions = 8
[[gates]]
workload = "w"
metric = "throughput.rps"
)";

TEST(ScenarioPairedGate, AgainstNamesTheVariantAndTakesTheRelativeKeys) {
  LoadResult r = load_hermetic(kPairedCompare +
                               "variant = \"new\"\nagainst = \"old\"\nmax_regression = \"2%\"\n"
                               "alpha = 0.05\nfail_when_underpowered = true\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  const Gate& g = r.scenario->gates.at(0);
  EXPECT_EQ(g.against, "old");
  EXPECT_TRUE(g.baseline.empty());
  EXPECT_DOUBLE_EQ(*g.max_regression, 0.02);
  EXPECT_DOUBLE_EQ(g.alpha, 0.05);
  EXPECT_TRUE(g.fail_when_underpowered);
}

TEST(ScenarioPairedGate, TestChoosesTheSignedRankByDefaultOrThePairedT) {
  LoadResult defaults =
      load_hermetic(kPairedCompare + "against = \"old\"\nmax_regression = \"2%\"\n");
  ASSERT_TRUE(defaults.ok()) << diagnostics_text(defaults);
  EXPECT_EQ(defaults.scenario->gates.at(0).paired_test, PairedTest::kSignedRank);
  LoadResult t =
      load_hermetic(kPairedCompare + "against = \"old\"\nmax_regression = \"2%\"\ntest = \"t\"\n");
  ASSERT_TRUE(t.ok()) << diagnostics_text(t);
  EXPECT_EQ(t.scenario->gates.at(0).paired_test, PairedTest::kT);
  LoadResult sr = load_hermetic(
      kPairedCompare + "against = \"old\"\nmax_regression = \"2%\"\ntest = \"signed-rank\"\n");
  ASSERT_TRUE(sr.ok()) << diagnostics_text(sr);
  EXPECT_EQ(sr.scenario->gates.at(0).paired_test, PairedTest::kSignedRank);
}

TEST(ScenarioPairedGate, AnUnknownTestOrATestOnAnotherGateIsAnError) {
  LoadResult typo = load_hermetic(
      kPairedCompare + "against = \"old\"\nmax_regression = \"2%\"\ntest = \"wilcoxon\"\n");
  EXPECT_FALSE(typo.ok());
  EXPECT_NE(diagnostics_text(typo).find("s.toml:16:8: error: key 'test' must be one of "),
            std::string::npos)
      << diagnostics_text(typo);
  EXPECT_NE(diagnostics_text(typo).find("got 'wilcoxon'"), std::string::npos)
      << diagnostics_text(typo);
  LoadResult absolute = load_hermetic(kPairedCompare + "max = 100\ntest = \"t\"\n");
  EXPECT_FALSE(absolute.ok());
  EXPECT_NE(diagnostics_text(absolute).find(
                "s.toml:15:1: error: key 'test' applies only to a paired gate (one with "
                "'against')"),
            std::string::npos)
      << diagnostics_text(absolute);
  LoadResult change = load_hermetic(kPairedCompare + "kind = \"change\"\ntest = \"t\"\n");
  EXPECT_FALSE(change.ok());
  EXPECT_NE(diagnostics_text(change).find("key 'test' does not apply to a change gate"),
            std::string::npos)
      << diagnostics_text(change);
}

TEST(ScenarioPairedGate, TheDefaultVariantGlobJudgesEveryOtherVariant) {
  LoadResult r = load_hermetic(kPairedCompare + "against = \"old\"\nmax_regression = \"2%\"\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(r.scenario->gates.at(0).variant, "*");
}

TEST(ScenarioPairedGate, AnUnknownVariantIsNamedWithTheChoices) {
  LoadResult r = load_hermetic(kPairedCompare + "against = \"olt\"\nmax_regression = \"2%\"\n");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(
      diagnostics_text(r).find("s.toml:14:11: error: gate against 'olt' is no variant (did you "
                               "mean 'old'?); the scenario's variants: old, new"),
      std::string::npos)
      << diagnostics_text(r);
}

TEST(ScenarioPairedGate, AVariantPatternThatMatchesOnlyTheOtherSideIsAnError) {
  LoadResult r = load_hermetic(kPairedCompare +
                               "variant = \"old\"\nagainst = \"old\"\nmax_regression = \"2%\"\n");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(diagnostics_text(r).find("gate variant 'old' matches no variant but 'old'"),
            std::string::npos)
      << diagnostics_text(r);
}

TEST(ScenarioPairedGate, AVariantThatMatchesNothingIsOneErrorNotTwo) {
  // The variant is refused at its value; that it matches no variant but 'against' follows from
  // it and is not said again at 'against'.
  LoadResult r = load_hermetic(kPairedCompare +
                               "variant = \"neu\"\nagainst = \"old\"\nmax_regression = \"2%\"\n");
  EXPECT_EQ(test_support::diagnostic_lines(r),
            std::vector<std::string>{
                "s.toml:14:11: error: gate variant 'neu' matches no variant (did you mean "
                "'new'?); the scenario's variants: old, new"});
}

TEST(ScenarioPairedGate, MaxAndMinTogetherNameEveryChoiceAndSayARangeIsTwoGates) {
  LoadResult r = load_hermetic(kPairedCompare + "max = 10\nmin = 5\n");
  EXPECT_EQ(test_support::diagnostic_lines(r),
            std::vector<std::string>{
                "s.toml:15:1: error: a gate needs exactly one of 'max', 'min', 'baseline' or "
                "'against', got both 'max' and 'min': a gate has one bound; a range is two "
                "gates"});
}

TEST(ScenarioPairedGate, WithoutAComparisonTheChoicesSayWhereAgainstBelongs) {
  const std::string head =
      "name = \"c\"\n[[workloads]]\nname = \"w\"\n[[gates]]\nworkload = \"w\"\n"
      "metric = \"throughput.rps\"\n";
  EXPECT_EQ(test_support::diagnostic_lines(load_hermetic(head + "max = 10\nmin = 5\n")),
            std::vector<std::string>{
                "s.toml:8:1: error: a gate needs exactly one of 'max', 'min' or 'baseline' (or, "
                "in a scenario with [compare], 'against'), got both 'max' and 'min': a gate has "
                "one bound; a range is two gates"});
  EXPECT_EQ(test_support::diagnostic_lines(load_hermetic(head)),
            std::vector<std::string>{
                "s.toml:4:1: error: a gate needs exactly one of 'max', 'min' or 'baseline' (or, "
                "in a scenario with [compare], 'against') in [[gates]] #1"});
  // 'against' beside a bound: refused once, at 'against', for what it needs; not also as a
  // second bound, since it is no choice here.
  EXPECT_EQ(test_support::diagnostic_lines(load_hermetic(head + "max = 10\nagainst = \"default\"\n"
                                                                "max_regression = \"2%\"\n")),
            std::vector<std::string>{
                "s.toml:8:1: error: key 'against' judges one variant against another of the "
                "same run, and this scenario compares none ([compare] routers or workers)"});
}

TEST(ScenarioPairedGate, AgainstWithoutAComparisonIsAnError) {
  LoadResult r = load_hermetic(
      "name = \"c\"\n[[workloads]]\nname = \"w\"\n[[gates]]\nworkload = \"w\"\n"
      "metric = \"throughput.rps\"\nagainst = \"default\"\nmax_regression = \"2%\"\n");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(diagnostics_text(r).find("s.toml:7:1: error: key 'against' judges one variant against "
                                     "another of the same run, and this scenario compares none"),
            std::string::npos)
      << diagnostics_text(r);
}

TEST(ScenarioPairedGate, AgainstAndBaselineExcludeEachOther) {
  LoadResult r = load_hermetic(kPairedCompare +
                               "against = \"old\"\nbaseline = \"main\"\nmax_regression = \"2%\"\n");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(diagnostics_text(r).find("a gate needs exactly one of 'max', 'min', 'baseline' or "
                                     "'against', got both 'baseline' and 'against'"),
            std::string::npos)
      << diagnostics_text(r);
}

TEST(ScenarioPairedGate, AgainstNeedsMaxRegression) {
  LoadResult r = load_hermetic(kPairedCompare + "against = \"old\"\n");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(diagnostics_text(r).find("a relative gate needs key 'max_regression'"),
            std::string::npos)
      << diagnostics_text(r);
}

TEST(ScenarioPairedGate, AChangeGateTakesNoAgainst) {
  LoadResult r = load_hermetic(kPairedCompare + "kind = \"change\"\nagainst = \"old\"\n");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(diagnostics_text(r).find("'against'"), std::string::npos) << diagnostics_text(r);
}

// A signed-rank paired gate's smallest p for n pairs is 2^-n (every pair worse), and it fails
// only when p < alpha: with fewer pairs it can never fail, and is refused at `repetitions`,
// naming the fewest pairs and the even count that gives them.
std::string paired(const std::string& repetitions, const std::string& gate_keys) {
  std::string text = kPairedCompare;
  text.replace(text.find("repetitions = 8"), 15, repetitions);
  return text + "variant = \"new\"\nagainst = \"old\"\nmax_regression = \"2%\"\n" + gate_keys;
}

TEST(ScenarioPairedGate, TooFewPairsForTheSignedRankAtItsAlphaAreRefusedAtRepetitions) {
  // alpha 0.01: 2^-6 = 0.0156 >= 0.01, 2^-7 = 0.0078 < 0.01: 7 pairs, 8 repetitions.
  EXPECT_EQ(test_support::diagnostic_lines(load_hermetic(paired("repetitions = 6", ""))),
            std::vector<std::string>{
                "s.toml:10:15: error: workload 'w': 6 repetitions make 6 pairs, and the "
                "signed-rank test of the paired gate at line 11 can never be significant at "
                "alpha 0.01 with fewer than 7 (no p is below 2^-6 = 0.015625): set repetitions "
                "to 8 or more (an even number), or the gate's test = \"t\""});
  LoadResult eight = load_hermetic(paired("repetitions = 8", ""));
  EXPECT_TRUE(eight.ok()) << diagnostics_text(eight);
  // The boundary is p < alpha: at alpha = 2^-4 exactly, 4 pairs (p = 2^-4) are too few.
  const auto at =
      test_support::diagnostic_lines(load_hermetic(paired("repetitions = 4", "alpha = 0.0625\n")));
  ASSERT_EQ(at.size(), 1u);
  EXPECT_NE(at[0].find("alpha 0.0625 with fewer than 5 (no p is below 2^-4 = 0.0625): set "
                       "repetitions to 6 or more"),
            std::string::npos)
      << at[0];
  LoadResult above = load_hermetic(paired("repetitions = 4", "alpha = 0.0626\n"));
  EXPECT_TRUE(above.ok()) << diagnostics_text(above);
  // The paired t has no such floor.
  LoadResult t = load_hermetic(paired("repetitions = 2", "test = \"t\"\n"));
  EXPECT_TRUE(t.ok()) << diagnostics_text(t);
}

TEST(ScenarioPairedGate, TooFewPairsAreOneErrorWhereTheCountIsWrittenOddOrNot) {
  // An odd count is not also told it is odd: the one error names the even count to write.
  std::string text = paired("", "");
  text.insert(text.find("[[workloads]]"), "[defaults]\nrepetitions = 3\n");
  EXPECT_EQ(test_support::diagnostic_lines(load_hermetic(text)),
            std::vector<std::string>{
                "s.toml:9:15: error: workload 'w': 3 repetitions make 3 pairs, and the "
                "signed-rank test of the paired gate at line 13 can never be significant at "
                "alpha 0.01 with fewer than 7 (no p is below 2^-3 = 0.125): set repetitions to 8 "
                "or more (an even number), or the gate's test = \"t\""});
}

TEST(ScenarioPairedGate, AStoredRunsGateWithTooFewPairsIsRefusedNotTheLoad) {
  LoadOptions options = test_support::hermetic_options();
  options.keep_refused_gates = true;
  LoadResult r = load_scenario_text(paired("repetitions = 4", ""), "s.toml", options);
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_NE(r.scenario->gates.at(0).refused.find(
                "line 10: workload 'w': 4 repetitions make 4 pairs, and the signed-rank test"),
            std::string::npos)
      << r.scenario->gates.at(0).refused;
}

TEST(ScenarioPairedGate, AStoredRunRefusesEveryGateWithTooFewPairsNotOnlyTheStrictest) {
  // 4 pairs: alpha 0.01 needs 7 and alpha 0.05 needs 5; neither gate can ever fail, so both
  // are refused, each naming its own alpha. A third at alpha 0.1 (4 pairs: p 0.0625) is judged.
  std::string text = paired("repetitions = 4", "alpha = 0.01\n");
  const std::string second =
      "[[gates]]\nworkload = \"w\"\nmetric = \"throughput.rps\"\nvariant = \"new\"\n"
      "against = \"old\"\nmax_regression = \"2%\"\n";
  text += second + "alpha = 0.05\n" + second + "alpha = 0.1\n";
  LoadOptions options = test_support::hermetic_options();
  options.keep_refused_gates = true;
  LoadResult r = load_scenario_text(text, "s.toml", options);
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  ASSERT_EQ(r.scenario->gates.size(), 3u);
  EXPECT_NE(r.scenario->gates[0].refused.find("at line 11 can never be significant at alpha "
                                              "0.01 with fewer than 7"),
            std::string::npos)
      << r.scenario->gates[0].refused;
  EXPECT_NE(r.scenario->gates[1].refused.find(
                "line 10: workload 'w': 4 repetitions make 4 pairs, and the signed-rank test of "
                "the paired gate at line 18 can never be significant at alpha 0.05 with fewer "
                "than 5 (no p is below 2^-4 = 0.0625): set repetitions to 6 or more"),
            std::string::npos)
      << r.scenario->gates[1].refused;
  EXPECT_EQ(r.scenario->gates[2].refused, "");
  // Loaded to run, the same file is one error, for the strictest gate.
  const auto load = test_support::diagnostic_lines(load_hermetic(text));
  ASSERT_EQ(load.size(), 1u);
  EXPECT_NE(load[0].find("gate at line 11 can never be significant at alpha 0.01"),
            std::string::npos)
      << load[0];
}

}  // namespace
}  // namespace benchgate::scenario
