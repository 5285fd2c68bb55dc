// MetricsObserver under `serve --metrics-scenarios`: the series of only the most recently run
// scenarios are kept, and of each only its latest run's workloads, so that names a client
// chooses do not grow the registry (and /metrics) over the service's life.
#include <gtest/gtest.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <string>

#include "common/workload/error_kinds.h"
#include "orchestrator/metrics/metrics_observer.h"
#include "orchestrator/report/scenario_report.h"

namespace benchgate::metrics {
namespace {

std::string scrape_of(const MetricsObserver& observer) {
  prometheus::TextSerializer serializer;
  return serializer.Serialize(observer.registry()->Collect());
}

scenario::Scenario scenario_of(const std::string& name, const std::string& workload) {
  scenario::Scenario s;
  s.name = name;
  scenario::Workload w;
  w.name = workload;
  s.workloads.push_back(w);
  return s;
}

// A whole run of `s`: its workload measured once, a gate judged, the run stored.
void run(MetricsObserver& observer, const scenario::Scenario& s) {
  observer.scenario_started(s);
  const scenario::Workload& w = s.workloads.front();
  observer.workload_started(w);
  const engine::WindowInfo window{true, 1, 1, 1'000'000'000};
  observer.progress(w, window, 100, 1'000'000, 500'000'000);
  results::Repetition rep;
  rep.duration_ns = 1'000'000'000;
  rep.operations = 10;
  rep.latency.record(1'000'000);
  observer.window_finished(w, window, &rep);
  results::WorkloadResult result;
  result.spec = w;
  result.variant = "default";
  result.repetitions.push_back(rep);
  observer.workload_finished(result);
  report::ScenarioReport r;
  r.result.scenario = s.name;
  r.run_id = 1;
  gating::EvaluatedGate gate;
  gate.workload = w.name;
  gate.outcome.metric = "latency.p99";
  gate.outcome.verdict = gates::Verdict::kPass;
  r.gates.push_back(gate);
  observer.scenario_finished(r, "abc");
}

// A whole run of `s` that a client submitted to serve: as run() but ended as serve ends it.
void client_run(MetricsObserver& observer, const scenario::Scenario& s, double ops) {
  observer.begin_client_run();
  observer.scenario_started(s);
  const scenario::Workload& w = s.workloads.front();
  observer.workload_started(w);
  const engine::WindowInfo window{true, 1, 1, 1'000'000'000};
  observer.progress(w, window, ops, 1'000'000, 500'000'000);
  results::Repetition rep;
  rep.duration_ns = 1'000'000'000;
  rep.operations = static_cast<uint64_t>(ops);
  rep.successes = rep.operations;
  rep.data_window_ns = rep.duration_ns;
  rep.latency.record(1'000'000);
  observer.window_finished(w, window, &rep);
  report::ScenarioReport r;
  r.result.scenario = s.name;
  observer.client_run_finished(r);
}

bool names(const std::string& text, const std::string& label) {
  return text.find(label) != std::string::npos;
}

TEST(MetricsSeriesBound, OnlyTheMostRecentlyRunScenariosKeepTheirSeries) {
  MetricsObserver observer(2);
  run(observer, scenario_of("a", "wa"));
  run(observer, scenario_of("b", "wb"));
  run(observer, scenario_of("a", "wa"));  // a is now the most recent
  run(observer, scenario_of("c", "wc"));  // b goes
  const std::string text = scrape_of(observer);
  EXPECT_TRUE(names(text, R"(scenario="a")")) << text;
  EXPECT_FALSE(names(text, R"(scenario="b")")) << text;
  EXPECT_FALSE(names(text, R"(workload="wb")")) << text;
  EXPECT_TRUE(names(text, R"(scenario="c")")) << text;
  // The kept scenario still has its counters, run count included.
  EXPECT_TRUE(names(text, "benchgate_runs_total{scenario=\"a\",status=\"ok\"} 2\n")) << text;
  // A forgotten scenario run again starts afresh, its series held once more.
  run(observer, scenario_of("b", "wb"));
  EXPECT_TRUE(names(scrape_of(observer), "benchgate_runs_total{scenario=\"b\",status=\"ok\"} 1\n"));
}

TEST(MetricsSeriesBound, AScenarioKeepsTheWorkloadSeriesOfItsLatestRunOnly) {
  MetricsObserver observer(10);
  for (int i = 0; i < 5; ++i) run(observer, scenario_of("s", "w" + std::to_string(i)));
  const std::string text = scrape_of(observer);
  for (int i = 0; i < 4; ++i) {
    EXPECT_FALSE(names(text, "workload=\"w" + std::to_string(i) + "\"")) << i << text;
  }
  EXPECT_TRUE(names(text, R"(workload="w4")")) << text;
}

TEST(MetricsSeriesBound, ErrorKindsTheWorkerMadeUpShareOneSeries) {
  MetricsObserver observer(10);
  const scenario::Scenario s = scenario_of("s", "w");
  observer.scenario_started(s);
  observer.workload_started(s.workloads.front());
  results::Repetition rep;
  rep.duration_ns = 1'000'000'000;
  rep.operations = 100;
  rep.errors["timeout"] = 1;
  for (int i = 0; i < 50; ++i) rep.errors["made_up_" + std::to_string(i)] = 2;
  observer.window_finished(s.workloads.front(), engine::WindowInfo{true, 1, 1, 1'000'000'000},
                           &rep);
  const std::string text = scrape_of(observer);
  const std::string labels = R"(scenario="s",variant="default",workload="w")";
  EXPECT_TRUE(names(text, "benchgate_workload_errors_total{kind=\"timeout\"," + labels + "} 1\n"))
      << text;
  EXPECT_TRUE(names(text, "benchgate_workload_errors_total{kind=\"other\"," + labels + "} 100\n"))
      << text;
  EXPECT_FALSE(names(text, "made_up_")) << text;
  // The known kinds and "other": a fixed number of series however many names the worker sent.
  size_t series = 0;
  for (size_t at = text.find("\nbenchgate_workload_errors_total{"); at != std::string::npos;
       at = text.find("\nbenchgate_workload_errors_total{", at + 1)) {
    ++series;
  }
  EXPECT_EQ(series, error_kinds::kNames.size() + 1) << text;
  // What the observer was given keeps the worker's own names (the run stores and reports them).
  EXPECT_EQ(rep.errors.count("made_up_7"), 1u);
}

// Clients' scenario names push out only other clients' names, never a scenario of the
// operator's runs (its verdict gauges are what an operator alerts on), and a client's run of
// the operator's scenario name sets none of its series: before, three client names pushed the
// operator's 'nightly' out of /metrics, and a client's run of 'nightly' set its throughput.
TEST(MetricsSeriesBound, AClientsRunsNeverPushOutNorSetTheOperatorsScenario) {
  MetricsObserver observer(2);
  run(observer, scenario_of("nightly", "hello"));
  const std::string before = scrape_of(observer);
  ASSERT_TRUE(names(before, "benchgate_gate_passed{")) << before;
  for (const char* name : {"branch-1", "branch-2", "branch-3"}) {
    client_run(observer, scenario_of(name, "w"), 7);
  }
  client_run(observer, scenario_of("nightly", "hello"), 5);
  const std::string text = scrape_of(observer);
  EXPECT_TRUE(names(text, "benchgate_gate_passed{")) << text;
  EXPECT_TRUE(names(text, "benchgate_run_info{commit=\"abc\",run_id=\"1\",scenario=\"nightly\"} 1"))
      << text;
  // The operator's workload series as its run left them, not the client's 5 ops/s.
  const std::string ops = "benchgate_workload_ops_per_second{scenario=\"nightly\"";
  const size_t at = before.find(ops);
  ASSERT_NE(at, std::string::npos) << before;
  const std::string line = before.substr(at, before.find('\n', at) - at + 1);
  EXPECT_TRUE(names(text, line)) << line << text;
  EXPECT_TRUE(names(text, "benchgate_runs_total{scenario=\"nightly\",status=\"ok\"} 1\n")) << text;
  // The latest client's name holds the one place left; the earlier ones went.
  EXPECT_TRUE(names(text, "benchgate_runs_total{scenario=\"branch-3\",status=\"ok\"} 1\n")) << text;
  EXPECT_FALSE(names(text, R"(scenario="branch-1")")) << text;
  EXPECT_FALSE(names(text, R"(scenario="branch-2")")) << text;
  // An operator's run pushes a client's name out before any of the operator's.
  run(observer, scenario_of("release", "w"));
  const std::string after = scrape_of(observer);
  EXPECT_FALSE(names(after, R"(scenario="branch-3")")) << after;
  EXPECT_TRUE(names(after, R"(scenario="nightly")")) << after;
  EXPECT_TRUE(names(after, R"(scenario="release")")) << after;
}

TEST(MetricsSeriesBound, WhereEveryKeptNameIsTheOperatorsAClientsRunSetsNothing) {
  MetricsObserver observer(1);
  run(observer, scenario_of("nightly", "hello"));
  const std::string before = scrape_of(observer);
  client_run(observer, scenario_of("mine", "w"), 7);
  EXPECT_EQ(scrape_of(observer), before);
}

TEST(MetricsSeriesBound, WithoutABoundEveryScenarioStays) {
  MetricsObserver observer;  // a one-shot run
  for (int i = 0; i < 5; ++i) run(observer, scenario_of("s" + std::to_string(i), "w"));
  const std::string text = scrape_of(observer);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(names(text, "scenario=\"s" + std::to_string(i) + "\""));
}

}  // namespace
}  // namespace benchgate::metrics
