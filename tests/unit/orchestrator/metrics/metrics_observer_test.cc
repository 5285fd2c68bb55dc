// MetricsObserver: what a scrape shows during and after a run.
#include "orchestrator/metrics/metrics_observer.h"

#include <gtest/gtest.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <string>

#include "orchestrator/report/scenario_report.h"

namespace benchgate::metrics {
namespace {

std::string scrape(const MetricsObserver& observer) {
  prometheus::TextSerializer serializer;
  return serializer.Serialize(observer.registry()->Collect());
}

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

scenario::Scenario make_scenario() {
  scenario::Scenario s;
  s.name = "sc";
  scenario::Workload w;
  w.name = "hello";
  w.connections = 8;
  s.workloads.push_back(w);
  return s;
}

results::Repetition make_repetition() {
  results::Repetition rep;
  rep.duration_ns = 1'000'000'000;
  rep.data_window_ns = 1'000'000'000;
  rep.operations = 1000;
  rep.successes = 998;
  rep.errors["timeout"] = 2;
  rep.bytes_received = 50'000;
  for (int i = 0; i < 998; ++i) rep.latency.record(1'000'000);  // 1 ms
  rep.worker_cpu_utilization = 0.5;
  rep.router.collected = true;
  rep.router.sampled = true;
  rep.router.requests = 1000;
  rep.router.cpu_seconds = 0.25;
  rep.router.rss_bytes = 4096;
  return rep;
}

TEST(MetricsObserverTest, LiveProgressSetsOpsAndP99WhileAWindowRuns) {
  MetricsObserver observer;
  auto s = make_scenario();
  observer.scenario_started(s);
  observer.workload_started(s.workloads[0]);
  engine::WindowInfo window{true, 2, 3, 1'000'000'000};
  observer.progress(s.workloads[0], window, 1234.5, 2'000'000, 500'000'000);
  const std::string text = scrape(observer);
  const std::string labels = R"(scenario="sc",variant="default",workload="hello")";
  EXPECT_TRUE(has_line(text, "benchgate_workload_ops_per_second{" + labels + "} 1234.5")) << text;
  EXPECT_TRUE(
      has_line(text, R"(benchgate_workload_latency_seconds{percentile="99",)" + labels + "} 0.002"))
      << text;
  EXPECT_TRUE(has_line(text, "benchgate_workload_repetition{" + labels + "} 2")) << text;
  EXPECT_TRUE(has_line(text, R"(benchgate_run_in_progress{scenario="sc"} 1)")) << text;
  // Counters exist at zero before anything happened, so rate() and alerts see the first one.
  EXPECT_TRUE(has_line(text, R"(benchgate_workload_errors_total{kind="connect",)" + labels + "} 0"))
      << text;
  // WAMP's kinds too: an ERROR answer and an event that never arrived.
  EXPECT_TRUE(
      has_line(text, R"(benchgate_workload_errors_total{kind="wamp_error",)" + labels + "} 0"))
      << text;
  EXPECT_TRUE(has_line(text, R"(benchgate_workload_errors_total{kind="lost",)" + labels + "} 0"))
      << text;
  // A call the router timed out, and one the worker cancelled.
  EXPECT_TRUE(
      has_line(text, R"(benchgate_workload_errors_total{kind="call_timeout",)" + labels + "} 0"))
      << text;
  EXPECT_TRUE(
      has_line(text, R"(benchgate_workload_errors_total{kind="canceled",)" + labels + "} 0"))
      << text;
  EXPECT_TRUE(has_line(text, R"(benchgate_runs_total{scenario="sc",status="failed"} 0)")) << text;
}

TEST(MetricsObserverTest, MeasuredWindowsAddErrorsRouterCpuAndOperations) {
  MetricsObserver observer;
  auto s = make_scenario();
  observer.scenario_started(s);
  observer.workload_started(s.workloads[0]);
  const auto rep = make_repetition();
  engine::WindowInfo window{true, 1, 3, 1'000'000'000};
  observer.window_finished(s.workloads[0], window, &rep);
  observer.window_finished(s.workloads[0], window, &rep);
  observer.window_finished(s.workloads[0], engine::WindowInfo{}, nullptr);  // warm-up
  const std::string text = scrape(observer);
  const std::string labels = R"(scenario="sc",variant="default",workload="hello")";
  EXPECT_TRUE(has_line(text, R"(benchgate_workload_errors_total{kind="timeout",)" + labels + "} 4"))
      << text;
  EXPECT_TRUE(has_line(text, "benchgate_workload_operations_total{" + labels + "} 2000")) << text;
  EXPECT_TRUE(has_line(text, "benchgate_workload_ops_per_second{" + labels + "} 998")) << text;
  EXPECT_TRUE(
      has_line(text, "benchgate_workload_throughput_bytes_per_second{" + labels + "} 50000"))
      << text;
  EXPECT_TRUE(has_line(text, R"(benchgate_router_cpu_seconds_total{scenario="sc"} 0.5)")) << text;
  EXPECT_TRUE(has_line(text, R"(benchgate_router_resident_memory_bytes{scenario="sc"} 4096)"))
      << text;
  EXPECT_TRUE(has_line(text, "benchgate_worker_cpu_utilization_ratio{" + labels + "} 0.5")) << text;
}

// A figure the workers could not measure (a tool that counts no bytes, no CPU figures) has no
// sample, never 0, and one an earlier window set does not stand for it (docs/MEASUREMENT.md).
TEST(MetricsObserverTest, AFigureTheWorkersDidNotMeasureHasNoSample) {
  MetricsObserver observer;
  auto s = make_scenario();
  observer.scenario_started(s);
  observer.workload_started(s.workloads[0]);
  engine::WindowInfo window{true, 1, 2, 1'000'000'000};
  const auto measured = make_repetition();
  observer.window_finished(s.workloads[0], window, &measured);
  auto unmeasured = make_repetition();
  unmeasured.not_measured = {"cpu", "bytes_received"};
  unmeasured.worker_cpu_utilization = 0;
  unmeasured.bytes_received = 0;
  observer.window_finished(s.workloads[0], engine::WindowInfo{true, 2, 2, 1'000'000'000},
                           &unmeasured);
  std::string text = scrape(observer);
  const std::string labels = R"(scenario="sc",variant="default",workload="hello")";
  EXPECT_EQ(text.find("benchgate_worker_cpu_utilization_ratio{"), std::string::npos) << text;
  EXPECT_EQ(text.find("benchgate_workload_throughput_bytes_per_second{"), std::string::npos)
      << text;
  EXPECT_TRUE(has_line(text, "benchgate_workload_ops_per_second{" + labels + "} 998")) << text;

  results::WorkloadResult result;
  result.spec = s.workloads[0];
  result.repetitions = {measured, unmeasured};
  observer.workload_finished(result);
  text = scrape(observer);
  EXPECT_EQ(text.find("benchgate_workload_throughput_bytes_per_second{"), std::string::npos)
      << text;
}

// The router's figures exist where they are measured: an external system's CPU and a
// command's requests are unknown, not 0 (docs/MEASUREMENT.md).
TEST(MetricsObserverTest, RouterFiguresThatAreNotMeasuredHaveNoSeries) {
  for (const auto impl : {scenario::RouterImpl::kExternal, scenario::RouterImpl::kCommand}) {
    MetricsObserver observer;
    auto s = make_scenario();
    s.router.impl = impl;
    observer.scenario_started(s);
    observer.workload_started(s.workloads[0]);
    auto rep = make_repetition();
    rep.router = {};
    rep.router.sampled = impl == scenario::RouterImpl::kCommand;
    rep.router.cpu_seconds = rep.router.sampled ? 0.25 : 0;
    observer.window_finished(s.workloads[0], engine::WindowInfo{true, 1, 1, 1'000'000'000}, &rep);
    const std::string text = scrape(observer);
    EXPECT_EQ(text.find("benchgate_router_requests_total{"), std::string::npos) << text;
    EXPECT_EQ(text.find("benchgate_router_connections_accepted_total{"), std::string::npos) << text;
    if (impl == scenario::RouterImpl::kExternal) {
      EXPECT_EQ(text.find("benchgate_router_cpu_seconds_total{"), std::string::npos) << text;
      EXPECT_EQ(text.find("benchgate_router_resident_memory_bytes{"), std::string::npos) << text;
    } else {
      EXPECT_TRUE(has_line(text, R"(benchgate_router_cpu_seconds_total{scenario="sc"} 0.25)"))
          << text;
    }
  }
}

// An empty histogram has no percentile: live, no p99 sample until the first answer; after a
// window without one, the previous window's figures do not stand for it.
TEST(MetricsObserverTest, ALatencyWithNoAnswerHasNoSample) {
  MetricsObserver observer;
  auto s = make_scenario();
  observer.scenario_started(s);
  observer.workload_started(s.workloads[0]);
  observer.progress(s.workloads[0], engine::WindowInfo{true, 1, 2, 1'000'000'000}, 0, 0, 1000);
  EXPECT_EQ(scrape(observer).find("benchgate_workload_latency_seconds{"), std::string::npos);
  const auto answered = make_repetition();
  observer.window_finished(s.workloads[0], engine::WindowInfo{true, 1, 2, 1'000'000'000},
                           &answered);
  EXPECT_NE(scrape(observer).find("benchgate_workload_latency_seconds{"), std::string::npos);
  auto unanswered = make_repetition();
  unanswered.latency = HdrHistogram();
  unanswered.successes = 0;
  unanswered.errors["status"] = 998;
  observer.window_finished(s.workloads[0], engine::WindowInfo{true, 2, 2, 1'000'000'000},
                           &unanswered);
  const std::string text = scrape(observer);
  EXPECT_EQ(text.find("benchgate_workload_latency_seconds{"), std::string::npos) << text;
}

// In a [compare] scenario every series of a window is its variant's, under the workload's own
// name, as the finished workload's are; none is left at 0 under "default".
TEST(MetricsObserverTest, AComparedWindowIsCountedUnderItsVariant) {
  MetricsObserver observer;
  auto s = make_scenario();
  s.compare_routers = {"builtin", "nginx"};
  observer.scenario_started(s);
  observer.workload_started(s.workloads[0]);
  scenario::Workload shown = s.workloads[0];
  shown.name = "hello [nginx]";
  engine::WindowInfo window{true, 1, 2, 1'000'000'000};
  window.workload = "hello";
  window.variant = "nginx";
  const auto rep = make_repetition();
  observer.progress(shown, window, 990, 2'000'000, 500'000'000);
  observer.window_finished(shown, window, &rep);
  const std::string text = scrape(observer);
  const std::string nginx = R"(scenario="sc",variant="nginx",workload="hello")";
  const std::string builtin = R"(scenario="sc",variant="builtin",workload="hello")";
  EXPECT_TRUE(has_line(text, R"(benchgate_workload_errors_total{kind="timeout",)" + nginx + "} 2"))
      << text;
  EXPECT_TRUE(
      has_line(text, R"(benchgate_workload_errors_total{kind="timeout",)" + builtin + "} 0"))
      << text;
  EXPECT_TRUE(has_line(text, "benchgate_workload_operations_total{" + nginx + "} 1000")) << text;
  EXPECT_EQ(text.find(R"(variant="default")"), std::string::npos) << text;
  EXPECT_EQ(text.find("hello [nginx]"), std::string::npos) << text;
}

// A finished workload's connection figures: handshakes/s (new_connection_per_request only),
// setup percentiles per phase, TLS handshakes all and resumed, http2 streams; none where not
// measured.
TEST(MetricsObserverTest, ConnectionTlsAndStreamFiguresOfAFinishedWorkload) {
  MetricsObserver observer;
  auto s = make_scenario();
  s.workloads[0].protocol = scenario::Protocol::kHttp2;
  s.workloads[0].tls.enabled = true;
  s.workloads[0].new_connection_per_request = true;
  observer.scenario_started(s);
  observer.workload_started(s.workloads[0]);
  auto rep = make_repetition();
  rep.setup.emplace();
  rep.setup->connections = 1001;
  rep.setup->handshakes = 1001;
  rep.setup->resumed = 990;
  rep.setup->connect.record(50'000);
  rep.setup->tls_handshake.record(400'000);
  rep.window_connections = 1000;
  rep.requested_streams = 1;
  rep.effective_streams = 1;
  results::WorkloadResult result;
  result.spec = s.workloads[0];
  result.repetitions = {rep};
  observer.workload_finished(result);
  std::string text = scrape(observer);
  const std::string labels = R"(scenario="sc",variant="default",workload="hello")";
  EXPECT_TRUE(has_line(text, "benchgate_workload_handshakes_per_second{" + labels + "} 1000"))
      << text;
  EXPECT_TRUE(has_line(text, R"(benchgate_workload_tls_handshakes{resumed="all",)" +
                                 labels.substr(0, labels.size()) + "} 1001"))
      << text;
  EXPECT_TRUE(
      has_line(text, R"(benchgate_workload_tls_handshakes{resumed="yes",)" + labels + "} 990"))
      << text;
  EXPECT_TRUE(
      has_line(text, R"(benchgate_workload_http2_streams{kind="effective",)" + labels + "} 1"))
      << text;
  EXPECT_NE(text.find(R"(benchgate_workload_connection_setup_seconds{percentile="99",)"
                      R"(phase="tls_handshake",)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find(R"(phase="ttfb")"), std::string::npos) << text;  // none recorded

  // The same workload keeping its connections, cleartext HTTP/1.1: no such samples.
  result.spec.new_connection_per_request = false;
  result.spec.protocol = scenario::Protocol::kHttp1;
  result.repetitions.front().setup->handshakes = 0;
  result.repetitions.front().setup->resumed = 0;
  result.repetitions.front().setup->tls_handshake.reset();
  result.repetitions.front().requested_streams = 0;
  result.repetitions.front().effective_streams = 0;
  observer.workload_finished(result);
  text = scrape(observer);
  EXPECT_EQ(text.find("benchgate_workload_handshakes_per_second{"), std::string::npos) << text;
  EXPECT_EQ(text.find("benchgate_workload_tls_handshakes{"), std::string::npos) << text;
  EXPECT_EQ(text.find("benchgate_workload_http2_streams{"), std::string::npos) << text;
  EXPECT_EQ(text.find(R"(phase="tls_handshake")"), std::string::npos) << text;
}

// resumed="yes" follows results::resumed_handshakes, the rule of the RESULT line, the JSON
// report and the store (docs/MEASUREMENT.md "Handshakes per second"): a sample, 0 included, where
// the workload reconnects per operation over TLS; none where it keeps its connections, whose
// handshakes (resumed="all") are still counted, and an earlier run's sample does not stand for it.
TEST(MetricsObserverTest, ResumedHandshakesHaveASampleOnlyWhereTheWorkloadReconnectsOverTls) {
  MetricsObserver observer;
  auto s = make_scenario();
  s.workloads[0].tls.enabled = true;
  s.workloads[0].new_connection_per_request = true;
  observer.scenario_started(s);
  observer.workload_started(s.workloads[0]);
  auto rep = make_repetition();
  rep.setup.emplace();
  rep.setup->connections = 500;
  rep.setup->handshakes = 500;
  rep.setup->resumed = 0;
  results::WorkloadResult result;
  result.spec = s.workloads[0];
  result.repetitions = {rep};
  const std::string labels = R"(scenario="sc",variant="default",workload="hello")";
  const std::string all = R"(benchgate_workload_tls_handshakes{resumed="all",)" + labels + "} ";
  const std::string yes = R"(benchgate_workload_tls_handshakes{resumed="yes",)" + labels + "} ";
  observer.workload_finished(result);
  std::string text = scrape(observer);
  EXPECT_TRUE(has_line(text, all + "500")) << text;
  EXPECT_TRUE(has_line(text, yes + "0")) << text;  // a count: the server resumed none

  // The same workload keeping its 8 connections: 8 handshakes at its start, resumption never
  // asked.
  result.spec.new_connection_per_request = false;
  result.repetitions.front().setup->connections = 8;
  result.repetitions.front().setup->handshakes = 8;
  observer.workload_finished(result);
  text = scrape(observer);
  EXPECT_TRUE(has_line(text, all + "8")) << text;
  EXPECT_EQ(text.find(R"(benchgate_workload_tls_handshakes{resumed="yes")"), std::string::npos)
      << text;

  // wamp_transfer (a session per transfer): 12 of 14 resumed; wamp_rpc keeping its sessions:
  // none; wamp_rpc with a session per call: 0 of 14.
  result.spec.protocol = scenario::Protocol::kWampTransfer;
  result.repetitions.front().setup->connections = 0;
  result.repetitions.front().setup->handshakes = 14;
  result.repetitions.front().setup->resumed = 12;
  observer.workload_finished(result);
  text = scrape(observer);
  EXPECT_TRUE(has_line(text, all + "14")) << text;
  EXPECT_TRUE(has_line(text, yes + "12")) << text;
  result.spec.protocol = scenario::Protocol::kWampRpc;
  result.repetitions.front().setup->resumed = 0;
  observer.workload_finished(result);
  text = scrape(observer);
  EXPECT_TRUE(has_line(text, all + "14")) << text;
  EXPECT_EQ(text.find(R"(benchgate_workload_tls_handshakes{resumed="yes")"), std::string::npos)
      << text;
  result.spec.wamp.session_per_operation = true;
  observer.workload_finished(result);
  text = scrape(observer);
  EXPECT_TRUE(has_line(text, yes + "0")) << text;
}

// The help text says what the figure is, as docs/MEASUREMENT.md defines it.
TEST(MetricsObserverTest, HelpTextsFollowTheFiguresDefinitions) {
  MetricsObserver observer;
  auto s = make_scenario();
  observer.scenario_started(s);
  observer.workload_started(s.workloads[0]);
  const auto rep = make_repetition();
  observer.window_finished(s.workloads[0], engine::WindowInfo{true, 1, 1, 1'000'000'000}, &rep);
  const std::string text = scrape(observer);
  EXPECT_NE(text.find("# HELP benchgate_worker_cpu_utilization_ratio The busiest load thread's "
                      "CPU time over the window"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# HELP benchgate_workload_throughput_bytes_per_second Wire bytes"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("operations (errors included) per second of the latest progress interval"),
            std::string::npos)
      << text;
}

report::ScenarioReport make_report(int64_t run_id, gates::Verdict verdict) {
  report::ScenarioReport r;
  r.result.scenario = "sc";
  r.run_id = run_id;
  r.exit_code = verdict == gates::Verdict::kFail ? 1 : 0;
  gating::EvaluatedGate gate;
  gate.gate_index = 0;
  gate.workload = "hello";
  gate.outcome.metric = "latency.p99";
  gate.outcome.verdict = verdict;
  r.gates.push_back(gate);
  return r;
}

TEST(MetricsObserverTest, FinishedRunHoldsGateVerdictsAndReplacesThePreviousRun) {
  MetricsObserver observer;
  auto s = make_scenario();
  observer.scenario_started(s);
  observer.scenario_finished(make_report(7, gates::Verdict::kPass), "abc");
  observer.scenario_started(s);
  observer.scenario_finished(make_report(8, gates::Verdict::kFail), "def");
  const std::string text = scrape(observer);
  const std::string gate =
      R"(gate="1",metric="latency.p99",scenario="sc",severity="critical",variant="default",)";
  EXPECT_TRUE(has_line(text, "benchgate_gate_passed{" + gate + R"(workload="hello"} 0)")) << text;
  EXPECT_TRUE(
      has_line(text, "benchgate_gate_verdict{" + gate + R"(verdict="fail",workload="hello"} 1)"))
      << text;
  EXPECT_TRUE(
      has_line(text, "benchgate_gate_verdict{" + gate + R"(verdict="pass",workload="hello"} 0)"))
      << text;
  EXPECT_TRUE(has_line(text, R"(benchgate_run_info{commit="def",run_id="8",scenario="sc"} 1)"))
      << text;
  EXPECT_EQ(text.find(R"(run_id="7")"), std::string::npos) << text;
  EXPECT_TRUE(has_line(text, R"(benchgate_runs_total{scenario="sc",status="ok"} 2)")) << text;
  EXPECT_TRUE(has_line(text, R"(benchgate_last_run_exit_code{scenario="sc"} 1)")) << text;
  EXPECT_TRUE(has_line(text, R"(benchgate_run_in_progress{scenario="sc"} 0)")) << text;
}

// A run stored without a commit (none given, no git work tree) says `-` in its label, as every
// table and report shows it (history::or_dash): it said `unknown` here alone before.
TEST(MetricsObserverTest, ARunWithoutACommitIsLabelledAsTheTablesShowIt) {
  MetricsObserver observer;
  auto s = make_scenario();
  observer.scenario_started(s);
  observer.scenario_finished(make_report(7, gates::Verdict::kPass), "");
  const std::string text = scrape(observer);
  EXPECT_TRUE(has_line(text, R"(benchgate_run_info{commit="-",run_id="7",scenario="sc"} 1)"))
      << text;
}

// `orchestrator run` learns a run's final exit code after it was judged (an interrupt after
// the run measured to its end, report files not written, a refused promotion): the run is
// counted once, then, with the status the store holds (ok: it completed), and the gauge says
// the final exit code, as runs.exit_code does. One definition of the status everywhere.
TEST(MetricsObserverTest, ARunIsCountedOnceWithItsStoredStatusAndTheGaugeSaysItsFinalExitCode) {
  MetricsObserver observer;
  auto s = make_scenario();
  observer.scenario_started(s);
  report::ScenarioReport r = make_report(7, gates::Verdict::kPass);
  r.status = "ok";
  observer.scenario_judged(r, "abc");
  EXPECT_TRUE(has_line(scrape(observer), R"(benchgate_runs_total{scenario="sc",status="ok"} 0)"));
  r.exit_code = 3;
  observer.run_final(r);
  const std::string text = scrape(observer);
  EXPECT_TRUE(has_line(text, R"(benchgate_last_run_exit_code{scenario="sc"} 3)")) << text;
  EXPECT_TRUE(has_line(text, R"(benchgate_runs_total{scenario="sc",status="ok"} 1)")) << text;
  EXPECT_TRUE(has_line(text, R"(benchgate_runs_total{scenario="sc",status="failed"} 0)")) << text;
  EXPECT_TRUE(has_line(text, R"(benchgate_runs_total{scenario="sc",status="aborted"} 0)")) << text;
}

// Each stored status is counted as itself.
TEST(MetricsObserverTest, EachStoredStatusIsCountedAsItself) {
  MetricsObserver observer;
  auto s = make_scenario();
  for (const char* status : {"failed", "aborted"}) {
    observer.scenario_started(s);
    report::ScenarioReport r = make_report(7, gates::Verdict::kPass);
    r.status = status;
    r.exit_code = 3;
    observer.scenario_finished(r, "abc");
  }
  const std::string text = scrape(observer);
  EXPECT_TRUE(has_line(text, R"(benchgate_runs_total{scenario="sc",status="failed"} 1)")) << text;
  EXPECT_TRUE(has_line(text, R"(benchgate_runs_total{scenario="sc",status="aborted"} 1)")) << text;
  EXPECT_TRUE(has_line(text, R"(benchgate_runs_total{scenario="sc",status="ok"} 0)")) << text;
}

// A run whose critical gate failed (exit code 1) ran: it counts as ok.
TEST(MetricsObserverTest, ARunWhoseGateFailedIsCountedAsOk) {
  MetricsObserver observer;
  auto s = make_scenario();
  observer.scenario_started(s);
  report::ScenarioReport r = make_report(7, gates::Verdict::kFail);
  r.exit_code = 1;
  observer.scenario_finished(r, "abc");
  const std::string text = scrape(observer);
  EXPECT_TRUE(has_line(text, R"(benchgate_runs_total{scenario="sc",status="ok"} 1)")) << text;
  EXPECT_TRUE(has_line(text, R"(benchgate_runs_total{scenario="sc",status="failed"} 0)")) << text;
}

store::SeriesChanges series(const std::string& metric, std::vector<std::optional<double>> changes) {
  store::SeriesChanges s;
  s.key = {"sc", 3, "hello", "default", "abc123", metric};
  s.points = 60;
  int64_t run = 10;
  for (const auto& change : changes) {
    store::StoredChangePoint c;
    c.run_id = run;
    c.change = change;
    s.changes.push_back(c);
    run += 10;
  }
  return s;
}

// benchgate_change_*: per series of the scenario, how many change points its stored history
// has and the latest one; the next run's values replace them, and a run that did not read
// them (changes_read false: it failed, or the store could not say) leaves them as they were.
TEST(MetricsObserverTest, ChangePointGaugesFollowTheStoredSeries) {
  MetricsObserver observer;
  auto s = make_scenario();
  observer.scenario_started(s);
  report::ScenarioReport r = make_report(7, gates::Verdict::kPass);
  r.changes_read = true;
  r.changes = {series("latency.p99", {0.5, -0.04}), series("throughput.rps", {}),
               series("latency.p50", {std::nullopt})};
  observer.scenario_finished(r, "abc");
  std::string text = scrape(observer);
  const std::string p99 =
      R"({metric="latency.p99",scenario="sc",testbed="3",variant="default",workload="hello"})";
  const std::string rps =
      R"({metric="throughput.rps",scenario="sc",testbed="3",variant="default",workload="hello"})";
  const std::string p50 =
      R"({metric="latency.p50",scenario="sc",testbed="3",variant="default",workload="hello"})";
  EXPECT_TRUE(has_line(text, "benchgate_change_points" + p99 + " 2")) << text;
  EXPECT_TRUE(has_line(text, "benchgate_change_latest_ratio" + p99 + " -0.04")) << text;
  EXPECT_TRUE(has_line(text, "benchgate_change_latest_run" + p99 + " 20")) << text;
  // No change point: a count of 0 and no latest change, never a change of 0.
  EXPECT_TRUE(has_line(text, "benchgate_change_points" + rps + " 0")) << text;
  EXPECT_EQ(text.find("benchgate_change_latest_ratio" + rps), std::string::npos) << text;
  EXPECT_EQ(text.find("benchgate_change_latest_run" + rps), std::string::npos) << text;
  // A change from a median of 0 has a run but no size.
  EXPECT_TRUE(has_line(text, "benchgate_change_latest_run" + p50 + " 10")) << text;
  EXPECT_EQ(text.find("benchgate_change_latest_ratio" + p50), std::string::npos) << text;

  report::ScenarioReport failed = make_report(8, gates::Verdict::kPass);
  observer.scenario_finished(failed, "def");
  EXPECT_TRUE(has_line(scrape(observer), "benchgate_change_points" + p99 + " 2"));

  report::ScenarioReport next = make_report(9, gates::Verdict::kPass);
  next.changes_read = true;
  next.changes = {series("latency.p99", {0.5})};
  observer.scenario_finished(next, "ghi");
  text = scrape(observer);
  EXPECT_TRUE(has_line(text, "benchgate_change_points" + p99 + " 1")) << text;
  EXPECT_TRUE(has_line(text, "benchgate_change_latest_ratio" + p99 + " 0.5")) << text;
  EXPECT_EQ(text.find("benchgate_change_points" + rps), std::string::npos) << text;
  EXPECT_EQ(text.find("benchgate_change_latest_run" + p50), std::string::npos) << text;
}

// Issue 13: one gate on two variants is two series, told apart by the variant; a relative
// gate says whether it was underpowered.
TEST(MetricsObserverTest, GateSeriesNameTheirVariantAndUnderpoweredRelativeGates) {
  MetricsObserver observer;
  auto s = make_scenario();
  observer.scenario_started(s);
  report::ScenarioReport r = make_report(9, gates::Verdict::kPass);
  r.gates[0].variant = "builtin";
  r.gates[0].baseline = "main";
  r.gates[0].outcome.underpowered = true;
  gating::EvaluatedGate other = r.gates[0];
  other.variant = "h2load";
  other.outcome.verdict = gates::Verdict::kNotConfigured;
  other.outcome.underpowered = false;
  r.gates.push_back(other);
  observer.scenario_finished(r, "abc");
  const std::string text = scrape(observer);
  const std::string gate = R"(gate="1",metric="latency.p99",scenario="sc",severity="critical",)";
  EXPECT_TRUE(
      has_line(text, "benchgate_gate_passed{" + gate + R"(variant="builtin",workload="hello"} 1)"))
      << text;
  EXPECT_TRUE(
      has_line(text, "benchgate_gate_passed{" + gate + R"(variant="h2load",workload="hello"} 0)"))
      << text;
  EXPECT_TRUE(
      has_line(text, "benchgate_gate_verdict{" + gate +
                         R"(variant="h2load",verdict="not_configured",workload="hello"} 1)"))
      << text;
  EXPECT_TRUE(has_line(
      text, "benchgate_gate_underpowered{" + gate + R"(variant="builtin",workload="hello"} 1)"))
      << text;
  EXPECT_TRUE(has_line(
      text, "benchgate_gate_underpowered{" + gate + R"(variant="h2load",workload="hello"} 0)"))
      << text;
}

}  // namespace
}  // namespace benchgate::metrics
