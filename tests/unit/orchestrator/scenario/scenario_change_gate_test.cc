// [[gates]] with kind = "change" (docs/GATES.md, "Change gates"): the keys a change gate takes,
// its defaults, and a one-line error for every key or value it cannot take.
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/scenario/scenario_loader.h"
#include "scenario_test_support.h"

namespace benchgate::scenario {
namespace {

using test_support::diagnostics_text;

LoadResult load_gate(const std::string& gate) {
  return load_scenario_text(
      "name = \"t\"\n[[workloads]]\nname = \"hello\"\n[[gates]]\nworkload = \"hello\"\n" + gate,
      "/s/t.toml");
}

TEST(ScenarioChangeGate, LoadsWithItsDefaults) {
  LoadResult r = load_gate("metric = \"latency.p99\"\nkind = \"change\"\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  const Gate& g = r.scenario->gates.at(0);
  EXPECT_TRUE(g.change);
  EXPECT_DOUBLE_EQ(g.alpha, 0.05);
  EXPECT_DOUBLE_EQ(g.min_change, 0.01);
  EXPECT_TRUE(g.baseline.empty());
  EXPECT_FALSE(g.max || g.min || g.max_regression);
}

TEST(ScenarioChangeGate, TakesAlphaMinChangeAndSeverity) {
  LoadResult r = load_gate(
      "metric = \"throughput.rps\"\nkind = \"change\"\nalpha = 0.1\nmin_change = \"3%\"\n"
      "severity = \"warning\"\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  const Gate& g = r.scenario->gates.at(0);
  EXPECT_DOUBLE_EQ(g.alpha, 0.1);
  EXPECT_DOUBLE_EQ(g.min_change, 0.03);
  EXPECT_EQ(g.severity, GateSeverity::kWarning);
}

TEST(ScenarioChangeGate, TakesConfirm) {
  LoadResult r = load_gate("metric = \"latency.p99\"\nkind = \"change\"\nconfirm = 1\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_TRUE(r.scenario->gates.at(0).confirm);
  r = load_gate("metric = \"latency.p99\"\nkind = \"change\"\nconfirm = 0\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_FALSE(r.scenario->gates.at(0).confirm);
  EXPECT_FALSE(
      load_gate("metric = \"latency.p99\"\nkind = \"change\"\n").scenario->gates.at(0).confirm);
}

// The error points at the value: file:line:column.
TEST(ScenarioChangeGate, ABadConfirmIsAnErrorAtItsValue) {
  LoadResult r = load_gate("metric = \"latency.p99\"\nkind = \"change\"\nconfirm = 3\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(
      diagnostics_text(r).find("/s/t.toml:8:11: error: key 'confirm' must be at most 1, got 3"),
      std::string::npos)
      << diagnostics_text(r);
}

TEST(ScenarioChangeGate, ExplicitAbsoluteAndRelativeKindsLoadAsBefore) {
  LoadResult r = load_gate("metric = \"latency.p99\"\nkind = \"absolute\"\nmax = \"5ms\"\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_FALSE(r.scenario->gates.at(0).change);
  r = load_gate(
      "metric = \"latency.p99\"\nkind = \"relative\"\nbaseline = \"main\"\n"
      "max_regression = \"5%\"\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(r.scenario->gates.at(0).baseline, "main");
}

void expect_error(const std::string& gate, const std::string& text) {
  LoadResult r = load_gate(gate);
  EXPECT_FALSE(r.ok()) << gate;
  EXPECT_NE(diagnostics_text(r).find(text), std::string::npos) << diagnostics_text(r);
  EXPECT_NE(diagnostics_text(r).find("/s/t.toml:"), std::string::npos) << diagnostics_text(r);
}

TEST(ScenarioChangeGate, RejectsWhatItCannotTake) {
  expect_error("metric = \"latency.p99\"\nkind = \"change\"\nbaseline = \"main\"\n",
               "key 'baseline' does not apply to a change gate");
  expect_error("metric = \"latency.p99\"\nkind = \"change\"\nmax = \"5ms\"\n",
               "key 'max' does not apply to a change gate");
  expect_error("metric = \"latency.p99\"\nkind = \"change\"\nmax_regression = \"5%\"\n",
               "key 'max_regression' does not apply to a change gate");
  expect_error("metric = \"errors.count\"\nkind = \"change\"\n",
               "a change gate cannot judge metric 'errors.count'");
  expect_error("metric = \"latency.p99\"\nkind = \"change\"\nalpha = 0.01\n",
               "key 'alpha' of a change gate must be above 1/51");
  expect_error("metric = \"latency.p99\"\nkind = \"change\"\nmin_change = 0.01\n",
               "a percentage string");
  expect_error("metric = \"latency.p99\"\nkind = \"change\"\nconfirm = 2\n",
               "key 'confirm' must be at most 1, got 2");
  expect_error("metric = \"latency.p99\"\nkind = \"change\"\nconfirm = -1\n",
               "key 'confirm' must be at least 0, got -1");
  expect_error("metric = \"latency.p99\"\nkind = \"change\"\nconfirm = true\n",
               "key 'confirm' must be an integer");
  expect_error("metric = \"latency.p99\"\nmax = \"5ms\"\nconfirm = 1\n",
               "key 'confirm' applies only to a change gate");
  expect_error(
      "metric = \"latency.p99\"\nbaseline = \"main\"\nmax_regression = \"5%\"\n"
      "confirm = 1\n",
      "key 'confirm' applies only to a change gate");
  expect_error("metric = \"latency.p99\"\nkind = \"chnage\"\n", "key 'kind' must be one of");
  expect_error("metric = \"latency.p99\"\nmax = \"5ms\"\nmin_change = \"1%\"\n",
               "key 'min_change' applies only to a change gate");
  expect_error(
      "metric = \"latency.p99\"\nkind = \"absolute\"\nbaseline = \"main\"\n"
      "max_regression = \"5%\"\n",
      "an absolute gate (kind = \"absolute\") takes 'max' or 'min', not 'baseline'");
  expect_error("metric = \"latency.p99\"\nkind = \"relative\"\nmax = \"5ms\"\n",
               "a relative gate (kind = \"relative\") needs key 'baseline'");
}

}  // namespace
}  // namespace benchgate::scenario
