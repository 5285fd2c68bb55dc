// Paired gates (`against = "VARIANT"`, docs/GATES.md "Paired gates"): what the loader accepts
// and the errors that name file:line:column, key and value.
#include <gtest/gtest.h>

#include <string>

#include "hermetic_options.h"
#include "orchestrator/scenario/scenario_loader.h"

namespace benchgate::scenario {
namespace {

LoadResult load(const std::string& text) {
  LoadOptions options = test_support::hermetic_options();
  return load_scenario_text(text, "s.toml", options);
}

std::string errors_of(const LoadResult& r) {
  std::string out;
  for (const Diagnostic& d : r.diagnostics) out += d.format() + "\n";
  return out;
}

const std::string kCompare = R"(name = "c"
[routers.old]
impl = "builtin"
[routers.new]
impl = "builtin"
[compare]
routers = ["old", "new"]
[[workloads]]
name = "w"
repetitions = 4
[[gates]]
workload = "w"
metric = "throughput.rps"
)";

TEST(ScenarioPairedGate, AgainstNamesTheVariantAndTakesTheRelativeKeys) {
  LoadResult r = load(kCompare +
                      "variant = \"new\"\nagainst = \"old\"\nmax_regression = \"2%\"\n"
                      "alpha = 0.05\nfail_when_underpowered = true\n");
  ASSERT_TRUE(r.ok()) << errors_of(r);
  const Gate& g = r.scenario->gates.at(0);
  EXPECT_EQ(g.against, "old");
  EXPECT_TRUE(g.baseline.empty());
  EXPECT_DOUBLE_EQ(*g.max_regression, 0.02);
  EXPECT_DOUBLE_EQ(g.alpha, 0.05);
  EXPECT_TRUE(g.fail_when_underpowered);
}

TEST(ScenarioPairedGate, TestChoosesTheSignedRankByDefaultOrThePairedT) {
  LoadResult defaults = load(kCompare + "against = \"old\"\nmax_regression = \"2%\"\n");
  ASSERT_TRUE(defaults.ok()) << errors_of(defaults);
  EXPECT_EQ(defaults.scenario->gates.at(0).paired_test, PairedTest::kSignedRank);
  LoadResult t = load(kCompare + "against = \"old\"\nmax_regression = \"2%\"\ntest = \"t\"\n");
  ASSERT_TRUE(t.ok()) << errors_of(t);
  EXPECT_EQ(t.scenario->gates.at(0).paired_test, PairedTest::kT);
  LoadResult sr =
      load(kCompare + "against = \"old\"\nmax_regression = \"2%\"\ntest = \"signed-rank\"\n");
  ASSERT_TRUE(sr.ok()) << errors_of(sr);
  EXPECT_EQ(sr.scenario->gates.at(0).paired_test, PairedTest::kSignedRank);
}

TEST(ScenarioPairedGate, AnUnknownTestOrATestOnAnotherGateIsAnError) {
  LoadResult typo =
      load(kCompare + "against = \"old\"\nmax_regression = \"2%\"\ntest = \"wilcoxon\"\n");
  EXPECT_FALSE(typo.ok());
  EXPECT_NE(errors_of(typo).find("s.toml:16:8: error: key 'test' must be one of "),
            std::string::npos)
      << errors_of(typo);
  EXPECT_NE(errors_of(typo).find("got 'wilcoxon'"), std::string::npos) << errors_of(typo);
  LoadResult absolute = load(kCompare + "max = 100\ntest = \"t\"\n");
  EXPECT_FALSE(absolute.ok());
  EXPECT_NE(errors_of(absolute).find(
                "s.toml:15:1: error: key 'test' applies only to a paired gate (one with "
                "'against')"),
            std::string::npos)
      << errors_of(absolute);
  LoadResult change = load(kCompare + "kind = \"change\"\ntest = \"t\"\n");
  EXPECT_FALSE(change.ok());
  EXPECT_NE(errors_of(change).find("key 'test' does not apply to a change gate"), std::string::npos)
      << errors_of(change);
}

TEST(ScenarioPairedGate, TheDefaultVariantGlobJudgesEveryOtherVariant) {
  LoadResult r = load(kCompare + "against = \"old\"\nmax_regression = \"2%\"\n");
  ASSERT_TRUE(r.ok()) << errors_of(r);
  EXPECT_EQ(r.scenario->gates.at(0).variant, "*");
}

TEST(ScenarioPairedGate, AnUnknownVariantIsNamedWithTheChoices) {
  LoadResult r = load(kCompare + "against = \"olt\"\nmax_regression = \"2%\"\n");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(errors_of(r).find("s.toml:14:11: error: gate against 'olt' is no variant (did you "
                              "mean 'old'?); the scenario's variants: old, new"),
            std::string::npos)
      << errors_of(r);
}

TEST(ScenarioPairedGate, AVariantPatternThatMatchesOnlyTheOtherSideIsAnError) {
  LoadResult r = load(kCompare + "variant = \"old\"\nagainst = \"old\"\nmax_regression = \"2%\"\n");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(errors_of(r).find("gate variant 'old' matches no variant but 'old'"), std::string::npos)
      << errors_of(r);
}

TEST(ScenarioPairedGate, AgainstWithoutAComparisonIsAnError) {
  LoadResult r = load(
      "name = \"c\"\n[[workloads]]\nname = \"w\"\n[[gates]]\nworkload = \"w\"\n"
      "metric = \"throughput.rps\"\nagainst = \"default\"\nmax_regression = \"2%\"\n");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(errors_of(r).find("s.toml:7:1: error: key 'against' judges one variant against "
                              "another of the same run, and this scenario compares none"),
            std::string::npos)
      << errors_of(r);
}

TEST(ScenarioPairedGate, AgainstAndBaselineExcludeEachOther) {
  LoadResult r =
      load(kCompare + "against = \"old\"\nbaseline = \"main\"\nmax_regression = \"2%\"\n");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(errors_of(r).find("a gate needs exactly one of 'max', 'min', 'baseline' or "
                              "'against', got both 'baseline' and 'against'"),
            std::string::npos)
      << errors_of(r);
}

TEST(ScenarioPairedGate, AgainstNeedsMaxRegression) {
  LoadResult r = load(kCompare + "against = \"old\"\n");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(errors_of(r).find("a relative gate needs key 'max_regression'"), std::string::npos)
      << errors_of(r);
}

TEST(ScenarioPairedGate, AChangeGateTakesNoAgainst) {
  LoadResult r = load(kCompare + "kind = \"change\"\nagainst = \"old\"\n");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(errors_of(r).find("'against'"), std::string::npos) << errors_of(r);
}

}  // namespace
}  // namespace benchgate::scenario
