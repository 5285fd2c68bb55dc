// Comparison ratios and sweep summaries over results: a not_configured variant gives no
// number, a ratio comes with the spread of its pairs, a sweep groups its points and fits them.
#include <gtest/gtest.h>

#include "orchestrator/report/analysis.h"

namespace benchgate::report {
namespace {

results::Repetition window(uint64_t successes, int64_t latency_ns) {
  results::Repetition rep;
  rep.successes = successes;
  rep.operations = successes;
  rep.duration_ns = 1'000'000'000;
  rep.data_window_ns = 1'000'000'000;
  rep.latency.record(latency_ns);
  return rep;
}

results::WorkloadResult workload(const std::string& name, const std::string& variant,
                                 std::vector<uint64_t> per_rep) {
  results::WorkloadResult w;
  w.spec.name = name;
  w.variant = variant;
  for (uint64_t s : per_rep) w.repetitions.push_back(window(s, 1000));
  for (const auto& rep : w.repetitions) w.latency.add(rep.latency);
  return w;
}

TEST(Comparisons, RatioOfMediansWithThePairSpread) {
  engine::ScenarioResult result;
  result.variants = {"a", "b"};
  result.workloads.push_back(workload("w", "a", {100, 100, 100, 100}));
  result.workloads.push_back(workload("w", "b", {150, 200, 250, 200}));
  auto c = comparisons(result);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].status, "ok");
  EXPECT_EQ(c[0].baseline, "a");
  EXPECT_EQ(c[0].variant, "b");
  EXPECT_DOUBLE_EQ(c[0].ratio.value_or(0), 2.0);
  EXPECT_DOUBLE_EQ(c[0].pair_min.value_or(0), 1.5);
  EXPECT_DOUBLE_EQ(c[0].pair_max.value_or(0), 2.5);
  EXPECT_NE(comparison_line("s", c[0]).find("|ratio=2|"), std::string::npos)
      << comparison_line("s", c[0]);
}

TEST(Comparisons, ANotConfiguredVariantHasNoNumber) {
  engine::ScenarioResult result;
  result.variants = {"a", "nginx"};
  result.workloads.push_back(workload("w", "a", {100, 100}));
  auto missing = workload("w", "nginx", {});
  missing.status = results::WorkloadStatus::kNotConfigured;
  result.workloads.push_back(missing);
  auto c = comparisons(result);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].status, "not_configured");
  const std::string line = comparison_line("s", c[0]);
  EXPECT_NE(line.find("|ratio=-|"), std::string::npos) << line;
  EXPECT_NE(line.find("|status=not_configured"), std::string::npos) << line;
}

// A baseline that completed nothing gives no ratio, not a ratio of 0 (nor an infinite one).
TEST(Comparisons, ABaselineThatCompletedNothingGivesNoRatio) {
  engine::ScenarioResult result;
  result.variants = {"a", "b"};
  result.workloads.push_back(workload("w", "a", {0, 0, 0}));
  result.workloads.push_back(workload("w", "b", {150, 200, 250}));
  auto c = comparisons(result);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].status, "ok");
  EXPECT_FALSE(c[0].ratio.has_value());
  EXPECT_FALSE(c[0].pair_min.has_value());
  EXPECT_FALSE(c[0].pair_max.has_value());
  const std::string line = comparison_line("s", c[0]);
  EXPECT_NE(line.find("|ratio=-|pair_min=-|pair_max=-|"), std::string::npos) << line;
  EXPECT_NE(line.find("|baseline_rps=0|variant_rps=200|"), std::string::npos) << line;
  const std::string text = analysis_text(result);
  EXPECT_EQ(text, "compare w: b vs a: no ratio, the baseline completed nothing; 200 vs 0 ops/s\n")
      << text;
}

TEST(Comparisons, NoneWithoutVariants) {
  engine::ScenarioResult result;
  result.workloads.push_back(workload("w", "default", {100}));
  EXPECT_TRUE(comparisons(result).empty());
}

TEST(Sweeps, PointsOfOneBaseWorkloadAreFitted) {
  engine::ScenarioResult result;
  for (uint64_t n : {10, 100, 1000}) {
    results::WorkloadResult w;
    w.spec.name = "echo@request_bytes=" + std::to_string(n);
    w.spec.sweep_of = "echo";
    w.spec.sweep_parameter = "request_bytes";
    w.spec.sweep_value = n;
    w.repetitions.push_back(window(100, static_cast<int64_t>(n) * 1000));
    w.latency.add(w.repetitions.back().latency);
    result.workloads.push_back(w);
  }
  auto s = sweeps(result);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].workload, "echo");
  ASSERT_EQ(s[0].n.size(), 3u);
  ASSERT_TRUE(s[0].fit);
  EXPECT_GT(s[0].fit->r2, 0.99);
  ASSERT_TRUE(s[0].growth);
  EXPECT_NEAR(s[0].growth->median, 1, 0.01);
  EXPECT_NE(sweep_line("s", s[0]).find("|class=linear"), std::string::npos)
      << sweep_line("s", s[0]);
}

// A rate sweep reads as latency against the rate offered, in the terminal as in the charts.
TEST(Sweeps, ARateSweepIsLatencyAgainstTheRateOffered) {
  engine::ScenarioResult result;
  result.scenario = "s";
  for (uint64_t n : {1000, 2000, 4000}) {
    results::WorkloadResult w;
    w.spec.name = "hello@rate=" + std::to_string(n);
    w.variant = "default";
    w.spec.sweep_of = "hello";
    w.spec.sweep_parameter = "rate";
    w.spec.sweep_value = n;
    w.repetitions.push_back(window(100, static_cast<int64_t>(n) * 1000));
    w.latency.add(w.repetitions.back().latency);
    result.workloads.push_back(w);
  }
  EXPECT_EQ(sweep_axis("rate"), "rate (requests/s offered)");
  EXPECT_EQ(sweep_axis("connections"), "connections");
  EXPECT_NE(
      analysis_text(result).find("sweep hello [default] over rate (requests/s offered): p50 = "),
      std::string::npos)
      << analysis_text(result);
  const auto s = sweeps(result);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].n, (std::vector<double>{1000, 2000, 4000}));
  EXPECT_NE(sweep_line("s", s[0]).find("|parameter=rate|points=3|"), std::string::npos)
      << sweep_line("s", s[0]);
}

// A point whose workload is not history of its series (a window measured while a process was
// stopped, or without every worker; a failed point) is left out of the fit and named in every
// output, where it had moved the model; one flagged rate_not_kept stays in.
TEST(Sweeps, APointThatIsNotHistoryIsLeftOutOfTheFitAndNamed) {
  engine::ScenarioResult result;
  result.scenario = "s";
  for (uint64_t n : {10, 100, 1000, 10000}) {
    results::WorkloadResult w;
    w.spec.name = "echo@request_bytes=" + std::to_string(n);
    w.variant = "default";
    w.spec.sweep_of = "echo";
    w.spec.sweep_parameter = "request_bytes";
    w.spec.sweep_value = n;
    // Linear in n, but the stopped point's latency is the stop's, 1000 times larger.
    const int64_t latency_ns = static_cast<int64_t>(n) * 1000 * (n == 100 ? 1000 : 1);
    w.repetitions.push_back(window(100, latency_ns));
    if (n == 100) {
      w.repetitions.back().flags = {"process_stopped"};
      w.repetitions.back().stopped = {"worker 0 (pid 4242)"};
    }
    if (n == 1000) w.repetitions.back().flags = {"rate_not_kept"};
    if (n == 10000) w.status = results::WorkloadStatus::kFailed;
    w.latency.add(w.repetitions.back().latency);
    result.workloads.push_back(w);
  }
  const auto s = sweeps(result);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].n, (std::vector<double>{10, 1000}));
  ASSERT_EQ(s[0].left_out.size(), 2u);
  EXPECT_EQ(s[0].left_out[0].n, 100);
  EXPECT_EQ(s[0].left_out[0].reason,
            "repetition 1 was measured while worker 0 (pid 4242) was stopped (flag "
            "process_stopped)");
  EXPECT_EQ(s[0].left_out[1].n, 10000);
  EXPECT_EQ(s[0].left_out[1].reason, "it failed");
  ASSERT_TRUE(s[0].growth);
  EXPECT_NEAR(s[0].growth->median, 1, 0.01);  // the two points kept are on the line
  const std::string line = sweep_line("s", s[0]);
  EXPECT_NE(line.find("|points=2|"), std::string::npos) << line;
  EXPECT_NE(line.find("|class=linear|left_out=100,10000"), std::string::npos) << line;
  const std::string text = analysis_text(result);
  EXPECT_NE(text.find("; left out: 100 (repetition 1 was measured while worker 0 (pid 4242) was "
                      "stopped (flag process_stopped)), 10000 (it failed)\n"),
            std::string::npos)
      << text;
}

TEST(Sweeps, ASweepWithNothingLeftOutSaysSo) {
  SweepSummary s;
  s.workload = "echo";
  s.variant = "default";
  s.parameter = "request_bytes";
  s.n = {10, 100};
  EXPECT_EQ(left_out_text(s), "");
  EXPECT_NE(sweep_line("s", s).find("|left_out=-"), std::string::npos) << sweep_line("s", s);
}

// A growth class never contradicts the exponent printed beside it (docs/SCENARIOS.md:
// sublinear < 0.9 <= linear <= 1.1 < superlinear): two decimals, more near a boundary.
TEST(Sweeps, TheExponentIsPrintedSoItsClassNeverContradictsIt) {
  EXPECT_EQ(exponent_text(0.98), "0.98");
  EXPECT_EQ(exponent_text(0.8979), "0.898");
  EXPECT_EQ(results::growth_class(0.8979), "sublinear");
  EXPECT_EQ(exponent_text(0.9), "0.90");
  EXPECT_EQ(exponent_text(0.0996), "0.0996");  // constant, not "0.10" (sublinear)
  EXPECT_EQ(exponent_text(1.1004), "1.1004");  // superlinear, not "1.10" (linear)
  EXPECT_EQ(exponent_text(1.096), "1.10");     // linear, and 1.10 reads linear

  SweepSummary s;
  s.workload = "echo";
  s.variant = "default";
  s.parameter = "request_bytes";
  s.n = {10, 100};
  s.growth = results::GrowthExponents{0.8979, 0.8979, 0, 1};
  EXPECT_EQ(sweep_text(s).exponent, "0.898 (sublinear)");
  EXPECT_NE(sweep_line("s", s).find("|exponent=0.898|"), std::string::npos) << sweep_line("s", s);
}

}  // namespace
}  // namespace benchgate::report
