// Benchstat-style comparison: each run's figures, their change with "~" for noise, and over the
// repetitions an interval and p for a real shift.
#include "orchestrator/history/run_comparison.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>

namespace benchgate::history {
namespace {

const std::vector<double> kBase = {10000, 10100, 9900, 10050, 9950};

std::vector<double> scaled(const std::vector<double>& v, double factor) {
  std::vector<double> out;
  for (double x : v) out.push_back(x * factor);
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The figures as the store keeps them: the median throughput, the errors summed.
WorkloadSamples workload(const std::string& name, const std::vector<double>& rps,
                         const std::string& hash = "h1") {
  WorkloadSamples w;
  w.name = name;
  w.params_hash = hash;
  w.values["throughput.rps"] = rps;
  w.values["errors.count"] = std::vector<double>(rps.size(), 0.0);
  w.figures["throughput.rps"] = median(rps);
  w.figures["errors.count"] = 0;
  return w;
}

RunSamples run(int64_t id, std::vector<WorkloadSamples> workloads,
               const std::string& testbed = "tb1") {
  return RunSamples{id, testbed, "host-" + testbed, std::move(workloads), "", "ok"};
}

// The text with runs of spaces collapsed, so checks do not depend on column widths.
std::string squash(const std::string& text) {
  return std::regex_replace(text, std::regex(" +"), " ");
}

const MetricComparison& metric(const WorkloadComparison& w, const std::string& name) {
  for (const MetricComparison& m : w.metrics) {
    if (m.metric == name) return m;
  }
  throw std::runtime_error("no metric " + name);
}

TEST(RunComparison, AFiftyPercentShiftWithLowNoiseIsSignificantWithTheExactMinimumP) {
  const RunComparison c =
      compare_runs(run(1, {workload("w", kBase)}), run(2, {workload("w", scaled(kBase, 1.5))}));
  ASSERT_EQ(c.workloads.size(), 1u);
  const MetricComparison& m = metric(c.workloads[0], "throughput.rps");
  ASSERT_TRUE(m.stats);
  EXPECT_DOUBLE_EQ(m.stats->median_a, 10000);
  EXPECT_DOUBLE_EQ(m.stats->median_b, 15000);
  EXPECT_NEAR(m.stats->change, 0.5, 1e-12);
  EXPECT_TRUE(m.stats->significant);
  EXPECT_NEAR(m.stats->p_value, 0.00794, 1e-5);  // two-sided, n = 5 + 5 (docs/GATES.md oracle)
  EXPECT_TRUE(m.stats->interval_bounded);
  EXPECT_LE(m.stats->change_low, 0.5);
  EXPECT_GE(m.stats->change_high, 0.5);
  const std::string text = squash(render_comparison(c));
  EXPECT_NE(text.find("throughput.rps 10000 ops/s 15000 ops/s +50.00% ["), std::string::npos)
      << text;
  EXPECT_NE(text.find("] p=0.008 n=5+5\n"), std::string::npos) << text;
}

TEST(RunComparison, InterleavedSamplesAreNotSignificantAndPrintATilde) {
  const std::vector<double> other = {10020, 9980, 10080, 9920, 10000};
  const RunComparison c =
      compare_runs(run(1, {workload("w", kBase)}), run(2, {workload("w", other)}));
  const MetricComparison& m = metric(c.workloads[0], "throughput.rps");
  ASSERT_TRUE(m.stats);
  EXPECT_FALSE(m.stats->significant);
  const std::string text = squash(render_comparison(c));
  EXPECT_NE(text.find("throughput.rps 10000 ops/s 10000 ops/s = ["), std::string::npos) << text;
}

TEST(RunComparison, ZeroErrorsInBothRunsIsNoChange) {
  const RunComparison c =
      compare_runs(run(1, {workload("w", kBase)}), run(2, {workload("w", kBase)}));
  const MetricComparison& m = metric(c.workloads[0], "errors.count");
  ASSERT_TRUE(m.stats);
  EXPECT_FALSE(m.stats->significant);
  const std::string text = squash(render_comparison(c));
  EXPECT_NE(text.find("errors.count 0 0 = - p=1.000 n=5+5\n"), std::string::npos) << text;
}

// The run columns are the figures every other output gives (workload_figures): latency from
// the histogram of every repetition merged, errors summed; never the medians of the
// repetitions' own values, which the test and the interval are over.
TEST(RunComparison, TheRunColumnsAreEachRunsStoredFigures) {
  WorkloadSamples a = workload("w", {10000, 10100, 9900});
  a.values["latency.p99"] = {1.9e-3, 1.95e-3, 2.0e-3};
  a.figures["latency.p99"] = 667e-6;
  a.values["errors.count"] = {32540, 32541, 0};
  a.figures["errors.count"] = 65081;
  WorkloadSamples b = workload("w", {10000, 10100, 9900});
  b.values["latency.p99"] = {1.8e-3, 1.9e-3, 2.1e-3};
  b.figures["latency.p99"] = 700e-6;
  b.values["errors.count"] = {32540, 32541, 0};
  b.figures["errors.count"] = 65081;
  const RunComparison c = compare_runs(run(1, {a}), run(2, {b}));
  const MetricComparison& p99 = metric(c.workloads[0], "latency.p99");
  EXPECT_EQ(p99.figure_a, 667e-6);
  EXPECT_EQ(p99.figure_b, 700e-6);
  const std::string text = squash(render_comparison(c));
  EXPECT_NE(text.find("latency.p99 667us 700us ~ +4.95% "), std::string::npos) << text;
  EXPECT_NE(text.find("errors.count 65081 65081 = "), std::string::npos) << text;
  EXPECT_EQ(text.find("1.95ms"), std::string::npos) << text;
  EXPECT_EQ(text.find("32.5k"), std::string::npos) << text;
  // The header says which columns are the runs' figures and which are over repetitions.
  EXPECT_NE(text.find("RUN 1, RUN 2: each run's figures, as its RESULT lines, reports and gates "
                      "give them\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("INTERVAL, P, N: over the repetitions' own values"), std::string::npos)
      << text;
}

// A figure that rose while the repetitions' own medians fell significantly (the merged
// histogram's p99 against each repetition's): the change printed is not what the test shows, so
// it is marked "~" and a note names both changes.
TEST(RunComparison, AFigureChangeTheRepetitionsShowTheOtherWayIsMarkedAndNoted) {
  WorkloadSamples a = workload("w", kBase);
  a.values["latency.p99"] = {2.0e-3, 2.1e-3, 2.2e-3, 2.3e-3, 2.4e-3};
  a.figures["latency.p99"] = 1.0e-3;
  WorkloadSamples b = workload("w", kBase);
  b.values["latency.p99"] = {1.0e-3, 1.1e-3, 1.2e-3, 1.3e-3, 1.4e-3};
  b.figures["latency.p99"] = 1.1e-3;
  const RunComparison c = compare_runs(run(1, {a}), run(2, {b}));
  const MetricComparison& p99 = metric(c.workloads[0], "latency.p99");
  ASSERT_TRUE(p99.stats);
  EXPECT_TRUE(p99.stats->significant);
  const std::string text = squash(render_comparison(c));
  EXPECT_NE(text.find("latency.p99 1ms 1.1ms ~ +10.00% ["), std::string::npos) << text;
  EXPECT_NE(text.find("note: latency.p99: the figures changed by +10.00% but the repetitions' "
                      "medians by -45.45% (p=0.008): the change is marked ~, as the "
                      "repetitions do not show it\n"),
            std::string::npos)
      << text;
  // The same way, a significant change is printed as it is, with no note.
  b.figures["latency.p99"] = 0.9e-3;
  const std::string same = squash(render_comparison(compare_runs(run(1, {a}), run(2, {b}))));
  EXPECT_NE(same.find("latency.p99 1ms 900us -10.00% ["), std::string::npos) << same;
  EXPECT_EQ(same.find("repetitions' medians by"), std::string::npos) << same;
}

// A figure the store does not hold (latency of a run stored before schema version 8) says so;
// the test over the repetitions still runs.
TEST(RunComparison, AFigureNotStoredSaysSo) {
  WorkloadSamples a = workload("w", kBase);
  a.values["latency.p99"] = {1e-3, 1e-3, 1e-3, 1e-3, 1e-3};
  WorkloadSamples b = a;
  b.figures["latency.p99"] = 1e-3;
  const std::string text = squash(render_comparison(compare_runs(run(1, {a}), run(2, {b}))));
  EXPECT_NE(text.find("latency.p99 not stored 1ms ~ [+0.00%, +0.00%] p=1.000 n=5+5\n"),
            std::string::npos)
      << text;
}

// 3 + 3 repetitions can never give a two-sided p below 0.05 (at best 0.1): the change is
// printed all the same, and a note says why it is "~" and how many repetitions could do better.
TEST(RunComparison, TooFewRepetitionsForAnySignificanceAreNotedAndTheChangeIsStillPrinted) {
  const std::vector<double> three = {10000, 10100, 9900};
  const RunComparison c =
      compare_runs(run(1, {workload("w", three)}), run(2, {workload("w", scaled(three, 1.38))}));
  const MetricComparison& m = metric(c.workloads[0], "throughput.rps");
  ASSERT_TRUE(m.stats);
  EXPECT_FALSE(m.stats->significant);
  EXPECT_NEAR(m.stats->p_value, 0.1, 1e-12);
  const std::string text = squash(render_comparison(c));
  EXPECT_NE(text.find("throughput.rps 10000 ops/s 13800 ops/s ~ +38.00% "), std::string::npos)
      << text;
  EXPECT_NE(text.find("\n note: 3+3 repetitions cannot show a significant change at alpha 0.05 "
                      "(the smallest two-sided p they can give is 0.100): every change is \"~\" "
                      "whatever its size; 4+4 can, or 3+5\n"),
            std::string::npos)
      << text;
  // At alpha 0.2 they can: no note.
  EXPECT_EQ(render_comparison(compare_runs(run(1, {workload("w", three)}),
                                           run(2, {workload("w", scaled(three, 1.38))}), 0.2))
                .find("cannot show"),
            std::string::npos);
  // Nor with 5 + 5.
  EXPECT_EQ(render_comparison(
                compare_runs(run(1, {workload("w", kBase)}), run(2, {workload("w", kBase)})))
                .find("cannot show"),
            std::string::npos);
}

TEST(RunComparison, AMetricMissingFromOneRunSaysWhereItWasNotCollected) {
  WorkloadSamples b = workload("w", kBase);
  b.values.erase("throughput.rps");
  const RunComparison c = compare_runs(run(1, {workload("w", kBase)}), run(2, {b}));
  const MetricComparison& m = metric(c.workloads[0], "throughput.rps");
  EXPECT_FALSE(m.stats);
  EXPECT_EQ(m.missing_in, std::vector<int64_t>{2});
  EXPECT_FALSE(metric(c.workloads[0], "latency.p50").stats);
  EXPECT_NE(render_comparison(c).find("not collected in run 2"), std::string::npos);
  EXPECT_NE(render_comparison(c).find("not collected in run 1 and 2"), std::string::npos);
}

// The run that measured the metric shows its figure; the run that did not, "-" (both columns
// were blank).
TEST(RunComparison, AMetricMissingFromOneRunShowsTheOtherRunsFigure) {
  WorkloadSamples b = workload("w", kBase);
  b.values.erase("throughput.rps");
  b.figures.erase("throughput.rps");
  const std::string ab =
      squash(render_comparison(compare_runs(run(1, {workload("w", kBase)}), run(2, {b}))));
  EXPECT_NE(ab.find("\n throughput.rps 10000 ops/s - - not collected in run 2\n"),
            std::string::npos)
      << ab;
  const std::string ba =
      squash(render_comparison(compare_runs(run(1, {b}), run(2, {workload("w", kBase)}))));
  EXPECT_NE(ba.find("\n throughput.rps - 10000 ops/s - not collected in run 1\n"),
            std::string::npos)
      << ba;
  // Collected in neither: nothing to show on either side.
  EXPECT_NE(ab.find("\n latency.p50 - - - not collected in run 1 and 2\n"), std::string::npos)
      << ab;
}

// A run that did not end ok is noted, each status with what it means for its figures.
TEST(RunComparison, ARunThatDidNotEndOkIsNoted) {
  RunSamples a = run(1, {workload("w", kBase)});
  RunSamples b = run(2, {workload("w", kBase)});
  a.status = "aborted";
  b.status = "running";
  std::string text = render_comparison(compare_runs(a, b));
  EXPECT_NE(text.find("\nnote: run 1 was aborted (interrupted): "), std::string::npos) << text;
  EXPECT_NE(text.find("\nnote: run 2 is still running: its figures are those stored so far\n"),
            std::string::npos)
      << text;
  a.status = "ok";
  b.status = "abandoned";
  text = render_comparison(compare_runs(a, b));
  EXPECT_EQ(text.find("note: run 1"), std::string::npos) << text;
  EXPECT_NE(text.find("\nnote: run 2 was abandoned (its orchestrator stopped before the run "
                      "ended)"),
            std::string::npos)
      << text;
}

TEST(RunComparison, RunsOfDifferentScenariosAreNoted) {
  RunSamples a = run(1, {workload("w", kBase)});
  RunSamples b = run(2, {workload("w", kBase)});
  a.scenario = "checkout";
  b.scenario = "search";
  const std::string text = render_comparison(compare_runs(a, b));
  EXPECT_NE(text.find("\nnote: the runs are of different scenarios (run 1 of checkout, run 2 of "
                      "search)"),
            std::string::npos)
      << text;
  b.scenario = "checkout";
  EXPECT_EQ(render_comparison(compare_runs(a, b)).find("note:"), std::string::npos);
}

// A run with a stored figure but no repetition values of the metric: the text shows "-" for its
// figure and the change, and the JSON null for both, by the one rule (the JSON gave the figure
// and a change).
TEST(RunComparison, AFigureWithoutRepetitionValuesIsADashInTheTextAndNullInTheJson) {
  WorkloadSamples b = workload("w", scaled(kBase, 1.5));
  b.values.erase("throughput.rps");
  ASSERT_EQ(b.figures.count("throughput.rps"), 1u);
  const RunComparison c = compare_runs(run(1, {workload("w", kBase)}), run(2, {b}));
  const std::string text = squash(render_comparison(c));
  EXPECT_NE(text.find("\n throughput.rps 10000 ops/s - - not collected in run 2\n"),
            std::string::npos)
      << text;
  const nlohmann::json j = nlohmann::json::parse(render_comparison_json(c));
  const nlohmann::json& rps = j["workloads"][0]["metrics"][0];
  ASSERT_EQ(rps["metric"], "throughput.rps");
  EXPECT_DOUBLE_EQ(rps["figure_a"].get<double>(), 10000);
  EXPECT_TRUE(rps["figure_b"].is_null()) << rps.dump();
  EXPECT_TRUE(rps["change"].is_null()) << rps.dump();
  EXPECT_EQ(rps["missing_in"], nlohmann::json::array({2}));
  // The other way round: run A's figure is the one not shown.
  const nlohmann::json ba = nlohmann::json::parse(
      render_comparison_json(compare_runs(run(1, {b}), run(2, {workload("w", kBase)}))));
  const nlohmann::json& rps_ba = ba["workloads"][0]["metrics"][0];
  EXPECT_TRUE(rps_ba["figure_a"].is_null()) << rps_ba.dump();
  EXPECT_DOUBLE_EQ(rps_ba["figure_b"].get<double>(), 10000);
  EXPECT_TRUE(rps_ba["change"].is_null()) << rps_ba.dump();
}

// compare --json: the same comparison, figures and changes as numbers (null where there is
// none), the notes the text prints.
TEST(RunComparison, TheJsonDocumentHoldsTheFiguresChangesAndNotes) {
  WorkloadSamples b = workload("w", scaled(kBase, 1.5));
  b.values.erase("errors.count");
  b.figures.erase("errors.count");
  RunSamples ra = run(1, {workload("w", kBase), workload("old", kBase)});
  RunSamples rb = run(2, {b});
  ra.scenario = "checkout";
  rb.scenario = "checkout";
  rb.status = "aborted";
  const nlohmann::json j = nlohmann::json::parse(render_comparison_json(compare_runs(ra, rb)));
  EXPECT_EQ(j["run_a"]["id"], 1);
  EXPECT_EQ(j["run_b"]["status"], "aborted");
  EXPECT_EQ(j["alpha"], 0.05);
  ASSERT_EQ(j["notes"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["notes"][0].get<std::string>().rfind("run 2 was aborted (interrupted)", 0), 0u);
  ASSERT_EQ(j["workloads"].size(), 1u);
  const nlohmann::json& metrics = j["workloads"][0]["metrics"];
  const nlohmann::json& rps = metrics[0];
  EXPECT_EQ(rps["metric"], "throughput.rps");
  EXPECT_DOUBLE_EQ(rps["figure_a"].get<double>(), 10000);
  EXPECT_DOUBLE_EQ(rps["figure_b"].get<double>(), 15000);
  EXPECT_NEAR(rps["change"].get<double>(), 0.5, 1e-12);
  EXPECT_EQ(rps["significant"], true);
  EXPECT_EQ(rps["n_a"], 5);
  const nlohmann::json& errors = metrics[metrics.size() - 1];
  EXPECT_EQ(errors["metric"], "errors.count");
  EXPECT_DOUBLE_EQ(errors["figure_a"].get<double>(), 0);
  EXPECT_TRUE(errors["figure_b"].is_null());
  EXPECT_TRUE(errors["change"].is_null());
  EXPECT_EQ(errors["missing_in"], nlohmann::json::array({2}));
  EXPECT_EQ(j["only_in_a"], nlohmann::json::array({"old"}));
  EXPECT_EQ(j["only_in_b"], nlohmann::json::array());
}

TEST(RunComparison, WorkloadsInOnlyOneRunAreListedAsSuch) {
  WorkloadSamples variant = workload("w", kBase);
  variant.variant = "big";
  const RunComparison c = compare_runs(run(1, {workload("w", kBase), workload("old", kBase)}),
                                       run(2, {workload("w", kBase), variant}));
  ASSERT_EQ(c.workloads.size(), 1u);
  EXPECT_EQ(c.only_in_a, std::vector<std::string>{"old"});
  EXPECT_EQ(c.only_in_b, std::vector<std::string>{"w [big]"});
  const std::string text = render_comparison(c);
  EXPECT_NE(text.find("only in run 1: workload old\n"), std::string::npos) << text;
  EXPECT_NE(text.find("only in run 2: workload w [big]\n"), std::string::npos) << text;
}

TEST(RunComparison, DifferentTestbedsAndDefinitionsAreNoted) {
  WorkloadSamples failed = workload("w", kBase, "h2");
  failed.status = "failed";
  failed.error = "worker 1 died";
  const RunComparison c =
      compare_runs(run(1, {workload("w", kBase)}, "tb1"), run(2, {failed}, "tb2"));
  EXPECT_TRUE(c.testbeds_differ);
  EXPECT_TRUE(c.workloads[0].definitions_differ);
  const std::string text = render_comparison(c);
  EXPECT_NE(text.find("different testbeds (run 1 on host-tb1, run 2 on host-tb2)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("note: definitions differ"), std::string::npos) << text;
  EXPECT_NE(text.find("note: failed in run 2: worker 1 died"), std::string::npos) << text;
}

// A stored reason that starts with its kind (a not_configured workload's, as the store keeps
// it) is noted with the kind once, not "not_configured in run 2: not_configured: ...".
TEST(RunComparison, AStoredReasonThatNamesItsKindIsNotedWithTheKindOnce) {
  WorkloadSamples skipped = workload("w", kBase);
  skipped.status = "not_configured";
  skipped.error = "not_configured: worker 'h2load': no h2load on PATH";
  const std::string text =
      render_comparison(compare_runs(run(1, {workload("w", kBase)}), run(2, {skipped})));
  EXPECT_NE(text.find("note: not_configured in run 2: worker 'h2load': no h2load on PATH"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("not_configured: worker"), std::string::npos) << text;
}

// The note names the parameters that differ as a no_baseline verdict does
// (store::definition_differences), each with its value in both runs.
TEST(RunComparison, DifferentDefinitionsNameTheParametersThatDiffer) {
  WorkloadSamples before = workload("w", kBase, "h1");
  before.params_json = R"({"connections":16,"http":{"method":"GET","target":"/a"}})";
  WorkloadSamples after = workload("w", kBase, "h2");
  after.params_json = R"({"connections":32,"http":{"method":"GET","target":"/b"}})";
  const RunComparison c = compare_runs(run(11, {before}), run(12, {after}));
  ASSERT_EQ(c.workloads.size(), 1u);
  EXPECT_EQ(c.workloads[0].definition_changes,
            (std::vector<std::string>{"connections (run 11: 16, run 12: 32)",
                                      "http.target (run 11: \"/a\", run 12: \"/b\")"}));
  EXPECT_NE(render_comparison(c).find(
                "\n  note: definitions differ in connections (run 11: 16, run 12: 32), "
                "http.target (run 11: \"/a\", run 12: \"/b\"); the figures are not one series\n"),
            std::string::npos)
      << render_comparison(c);
}

TEST(RunComparison, TheSameTestbedAndDefinitionGiveNoNotes) {
  const RunComparison c =
      compare_runs(run(1, {workload("w", kBase)}), run(2, {workload("w", kBase)}));
  EXPECT_FALSE(c.testbeds_differ);
  EXPECT_FALSE(c.workloads[0].definitions_differ);
  EXPECT_EQ(render_comparison(c).find("note:"), std::string::npos);
}

}  // namespace
}  // namespace benchgate::history
