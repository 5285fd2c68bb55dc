// What a restarted service's /metrics says before its next run (serve/restored_metrics.h):
// the gauges the service set after each scenario's latest run, read back from the same
// database file, with the same figures; nothing for what the store cannot say.
#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "executor_test_support.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/serve/restored_metrics.h"

namespace benchgate::serve {
namespace {

using testing::ExecutorBench;

std::string scrape_of(const metrics::MetricsObserver& observer) {
  prometheus::TextSerializer serializer;
  return serializer.Serialize(observer.registry()->Collect());
}

// The sample lines of a scrape whose metric name starts with one of `prefixes`, sorted (a
// family lists its series in no set order).
std::vector<std::string> samples(const std::string& scrape,
                                 const std::vector<std::string>& prefixes) {
  std::vector<std::string> out;
  std::istringstream lines(scrape);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    for (const std::string& prefix : prefixes) {
      if (line.starts_with(prefix)) out.push_back(line);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool has(const std::string& scrape, const std::string& line) {
  return scrape.find("\n" + line + "\n") != std::string::npos;
}

// The short scenario with a critical gate that fails, a warning gate that passes and a
// relative gate without a baseline yet: the run exits 1.
scenario::Scenario judged_scenario() {
  scenario::Scenario s = testing::short_scenario();
  scenario::Gate fails;
  fails.workload = "w";
  fails.metric = "throughput.rps";
  fails.min = 1e15;
  scenario::Gate passes;
  passes.workload = "w";
  passes.metric = "latency.p99";
  passes.max = 1e6;
  passes.severity = scenario::GateSeverity::kWarning;
  scenario::Gate relative;
  relative.workload = "w";
  relative.metric = "throughput.rps";
  relative.baseline = "main";
  relative.max_regression = 0.05;
  relative.severity = scenario::GateSeverity::kWarning;
  s.gates = {fails, passes, relative};
  return s;
}

const std::vector<std::string> kVerdictGauges = {"benchgate_gate_", "benchgate_last_run_exit_code",
                                                 "benchgate_run_info", "benchgate_run_in_progress",
                                                 "benchgate_change_"};

TEST(RestoredMetrics, ARestartedServiceSaysTheGaugesItsLatestRunLeft) {
  ExecutorBench bench;
  const auto job = bench.submit(judged_scenario(), "scheduled");
  ASSERT_TRUE(job);
  const testing::Ended ended = ExecutorBench::wait_end(*job);
  ASSERT_EQ(ended.status.exit_code, cli::kExitGateFailed) << ended.err;
  const std::string live = bench.scrape();

  // The service again, on the same file.
  auto db = store::Store::open(bench.db_path());
  ASSERT_TRUE(db) << db.message();
  metrics::MetricsObserver restarted(100);
  auto restored = restore_metrics(**db, restarted, 100);
  ASSERT_TRUE(restored) << restored.message();
  EXPECT_EQ(*restored, 1u);
  const std::string after = scrape_of(restarted);

  const auto expected = samples(live, kVerdictGauges);
  ASSERT_GE(expected.size(), 1u + 1u + 1u + 3u * 7u) << live;  // gates: passed, 6 verdicts
  EXPECT_EQ(samples(after, kVerdictGauges), expected) << "live:\n" << live << "\nafter:\n" << after;
  EXPECT_TRUE(has(after, "benchgate_last_run_exit_code{scenario=\"fakes\"} 1")) << after;

  // When the stored run finished, as the store holds it.
  auto runs = (*db)->list_runs(1);
  ASSERT_TRUE(runs && runs->size() == 1);
  const double finished = static_cast<double>(*runs->front().finished_at_ns) / 1e9;
  const auto stamp = samples(after, {"benchgate_last_run_timestamp_seconds{scenario=\"fakes\"}"});
  ASSERT_EQ(stamp.size(), 1u) << after;
  EXPECT_NEAR(std::stod(stamp[0].substr(stamp[0].rfind(' ') + 1)), finished, 1e-3);

  // The service counts runs from 0 itself; the workloads' series come with the next run.
  EXPECT_TRUE(has(after, "benchgate_runs_total{scenario=\"fakes\",status=\"ok\"} 0")) << after;
  EXPECT_TRUE(has(live, "benchgate_runs_total{scenario=\"fakes\",status=\"ok\"} 1")) << live;
  EXPECT_EQ(after.find("benchgate_workload_"), std::string::npos) << after;
}

// A client's run of a scenario named as the operator's sets none of the verdict gauges an
// operator alerts on (benchgate_gate_*, benchgate_run_info, benchgate_last_run_*, as
// benchgate_change_* are the operator's series), neither live nor restored by a restarted
// service; it is counted in benchgate_runs_total and ends benchgate_run_in_progress. Both set
// them before: a client's failing gate read benchgate_gate_passed{scenario="fakes"} 0.
TEST(RestoredMetrics, AClientsRunSetsNoneOfTheOperatorsVerdictGauges) {
  ExecutorBench bench;
  bench.factories().suts = {engine::testing::FakeSut::Script{}, engine::testing::FakeSut::Script{}};
  bench.factories().pools = {engine::testing::FakePool::Script{},
                             engine::testing::FakePool::Script{}};
  const auto operators = bench.submit(testing::short_scenario(), "scheduled");
  ASSERT_TRUE(operators);
  const testing::Ended operators_end = ExecutorBench::wait_end(*operators);
  ASSERT_EQ(operators_end.status.exit_code, 0) << operators_end.err;
  const std::string before = bench.scrape();
  const auto client = bench.submit(judged_scenario(), "client");
  ASSERT_TRUE(client);
  const testing::Ended client_end = ExecutorBench::wait_end(*client);
  ASSERT_EQ(client_end.status.exit_code, cli::kExitGateFailed) << client_end.err;
  const std::string live = bench.scrape();

  const std::vector<std::string> operators_gauges = {
      "benchgate_gate_", "benchgate_last_run_", "benchgate_run_info", "benchgate_run_in_progress",
      "benchgate_change_"};
  const auto expected = samples(before, operators_gauges);
  ASSERT_GE(expected.size(), 4u) << before;
  EXPECT_TRUE(has(before, "benchgate_run_info{commit=\"-\",run_id=\"" +
                              std::to_string(operators_end.status.run_id) +
                              "\",scenario=\"fakes\"} 1"))
      << before;
  EXPECT_EQ(samples(live, operators_gauges), expected) << "before:\n"
                                                       << before << "\nlive:\n"
                                                       << live;
  EXPECT_EQ(live.find("benchgate_gate_"), std::string::npos) << live;
  EXPECT_TRUE(has(live, "benchgate_runs_total{scenario=\"fakes\",status=\"ok\"} 2")) << live;

  auto db = store::Store::open(bench.db_path());
  ASSERT_TRUE(db) << db.message();
  metrics::MetricsObserver restarted(100);
  auto restored = restore_metrics(**db, restarted, 100);
  ASSERT_TRUE(restored) << restored.message();
  EXPECT_EQ(*restored, 1u);
  const std::string after = scrape_of(restarted);
  EXPECT_TRUE(has(after, "benchgate_last_run_exit_code{scenario=\"fakes\"} 0")) << after;
  EXPECT_TRUE(has(after, "benchgate_run_info{commit=\"-\",run_id=\"" +
                             std::to_string(operators_end.status.run_id) +
                             "\",scenario=\"fakes\"} 1"))
      << after;
  EXPECT_EQ(after.find("benchgate_gate_"), std::string::npos) << after;
}

// The latest run of each scenario that ended with an exit code: one still running, or found
// abandoned, has none, and the run before it is the latest the gauges said.
TEST(RestoredMetrics, ARunWithoutAnExitCodeLeavesTheOneBeforeIt) {
  store::testing::TempDir dir;
  {
    auto db = store::Store::open(dir.file("s.db"));
    ASSERT_TRUE(db) << db.message();
    auto first = (*db)->begin_run(store::testing::test_run_info("a"));
    ASSERT_TRUE(first);
    ASSERT_TRUE((*db)->finish_run(*first, "failed", 3, "workload 'w' failed: boom"));
    auto going = (*db)->begin_run(store::testing::test_run_info("a"));
    ASSERT_TRUE(going);  // left running: this process still owns it
    auto other = (*db)->begin_run(store::testing::test_run_info("b"));
    ASSERT_TRUE(other);
    ASSERT_TRUE((*db)->finish_run(*other, "ok", 0));
    metrics::MetricsObserver observer(100);
    auto restored = restore_metrics(**db, observer, 100);
    ASSERT_TRUE(restored) << restored.message();
    EXPECT_EQ(*restored, 2u);
    const std::string text = scrape_of(observer);
    EXPECT_TRUE(has(text, "benchgate_last_run_exit_code{scenario=\"a\"} 3")) << text;
    EXPECT_TRUE(has(text, "benchgate_last_run_exit_code{scenario=\"b\"} 0")) << text;
    EXPECT_TRUE(has(text,
                    "benchgate_run_info{commit=\"0123456789abcdef0123456789abcdef01234567\","
                    "run_id=\"" +
                        std::to_string(*first) + "\",scenario=\"a\"} 1"))
        << text;
  }
}

// The gates as the run was judged when it ran (its exit code follows them), not as a later
// `orchestrator gate RUN` judged it again.
TEST(RestoredMetrics, TheGatesAreTheRunsOwnEvaluation) {
  store::testing::TempDir dir;
  auto db = store::Store::open(dir.file("s.db"));
  ASSERT_TRUE(db) << db.message();
  auto run = (*db)->begin_run(store::testing::test_run_info("a"));
  ASSERT_TRUE(run);
  store::GateRecord gate;
  gate.gate_index = 0;
  gate.workload = "w";
  gate.metric = "latency.p99";
  gate.kind = "absolute";
  gate.verdict = "fail";
  gate.severity = "critical";
  ASSERT_TRUE((*db)->store_gate_results(*run, {gate}));
  ASSERT_TRUE((*db)->finish_run(*run, "ok", 1));
  gate.verdict = "pass";
  ASSERT_TRUE((*db)->store_gate_results(*run, {gate}));  // `gate RUN` judged it again

  metrics::MetricsObserver observer(100);
  ASSERT_TRUE(restore_metrics(**db, observer, 100));
  const std::string text = scrape_of(observer);
  EXPECT_TRUE(has(text,
                  "benchgate_gate_passed{gate=\"1\",metric=\"latency.p99\",scenario=\"a\","
                  "severity=\"critical\",variant=\"default\",workload=\"w\"} 0"))
      << text;
  EXPECT_TRUE(has(text, "benchgate_last_run_exit_code{scenario=\"a\"} 1")) << text;
}

// --metrics-scenarios: only the scenarios run most recently, as a running service keeps them.
TEST(RestoredMetrics, OnlyTheMostRecentlyRunScenariosAreRestored) {
  store::testing::TempDir dir;
  auto db = store::Store::open(dir.file("s.db"));
  ASSERT_TRUE(db) << db.message();
  for (const char* name : {"a", "b", "a", "c"}) {
    auto run = (*db)->begin_run(store::testing::test_run_info(name));
    ASSERT_TRUE(run);
    ASSERT_TRUE((*db)->finish_run(*run, "ok", 0));
  }
  metrics::MetricsObserver observer(2);
  auto restored = restore_metrics(**db, observer, 2);
  ASSERT_TRUE(restored) << restored.message();
  EXPECT_EQ(*restored, 2u);
  const std::string text = scrape_of(observer);
  EXPECT_TRUE(has(text, "benchgate_last_run_exit_code{scenario=\"a\"} 0")) << text;
  EXPECT_TRUE(has(text, "benchgate_last_run_exit_code{scenario=\"c\"} 0")) << text;
  EXPECT_EQ(text.find("scenario=\"b\""), std::string::npos) << text;
  // The most recent of them is kept longest: a new scenario makes `a` go, not `c`.
  scenario::Scenario d;
  d.name = "d";
  observer.scenario_started(d);
  const std::string later = scrape_of(observer);
  EXPECT_EQ(later.find("scenario=\"a\""), std::string::npos) << later;
  EXPECT_NE(later.find("scenario=\"c\""), std::string::npos) << later;
}

}  // namespace
}  // namespace benchgate::serve
