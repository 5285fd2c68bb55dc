// The reports: the gate table, JUnit XML, the Markdown summary and the terminal's workload
// table. What a CI summary needs reaches it (the flags), nothing is written that was not
// measured (JUnit times, a table without rows), the gate table stays aligned for long names,
// and a difference between the workers' and the router's counts is explained.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/units/units.h"
#include "orchestrator/engine/sessions_ended.h"
#include "orchestrator/gates/gate_evaluator.h"
#include "orchestrator/report/analysis.h"
#include "orchestrator/report/escape.h"
#include "orchestrator/report/gate_report.h"
#include "orchestrator/report/html_report.h"
#include "orchestrator/report/json_report.h"
#include "orchestrator/report/rate_text.h"
#include "orchestrator/report/result_line.h"
#include "orchestrator/report/run_outputs.h"
#include "orchestrator/report/summary_row.h"
#include "orchestrator/report/terminal_report.h"

namespace benchgate::report {
namespace {

results::WorkloadResult saturated_workload() {
  results::WorkloadResult w;
  w.spec.name = "hello";
  results::Repetition rep;
  rep.successes = rep.operations = 1000;
  rep.duration_ns = rep.data_window_ns = 1'000'000'000;
  rep.latency.record(50'000);
  rep.flags = {"worker_saturated"};
  w.repetitions.push_back(rep);
  w.latency.add(rep.latency);
  return w;
}

gating::EvaluatedGate gate(const std::string& workload, const std::string& metric) {
  gating::EvaluatedGate g;
  g.workload = workload;
  g.outcome.metric = metric;
  g.outcome.verdict = gates::Verdict::kPass;
  g.outcome.observed = 3;
  g.outcome.threshold = 10;
  g.outcome.explanation = "within the bound";
  return g;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(MarkdownSummary, AWorkloadsFlagsReachTheSummary) {
  ScenarioReport report;
  report.result.scenario = "s";
  report.run_id = 4;
  report.result.workloads.push_back(saturated_workload());
  const std::string md = markdown_summary({report});
  EXPECT_NE(md.find("| errors | flags | status |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 0 | worker_saturated | ok |"), std::string::npos) << md;
}

// Each open-loop repetition's uncorrected service time, late sends and unsent, as the terminal
// prints them under its row; "not measured" where it has no service-time histogram.
TEST(MarkdownSummary, AnOpenLoopWorkloadGivesEachRepetitionsDiagnostics) {
  ScenarioReport report;
  report.result.scenario = "s";
  report.run_id = 4;
  results::WorkloadResult w = saturated_workload();
  w.spec.name = "open";
  w.spec.rate = 1000;
  ASSERT_FALSE(w.repetitions.empty());
  w.repetitions.front().service_time.emplace();
  w.repetitions.front().service_time->record(50'000);
  w.repetitions.front().late_sends = 7;
  w.repetitions.front().unsent = 3;
  results::Repetition unmeasured = w.repetitions.front();
  unmeasured.index = 1;
  unmeasured.service_time.reset();
  w.repetitions.resize(1);
  w.repetitions.push_back(unmeasured);
  report.result.workloads.push_back(w);
  const std::string md = markdown_summary({report});
  EXPECT_NE(
      md.find("\n\nOpen loop, per repetition:\n\n- open rep 1: " +
              open_loop_text(w.repetitions[0]) + "\n- open rep 2: service time: not measured\n"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("late sends 7, unwritten at the window's end 3"), std::string::npos) << md;
  EXPECT_EQ(md.find("\n\n\n"), std::string::npos) << "two blank lines in a row:\n" << md;
  report.result.workloads.front().spec.rate = 0;  // closed loop: nothing of the kind
  EXPECT_EQ(markdown_summary({report}).find("Open loop"), std::string::npos);
}

TEST(MarkdownSummary, AReEvaluationWithoutFiguresWritesNoEmptyResultsTable) {
  ScenarioReport report;  // as `orchestrator gate 7` makes it: verdicts, no workload figures
  report.result.scenario = "s";
  report.run_id = 7;
  report.gates.push_back(gate("hello", "errors.count"));
  const std::string md = markdown_summary({report});
  EXPECT_EQ(md.find("| workload | ops/s"), std::string::npos) << md;
  EXPECT_NE(md.find("`orchestrator runs show 7`.\n\n| verdict |"), std::string::npos) << md;
  EXPECT_EQ(md.find("\n\n\n"), std::string::npos) << "two blank lines in a row:\n" << md;
  EXPECT_NE(md.find("| pass | critical | hello | default | errors.count |"), std::string::npos)
      << md;
}

TEST(JunitXml, TheRunHasItsDurationAndNoTestcaseClaimsZeroSeconds) {
  ScenarioReport report;
  report.result.scenario = "s";
  report.duration_ns = 2'500'000'000;
  report.result.workloads.push_back(saturated_workload());
  report.gates.push_back(gate("hello", "errors.count"));
  const std::string xml = junit_xml({report});
  EXPECT_NE(xml.find("name=\"run\" time=\"2.500\">"), std::string::npos) << xml;
  EXPECT_EQ(xml.find("time=\"0\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"hello errors.count (gate #1)\">"), std::string::npos) << xml;

  report.duration_ns = 0;  // a re-evaluation by `gate`: no duration to tell
  EXPECT_EQ(junit_xml({report}).find("time="), std::string::npos);
}

TEST(JunitXml, NamesAreEscapedAsInTheHtmlReport) {
  ScenarioReport report;
  report.result.scenario = "a<b> & \"c\" 'd'\x01";
  report.gates.push_back(gate("hello", "errors.count"));
  const std::string xml = junit_xml({report});
  EXPECT_NE(xml.find("name=\"a&lt;b&gt; &amp; &quot;c&quot; &#39;d&#39; \""), std::string::npos)
      << xml;
  EXPECT_EQ(xml.find("&apos;"), std::string::npos) << xml;
}

// What print_scenario_end writes to its error stream.
std::string scenario_end_errors(const ScenarioReport& report) {
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  print_scenario_end(report, out, err);
  std::string text(static_cast<size_t>(std::ftell(err)), '\0');
  std::rewind(err);
  text.resize(std::fread(text.data(), 1, text.size(), err));
  std::fclose(out);
  std::fclose(err);
  return text;
}

// A run whose end the store refused: its result's error and failed workload are not what the
// store holds, the reason is (runs.error, ScenarioReport::error). The JSON said the reason;
// JUnit, Markdown and the terminal's line said the result's error (JUnit with the workload's
// and "interrupted" joined on), a text no stored run holds.
TEST(RunError, EveryReportSaysTheReasonTheStoreHolds) {
  ScenarioReport report;
  report.result.scenario = "s";
  report.result.error = "router died";
  report.result.interrupted = true;
  results::WorkloadResult failed = saturated_workload();
  failed.status = results::WorkloadStatus::kFailed;
  failed.error = "killed by signal 9";
  report.result.workloads.push_back(failed);
  report.status = "aborted";
  report.exit_code = 3;
  report.error = "router died; cannot finish run: database is locked";
  const std::string& stored = report.error;

  const auto json = nlohmann::json::parse(json_report({report}, 3));
  EXPECT_EQ(json["scenarios"][0]["error"], stored) << json.dump(2);

  const std::string xml = junit_xml({report});
  EXPECT_NE(xml.find("name=\"run\"><failure type=\"error\" message=\"router died; cannot finish "
                     "run: database is locked\"/></testcase>"),
            std::string::npos)
      << xml;
  EXPECT_EQ(xml.find("interrupted"), std::string::npos) << xml;

  const std::string md = markdown_summary({report});
  EXPECT_NE(md.find("**Run error:** router died; cannot finish run: database is locked\n"),
            std::string::npos)
      << md;

  EXPECT_EQ(scenario_end_errors(report),
            "error: scenario s: router died; cannot finish run: database is locked\n");
}

// A run that measured to its end and exits 3 all the same (a critical gate that is an error, a
// refused promotion): its result has no error, the stored run has a reason, and every report
// gives it. Before, JUnit passed the run, and neither Markdown nor the terminal said why.
TEST(RunError, ARunThatCompletedAndExitsThreeSaysWhyInEveryReport) {
  ScenarioReport report;
  report.result.scenario = "s";
  report.result.workloads.push_back(saturated_workload());
  report.status = "ok";
  report.exit_code = 3;
  report.error = "cannot promote: baseline 'main' is locked";
  ASSERT_TRUE(report.result.ok());

  const std::string xml = junit_xml({report});
  EXPECT_NE(xml.find("name=\"run\"><failure type=\"error\" message=\"cannot promote: baseline "
                     "&#39;main&#39; is locked\"/>"),
            std::string::npos)
      << xml;
  EXPECT_NE(markdown_summary({report}).find("**Run error:** cannot promote: baseline 'main' is "
                                            "locked\n"),
            std::string::npos);
  EXPECT_EQ(scenario_end_errors(report),
            "error: scenario s: cannot promote: baseline 'main' is locked\n");

  // A run that exits 0 has no reason: no failure, no error line.
  report.exit_code = 0;
  report.error.clear();
  EXPECT_EQ(junit_xml({report}).find("<failure"), std::string::npos);
  EXPECT_EQ(markdown_summary({report}).find("Run error"), std::string::npos);
  EXPECT_EQ(scenario_end_errors(report), "");
}

// --strict fails a run whose verdicts read "no_baseline" and "pass, underpowered": every
// report that carries the run's result names those gates, so that exit code 1 has a reason.
TEST(StrictReports, NameTheGatesStrictTurnedIntoAFailure) {
  ScenarioReport report;
  report.result.scenario = "s";
  report.gates = {gate("hello", "throughput.rps"), gate("hello", "latency.p99"),
                  gate("hello", "errors.count"), gate("hello", "latency.p50")};
  report.gates[0].outcome.verdict = gates::Verdict::kNoBaseline;
  report.gates[1].outcome.underpowered = true;
  report.gates[3].outcome.verdict = gates::Verdict::kNoBaseline;
  report.gates[3].outcome.severity = scenario::GateSeverity::kWarning;
  for (size_t i = 0; i < report.gates.size(); ++i) report.gates[i].gate_index = static_cast<int>(i);

  EXPECT_EQ(strict_failures_line(report.gates, false), "");
  const std::string line = strict_failures_line(report.gates, true);
  EXPECT_EQ(line.rfind("strict: --strict fails the run for 2 critical gates", 0), 0u) << line;
  EXPECT_NE(line.find("hello throughput.rps (gate #1) [no_baseline]"), std::string::npos) << line;
  EXPECT_NE(line.find("hello latency.p99 (gate #2) [pass, underpowered]"), std::string::npos)
      << line;
  EXPECT_EQ(line.find("errors.count"), std::string::npos) << line;
  EXPECT_EQ(line.find("latency.p50"), std::string::npos) << "a warning never fails:\n" << line;

  EXPECT_EQ(junit_xml({report}).find("type=\"strict\""), std::string::npos);
  report.strict = true;
  const std::string xml = junit_xml({report});
  EXPECT_NE(xml.find("failures=\"2\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure type=\"strict\" message=\"no_baseline fails the run with "
                     "--strict: within the bound\"/>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<failure type=\"strict\" message=\"pass, underpowered fails the run"),
            std::string::npos)
      << xml;
  EXPECT_NE(markdown_summary({report}).find("strict: --strict fails the run for 2"),
            std::string::npos);
  const auto json = nlohmann::json::parse(json_report({report}, 1));
  const auto& scenario = json["scenarios"][0];
  EXPECT_EQ(scenario["strict"], true);
  std::vector<bool> strict_failures;
  for (const auto& g : scenario["gates"]) strict_failures.push_back(g["strict_failure"]);
  EXPECT_EQ(strict_failures, (std::vector<bool>{true, true, false, false}));
}

// A latency reads the same in the Markdown summary as in the terminal's table: both write it
// with latency_text ("7.05ms", never a text of the Markdown's own).
TEST(MarkdownSummary, ALatencyReadsAsTheTerminalTableWritesIt) {
  ScenarioReport report;
  report.result.scenario = "s";
  report.run_id = 4;
  results::WorkloadResult w = saturated_workload();
  w.repetitions.front().latency.record(7'049'200);
  w.latency.record(7'049'200);
  report.result.workloads.push_back(w);
  const std::string p50 = latency_text(w.latency_at(50));
  const std::string p99 = latency_text(w.latency_at(99));
  const std::string p999 = latency_text(w.latency_at(99.9));
  EXPECT_EQ(p99, "7.05ms");
  const std::string md = markdown_summary({report});
  EXPECT_NE(md.find(fmt::format("| {} | {} | {} |", p50, p99, p999)), std::string::npos) << md;
  const std::string table = workload_table(w);
  EXPECT_NE(table.find(" " + p99 + " "), std::string::npos) << table;
  // Not measured: "-" in both.
  results::WorkloadResult tool = saturated_workload();
  tool.repetitions.front().latency = HdrHistogram();
  tool.latency = HdrHistogram();
  report.result.workloads = {tool};
  EXPECT_EQ(latency_text(tool.latency_at(50)), "-");
  EXPECT_NE(markdown_summary({report}).find("| - | - | - |"), std::string::npos)
      << markdown_summary({report});
}

// One definition per figure: a gate's explanation and its observed column write the workload's
// p99 and ops/s as the result tables above them do ("1ms" and "1000", not "1.00ms" and "1.00k").
TEST(MarkdownSummary, AGatesExplanationWritesItsFigureAsTheTablesDo) {
  ScenarioReport report;
  report.result.scenario = "s";
  report.run_id = 4;
  results::WorkloadResult w = saturated_workload();
  w.repetitions.front().latency.record(1'000'000);
  w.latency.record(1'000'000);
  report.result.workloads.push_back(w);
  const std::string p99 = latency_text(w.latency_at(99));
  const std::string ops = rate_text(w.ops_per_second().median);
  ASSERT_EQ(p99, "1ms");
  ASSERT_EQ(ops, "1000");
  scenario::Gate latency_gate;
  latency_gate.workload = "hello";
  latency_gate.metric = "latency.p99";
  latency_gate.max = 0.002;
  scenario::Gate rps_gate;
  rps_gate.workload = "hello";
  rps_gate.metric = "throughput.rps";
  rps_gate.min = 500;
  for (const auto& [gate, figure] :
       {std::pair{latency_gate, static_cast<double>(*w.latency_at(99)) / 1e9},
        std::pair{rps_gate, w.ops_per_second().median}}) {
    gating::EvaluatedGate g;
    g.workload = "hello";
    g.outcome = gates::evaluate_gate(gate, gates::RunValues{figure, {figure}}, {});
    report.gates.push_back(g);
  }
  ASSERT_EQ(report.gates[0].outcome.explanation, "1ms (1 repetition merged) within max 2ms");
  ASSERT_EQ(report.gates[1].outcome.explanation,
            "1000 ops/s (median of 1 repetition) within min 500 ops/s");
  const std::string md = markdown_summary({report});
  EXPECT_NE(md.find("| hello | 1000 | 50us | 1ms |"), std::string::npos) << md;
  EXPECT_NE(md.find("| latency.p99 | 1ms | 2ms | 1ms (1 repetition merged)"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| throughput.rps | 1000 ops/s | 500 ops/s | 1000 ops/s (median"),
            std::string::npos)
      << md;
  const std::string table = workload_table(w);
  EXPECT_NE(table.find(" " + p99 + " "), std::string::npos) << table;
  EXPECT_NE(table.find(" " + ops + " "), std::string::npos) << table;
}

// A handshakes.rate gate's figures are handshakes per second, not operations, in the gate table
// and the Markdown summary as in every report (gates::format_metric_value).
TEST(GatesTable, AHandshakesRateGateSaysHandshakesPerSecond) {
  gating::EvaluatedGate handshakes = gate("hello", "handshakes.rate");
  handshakes.outcome.observed = 1234;
  handshakes.outcome.threshold = 1000;
  gating::EvaluatedGate rps = gate("hello", "throughput.rps");
  rps.outcome.observed = 1234;
  const std::string table = gates_table({handshakes, rps});
  const auto lines = lines_of(table);
  ASSERT_EQ(lines.size(), 4u) << table;
  EXPECT_NE(lines[2].find("1234 handshakes/s"), std::string::npos) << table;
  EXPECT_NE(lines[2].find("1000 handshakes/s"), std::string::npos) << table;
  EXPECT_EQ(lines[2].find("ops/s"), std::string::npos) << table;
  EXPECT_NE(lines[3].find("1234 ops/s"), std::string::npos) << table;
  ScenarioReport report;
  report.result.scenario = "s";
  report.run_id = 4;
  report.gates = {handshakes};
  const std::string md = markdown_summary({report});
  EXPECT_NE(md.find("| handshakes.rate | 1234 handshakes/s | 1000 handshakes/s |"),
            std::string::npos)
      << md;
}

TEST(GatesTable, LongNamesKeepEveryColumnAligned) {
  const std::string table = gates_table({gate("wamp_rpc_large@request_bytes=65536", "errors.count"),
                                         gate("hello", "router.cpu_per_request_long_name"),
                                         gate("hello", "errors.count")});
  const auto lines = lines_of(table);
  ASSERT_EQ(lines.size(), 5u) << table;  // "gates:", the header, three gates
  // The explanation column starts at one position on every line.
  const size_t column = lines[1].find("explanation");
  ASSERT_NE(column, std::string::npos);
  for (size_t i = 2; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i].find("within the bound"), column) << table;
  }
}

TEST(WorkloadTable, ADifferenceOfWorkerAndRouterCountsSaysWhy) {
  results::WorkloadResult w = saturated_workload();
  w.spec.connections = 50;
  w.spec.in_flight = 1;
  w.repetitions.push_back(w.repetitions.front());
  for (auto& rep : w.repetitions) {
    rep.flags.clear();
    rep.router.collected = true;
    rep.router.requests = 1015;  // 15 more than the workers completed, in each window
  }
  std::string table = workload_table(w);
  EXPECT_NE(table.find("requests: 2000 sent by workers, 2030 counted by the router (30 apart "
                       "over 2 windows, within the 50 in flight at each window's edges"),
            std::string::npos)
      << table;

  w.repetitions[1].router.requests = 1200;
  w.repetitions[1].flags = {"router_count_mismatch"};
  table = workload_table(w);
  EXPECT_NE(table.find("2215 counted by the router (215 apart: router_count_mismatch in 1 of 2 "
                       "windows, more than the 50 in flight)"),
            std::string::npos)
      << table;

  w.repetitions[1].router.requests = 1000;
  w.repetitions[0].router.requests = 1000;
  w.repetitions[1].flags.clear();
  EXPECT_NE(workload_table(w).find("2000 counted by the router\n"), std::string::npos);
}

// Open loop, `unsent` is what was due in the window and still unwritten at its end
// (docs/MEASUREMENT.md): sent in the drain, or cut off by its deadline as not_sent, so the
// line does not call all of it sent.
TEST(WorkloadTable, AnOpenLoopRowSaysWhatWasUnwrittenAtTheWindowsEnd) {
  results::WorkloadResult w = saturated_workload();
  w.spec.rate = 1000;
  auto& rep = w.repetitions.front();
  rep.service_time.emplace();
  rep.service_time->record(40'000);
  rep.late_sends = 12;
  rep.unsent = 30;
  rep.errors["not_sent"] = 4;
  const std::string table = workload_table(w);
  EXPECT_NE(table.find("late sends 12, unwritten at the window's end 30 (sent in the drain, or "
                       "not_sent)\n"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("sent in the drain 30"), std::string::npos) << table;
  EXPECT_NE(table.find("errors by kind: not_sent=4"), std::string::npos) << table;
}

TEST(WorkloadTable, AnOpenLoopRateUnderOnePerSecondIsNotShownAsZero) {
  results::WorkloadResult w = saturated_workload();
  w.spec.rate = 0.001;
  EXPECT_NE(workload_table(w).find(" at 0.001 req/s\n"), std::string::npos) << workload_table(w);
  w.spec.rate = 2.5;
  EXPECT_NE(workload_table(w).find(" at 2.5 req/s\n"), std::string::npos) << workload_table(w);
  w.spec.rate = 50000;
  EXPECT_NE(workload_table(w).find(" at 50000 req/s\n"), std::string::npos) << workload_table(w);
}

// Under each open-loop repetition's row its diagnostics, "service time: not measured" for one
// without a service-time histogram, as the HTML report and the Markdown summary give them; a
// closed-loop repetition has no such line.
TEST(WorkloadTable, EveryOpenLoopRepetitionGetsItsDiagnosticsLine) {
  results::WorkloadResult w = saturated_workload();
  w.spec.rate = 1000;
  ASSERT_FALSE(w.repetitions.front().service_time);
  const std::string table = workload_table(w);
  EXPECT_NE(table.find("\n             service time: not measured\n"), std::string::npos) << table;
  w.repetitions.front().service_time.emplace();
  w.repetitions.front().service_time->record(50'000);
  EXPECT_NE(workload_table(w).find(open_loop_text(w.repetitions.front()) + "\n"), std::string::npos)
      << workload_table(w);
  w.spec.rate = 0;
  EXPECT_EQ(workload_table(w).find("service time"), std::string::npos) << workload_table(w);
}

// A row without flags (the median row never has router/op) ends at its last figure.
TEST(WorkloadTable, NoLineEndsInSpaces) {
  results::WorkloadResult w = saturated_workload();
  for (auto& rep : w.repetitions) rep.flags.clear();
  const std::string table = workload_table(w);
  EXPECT_EQ(table.find(" \n"), std::string::npos) << table;
}

// A shared registration's split over the callee sessions, and its error kinds of their own.
TEST(WorkloadTable, CalleeSessionsGetALineWithTheirSplit) {
  results::WorkloadResult w = saturated_workload();
  w.spec.protocol = scenario::Protocol::kWampRpc;
  w.spec.wamp.callee = "worker";
  w.spec.wamp.invoke = "roundrobin";
  w.repetitions.front().callee_invocations = {334, 333, 333};
  results::Repetition second = w.repetitions.front();
  second.callee_invocations = {300, 301, 300};
  second.errors["call_timeout"] = 2;
  w.repetitions.push_back(second);
  const std::string table = workload_table(w);
  EXPECT_NE(table.find("  callees: 3 session(s) (invoke roundrobin), 1901 invocations; per "
                       "session, by repetition: 333-334, 300-301\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("call_timeout=2"), std::string::npos) << table;
  EXPECT_EQ(workload_table(saturated_workload()).find("callees:"), std::string::npos);
}

// The sessions the router ended mid-window (its ABORT or GOODBYE; worker.proto
// WindowResult.sessions_ended) say why in the terminal's table and the JSON report, worker by
// worker. Before, only their protocol errors reached either.
TEST(WorkloadTable, SessionsTheRouterEndedSayWhyInTheTableAndTheJson) {
  results::WorkloadResult w = saturated_workload();
  w.spec.protocol = scenario::Protocol::kWampRpc;
  w.repetitions.front().errors["protocol"] = 3;
  w.repetitions.front().sessions_ended = {{0, "ABORT wamp.close.system_shutdown: going down\\n", 2},
                                          {1, "", 1}};
  const std::string table = workload_table(w);
  EXPECT_NE(table.find("  sessions the router ended during the window (counted as protocol errors: "
                       "one per operation outstanding, one where none was):\n"
                       "    rep 1 worker 0: 2 sessions ABORT wamp.close.system_shutdown: going "
                       "down\\n\n"
                       "    rep 1 worker 1: 1 session for other reasons\n"),
            std::string::npos)
      << table;
  EXPECT_EQ(workload_table(saturated_workload()).find("sessions the router ended"),
            std::string::npos);

  ScenarioReport report;
  report.result.scenario = "s";
  report.result.workloads.push_back(w);
  const auto json = nlohmann::json::parse(json_report({report}, 0));
  EXPECT_EQ(json["scenarios"][0]["workloads"][0]["repetitions"][0]["sessions_ended"],
            nlohmann::json::parse(R"([
              {"worker": 0, "reason": "ABORT wamp.close.system_shutdown: going down\\n",
               "sessions": 2},
              {"worker": 1, "reason": "", "sessions": 1}])"));
}

// A worker's reasons are escaped and bounded as the orchestrator keeps them, whatever the worker
// sent (orchestrator/engine/sessions_ended.h): each under its worker's index in the pool, a
// control character escaped, an over-long reason cut, and past 8 reasons the rest counted
// under the empty one.
TEST(SessionsEnded, AWorkersReasonsAreEscapedCutAndBounded) {
  std::vector<v1::WindowResult> parts(2);
  auto add = [](v1::WindowResult& part, const std::string& reason, uint64_t sessions) {
    v1::SessionEnd* end = part.add_sessions_ended();
    end->set_reason(reason);
    end->set_sessions(sessions);
  };
  add(parts[0], "GOODBYE \x1b[31mred\n", 1);
  add(parts[0], std::string(engine::kShownReasonBytes + 10, 'x'), 1);
  for (int i = 0; i < 10; ++i) add(parts[1], "ABORT " + std::to_string(i), 2);
  const auto ends = engine::merge_sessions_ended(parts, {3, 5});
  ASSERT_EQ(ends.size(), 2u + engine::kMaxReasonsPerWorker);
  EXPECT_EQ(ends[0].worker, 3u);
  EXPECT_EQ(ends[0].reason, "GOODBYE \\x1b[31mred\\n");
  EXPECT_EQ(ends[1].reason, std::string(engine::kShownReasonBytes, 'x') + "...");
  EXPECT_EQ(ends[2].worker, 5u);
  EXPECT_EQ(ends[2].reason, "ABORT 0");
  EXPECT_EQ(ends[9].reason, "ABORT 7");
  EXPECT_EQ(ends[10].reason, "");
  EXPECT_EQ(ends[10].sessions, 2u * 2u);
}

// A worker's counts are not trusted either: the sessions of one reason, or of the reasons past
// its 8th, add up saturating, so that two counts near 2^64 read as the most there can be, not
// as the few their sum wraps to (before: 2^64 - 1 and 2 sessions read as 1).
TEST(SessionsEnded, AWorkersCountsAddUpWithoutWrapping) {
  constexpr uint64_t kMost = std::numeric_limits<uint64_t>::max();
  std::vector<v1::WindowResult> parts(1);
  auto add = [&parts](const std::string& reason, uint64_t sessions) {
    v1::SessionEnd* end = parts[0].add_sessions_ended();
    end->set_reason(reason);
    end->set_sessions(sessions);
  };
  add("ABORT a", kMost);
  add("ABORT a", 2);
  for (int i = 0; i < 9; ++i) add("GOODBYE " + std::to_string(i), kMost);
  const auto ends = engine::merge_sessions_ended(parts, {});
  ASSERT_EQ(ends.size(), engine::kMaxReasonsPerWorker);
  EXPECT_EQ(ends[0].reason, "ABORT a");
  EXPECT_EQ(ends[0].sessions, kMost);
  EXPECT_EQ(ends.back().reason, "");
  EXPECT_EQ(ends.back().sessions, kMost);
}

// TLS, HTTP/2 streams, connection setup and handshakes/s: a line each for what was measured.
TEST(WorkloadTable, TlsStreamsSetupAndHandshakesHaveLinesOfTheirOwn) {
  results::WorkloadResult w = saturated_workload();
  w.spec.protocol = scenario::Protocol::kHttp2;
  w.spec.tls.enabled = true;
  w.spec.new_connection_per_request = true;
  auto& rep = w.repetitions.front();
  rep.duration_ns = 2'000'000'000;
  rep.tls = results::NegotiatedTls{"TLSv1.3", "TLS_AES_128_GCM_SHA256", "h2"};
  rep.requested_streams = 1;
  rep.effective_streams = 1;
  rep.setup.emplace();
  rep.setup->connections = 1001;
  rep.setup->handshakes = 1001;
  rep.setup->resumed = 1000;
  rep.setup->connect.record(50'000);
  rep.setup->tls_handshake.record(400'000);
  rep.window_connections = 1000;
  const std::string table = workload_table(w);
  EXPECT_NE(table.find("  tls: TLSv1.3 TLS_AES_128_GCM_SHA256, alpn h2 (as the server chose)\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("  streams: 1 per connection asked, 1 effective"), std::string::npos)
      << table;
  EXPECT_NE(table.find("  connections: 1001 set up; connect p50 "), std::string::npos) << table;
  EXPECT_NE(table.find("; TLS handshake p50 "), std::string::npos) << table;
  EXPECT_EQ(table.find("first byte"), std::string::npos) << table;  // none recorded
  EXPECT_NE(table.find("  handshakes: 500/s (median; min-max 500-500), a new connection per "
                       "request; 1000 of 1001 TLS handshakes resumed\n"),
            std::string::npos)
      << table;

  // Cleartext HTTP/1.1 that keeps its connections: no TLS, streams or handshake lines.
  results::WorkloadResult plain = saturated_workload();
  const std::string plain_table = workload_table(plain);
  EXPECT_EQ(plain_table.find("tls:"), std::string::npos) << plain_table;
  EXPECT_EQ(plain_table.find("streams:"), std::string::npos) << plain_table;
  EXPECT_EQ(plain_table.find("handshakes:"), std::string::npos) << plain_table;
}

// `resumed` is a count, 0 included, where the workload reconnects per operation over TLS
// (new_connection_per_request, wamp_transfer, wamp_rpc with session_per_operation), and "-"
// (RESULT), null (JSON), no line (terminal) where it keeps its connections: their handshakes
// happen at the start only, and a 0 there says nothing about resumption.
TEST(ResultLine, ResumedIsACountOnlyWhereTheWorkloadReconnectsOverTls) {
  auto with_tls = [](results::WorkloadResult w, uint64_t handshakes, uint64_t resumed) {
    w.spec.tls.enabled = true;
    auto& rep = w.repetitions.front();
    rep.tls = results::NegotiatedTls{"TLSv1.3", "TLS_AES_128_GCM_SHA256", "http/1.1"};
    rep.setup.emplace();
    rep.setup->connections = handshakes;
    rep.setup->handshakes = handshakes;
    rep.setup->resumed = resumed;
    rep.setup->tls_handshake.record(400'000);
    return w;
  };
  const auto resumed_field = [](const results::WorkloadResult& w) {
    const std::string line = result_line("s", w, "-");
    const size_t at = line.find("|resumed=");
    return line.substr(at + 9, line.find('|', at + 1) - at - 9);
  };

  // HTTP/1.1 over TLS that keeps its 2 connections: 2 handshakes, none resumed, not asked.
  const results::WorkloadResult kept = with_tls(saturated_workload(), 2, 0);
  EXPECT_EQ(resumed_field(kept), "-");
  EXPECT_TRUE(workload_json(kept)["repetitions"][0]["connection_setup"]["resumed"].is_null());
  EXPECT_EQ(workload_json(kept)["repetitions"][0]["connection_setup"]["handshakes"], 2);
  EXPECT_EQ(workload_table(kept).find("resumed"), std::string::npos) << workload_table(kept);

  // A new connection per request without tls_resumption: 0 of 500 is a count.
  results::WorkloadResult per_request = with_tls(saturated_workload(), 500, 0);
  per_request.spec.new_connection_per_request = true;
  EXPECT_EQ(resumed_field(per_request), "0");
  EXPECT_EQ(workload_json(per_request)["repetitions"][0]["connection_setup"]["resumed"], 0);

  // wamp_transfer and wamp_rpc with a session per call, over TLS: 12 of 14 resumed (a WAMP
  // workload counts its handshakes, its connections are timed only as whole sessions).
  results::WorkloadResult transfer = with_tls(saturated_workload(), 14, 12);
  transfer.spec.protocol = scenario::Protocol::kWampTransfer;
  transfer.repetitions.front().setup->connections = 0;
  EXPECT_EQ(resumed_field(transfer), "12");
  EXPECT_EQ(workload_json(transfer)["repetitions"][0]["connection_setup"]["resumed"], 12);
  EXPECT_NE(workload_table(transfer).find("  resumed: 12 of 14 TLS handshakes\n"),
            std::string::npos)
      << workload_table(transfer);
  results::WorkloadResult rpc = with_tls(saturated_workload(), 14, 0);
  rpc.spec.protocol = scenario::Protocol::kWampRpc;
  rpc.repetitions.front().setup->connections = 0;
  EXPECT_EQ(resumed_field(rpc), "-");  // sessions kept
  rpc.spec.wamp.session_per_operation = true;
  EXPECT_EQ(resumed_field(rpc), "0");
  EXPECT_NE(workload_table(rpc).find("  resumed: 0 of 14 TLS handshakes\n"), std::string::npos)
      << workload_table(rpc);

  // Cleartext: no handshake, nothing to count.
  results::WorkloadResult cleartext = saturated_workload();
  cleartext.spec.new_connection_per_request = true;
  EXPECT_EQ(resumed_field(cleartext), "-");
}

// A WAMP workload's session line writes its latencies as the HTTP connection line beside it
// does ("7.05ms", not "7049.2 us").
TEST(WorkloadTable, TheWampSessionLineWritesLatenciesAsTheConnectionLineDoes) {
  results::WorkloadResult w = saturated_workload();
  w.spec.protocol = scenario::Protocol::kWampRpc;
  auto& rep = w.repetitions.front();
  rep.session_setup.emplace();
  rep.session_setup->record(7'049'200);
  rep.session_setup->record(7'049'200);
  rep.session_setup->record(90'000);
  const HdrHistogram& sessions = *rep.session_setup;
  const std::string p50 = latency_text(sessions.value_at_percentile(50));
  const std::string p99 = latency_text(sessions.value_at_percentile(99));
  EXPECT_EQ(p50, "7.05ms");
  EXPECT_EQ(p99, "7.05ms");
  const std::string table = workload_table(w);
  EXPECT_NE(
      table.find("  sessions: 3 set up; connect to WELCOME p50 " + p50 + " p99 " + p99 + "\n"),
      std::string::npos)
      << table;
  EXPECT_EQ(table.find(" us"), std::string::npos) << table;
}

// Several workers: a row per worker and repetition with its host and clock; a worker that did
// not take part in the clock exchange shows '-' for its offset and RTT, never 0.
TEST(WorkloadTable, SeveralWorkersGetOneRowEachWithTheirClock) {
  results::WorkloadResult w = saturated_workload();
  w.load_from = "10.0.0.2,local";
  auto& rep = w.repetitions.front();
  results::WorkerShare remote;
  remote.operations = remote.successes = 600;
  remote.ops_per_second = 600;
  remote.host = "10.0.0.2:7000";
  remote.p50_ns = 40'000;
  remote.clock_offset_ns = 1'000'000'123'000;
  remote.rtt_ns = 85'000;
  remote.start_skew_ns = 120'000;
  results::WorkerShare third_party;
  third_party.worker = 1;
  third_party.operations = third_party.successes = 400;
  third_party.ops_per_second = 400;
  third_party.host = "local";
  third_party.start_skew_ns = -30'000;
  third_party.clock_offset_ns = -8'000;
  rep.workers = {remote, third_party};
  rep.start_spread_ns = 150'000;
  const auto lines = lines_of(workload_table(w));
  auto row = [&](const std::string& prefix) {
    const auto found = std::find_if(lines.begin(), lines.end(),
                                    [&](const std::string& l) { return l.starts_with(prefix); });
    return found == lines.end() ? std::string() : *found;
  };
  EXPECT_EQ(row("  load from: "), "  load from: 10.0.0.2,local");
  const std::string first = row("    rep 1        0 ");
  EXPECT_NE(first.find("10.0.0.2:7000"), std::string::npos) << first;
  // The offset is signed and in the unit of the latencies beside it, as the HTML report gives
  // it (signed_latency_text), not seconds to six decimals ("+1000.000123s", "-0.000008s").
  EXPECT_NE(first.find(" +" + format_duration_ns(1'000'000'123'000) + " "), std::string::npos)
      << first;
  EXPECT_EQ(first.find("1000.000123"), std::string::npos) << first;
  EXPECT_NE(first.find("85us"), std::string::npos) << first;
  EXPECT_NE(first.find("+120us"), std::string::npos) << first;
  const std::string second = row("    rep 1        1 ");
  EXPECT_NE(second.find("local"), std::string::npos) << second;
  EXPECT_NE(second.find("-30us"), std::string::npos) << second;
  EXPECT_NE(second.find(" -" + format_duration_ns(8'000) + " "), std::string::npos) << second;
  EXPECT_EQ(second.find("0.000008s"), std::string::npos) << second;
  EXPECT_EQ(signed_latency_text(-8'000), "-" + format_duration_ns(8'000));
  EXPECT_EQ(signed_latency_text(120'000), "+" + format_duration_ns(120'000));
  EXPECT_EQ(signed_latency_text(std::nullopt), "-");
  EXPECT_EQ(row("    rep 1   start spread "), "    rep 1   start spread 150us (bound 1ms)");

  // One worker: no per-worker table.
  rep.workers.pop_back();
  EXPECT_EQ(workload_table(w).find("per worker"), std::string::npos);
}

// A workload that measured nothing has no error count: "-" in the Markdown summary, as the
// RESULT line's errors=- (never 0, which reads as measured and clean).
TEST(MarkdownSummary, AWorkloadThatMeasuredNothingHasNoErrorCount) {
  ScenarioReport report;
  report.result.scenario = "s";
  results::WorkloadResult rpc;
  rpc.spec.name = "rpc";
  rpc.status = results::WorkloadStatus::kFailed;
  rpc.error = "workers did not start";
  report.result.workloads = {rpc, saturated_workload()};
  report.result.workloads[1].repetitions.front().errors["timeout"] = 3;
  const std::string md = markdown_summary({report});
  EXPECT_NE(md.find("| rpc | not measured | - | - | - | - | - | failed: workers did not start |"),
            std::string::npos)
      << md;
  EXPECT_NE(result_line("s", rpc, "-").find("|errors=-|"), std::string::npos);
  // A measured workload keeps its count, as its RESULT line does.
  const auto& hello = report.result.workloads[1];
  EXPECT_NE(result_line("s", hello, "-").find("|errors=3|"), std::string::npos);
  EXPECT_NE(md.find("| 3 | worker_saturated | ok |"), std::string::npos) << md;
}

// A gate's explanation over several lines (the stderr tail of a process that died) keeps the
// terminal table readable: its first line in the row, the others under the explanation column,
// no line starting at column 0; the next gate's row is a row of its own.
TEST(GatesTable, AMultiLineExplanationGoesOnUnderItsColumn) {
  gating::EvaluatedGate dead = gate("hello", "errors.count");
  dead.outcome.verdict = gates::Verdict::kError;
  dead.outcome.explanation =
      "the router stopped; its stderr ends with:\nfatal: out of memory\r\nabort\n";
  const std::string table = gates_table({dead, gate("hello", "latency.p99")});
  const auto lines = lines_of(table);
  ASSERT_EQ(lines.size(), 6u) << table;  // "gates:", the header, 1 + 2 lines, a gate
  const size_t column = lines[1].find("explanation");
  ASSERT_NE(column, std::string::npos);
  EXPECT_EQ(lines[2].find("the router stopped; its stderr ends with:"), column) << table;
  EXPECT_EQ(lines[3], std::string(column, ' ') + "fatal: out of memory") << table;
  EXPECT_EQ(lines[4], std::string(column, ' ') + "abort") << table;
  EXPECT_EQ(lines[5].rfind("  pass ", 0), 0u) << table;
  EXPECT_EQ(table.find('\r'), std::string::npos) << table;
}

// One rule for a multi-line explanation's lines: the terminal's gate table shows the lines the
// Markdown cell separates with "<br>" (and `runs show` with its indent), an explanation that
// starts with a line break or holds an empty line included: no line joined to the next, and an
// empty one empty, not a line of spaces.
TEST(GatesTable, AMultiLineExplanationHasTheLinesOfItsMarkdownCell) {
  for (const std::string text : {"its stderr ends with:\n\nfatal | oom\r\nabort\n",
                                 "\nafter a leading break", "one\r\rthree", "\n\n", "plain"}) {
    gating::EvaluatedGate g = gate("hello", "errors.count");
    g.outcome.explanation = text;
    const auto lines = lines_of(gates_table({g}));
    ASSERT_GE(lines.size(), 3u) << text;
    const size_t column = lines[1].find("explanation");
    ASSERT_NE(column, std::string::npos);
    std::vector<std::string> table_lines = {lines[2].size() > column ? lines[2].substr(column)
                                                                     : std::string()};
    for (size_t i = 3; i < lines.size(); ++i) {
      EXPECT_TRUE(lines[i].empty() || lines[i].find_first_not_of(' ') == column) << lines[i];
      EXPECT_NE(lines[i].back(), ' ') << text;
      table_lines.push_back(lines[i].empty() ? std::string() : lines[i].substr(column));
    }
    std::vector<std::string> cell_lines;
    std::string cell = markdown_cell(text);
    for (size_t at; (at = cell.find("<br>")) != std::string::npos; cell.erase(0, at + 4)) {
      cell_lines.push_back(cell.substr(0, at));
    }
    cell_lines.push_back(cell);
    for (std::string& line : cell_lines) {
      for (size_t at; (at = line.find("\\|")) != std::string::npos;) line.replace(at, 2, "|");
    }
    EXPECT_EQ(table_lines, cell_lines) << text;
  }
}

// In Markdown a line break ends a table row: each break inside a cell is "<br>", which GitHub
// and GitLab draw as a break within the cell, and the row stays one line.
TEST(MarkdownSummary, AMultiLineExplanationStaysInItsRow) {
  ScenarioReport report;
  report.result.scenario = "s";
  report.run_id = 3;
  report.gates = {gate("hello", "errors.count")};
  report.gates[0].outcome.explanation = "its stderr ends with:\nfatal | oom\r\nabort\n";
  const std::string md = markdown_summary({report});
  EXPECT_EQ(md.find('\r'), std::string::npos) << md;
  EXPECT_NE(md.find("| its stderr ends with:<br>fatal \\| oom<br>abort |\n"), std::string::npos)
      << md;
  EXPECT_EQ(markdown_cell("a\rb\n"), "a<br>b");
}

results::WorkloadResult measured(const std::string& name, const std::string& variant,
                                 std::vector<uint64_t> successes, int64_t latency_ns = 50'000) {
  results::WorkloadResult w;
  w.spec.name = name;
  w.variant = variant;
  for (uint64_t n : successes) {
    results::Repetition rep;
    rep.index = static_cast<uint32_t>(w.repetitions.size());
    rep.successes = rep.operations = n;
    rep.duration_ns = rep.data_window_ns = 1'000'000'000;
    rep.latency.record(latency_ns);
    w.latency.add(rep.latency);
    w.repetitions.push_back(rep);
  }
  return w;
}

// The Markdown summary of a [compare] run has the throughput ratios, with the figures and the
// formatting of the terminal's `compare` line (analysis.h), and a sweep its model.
TEST(MarkdownSummary, AComparisonHasItsRatiosAndASweepItsModelAsTheTerminalWritesThem) {
  ScenarioReport report;
  report.result.scenario = "s";
  report.result.variants = {"main", "cand"};
  report.result.workloads = {measured("hello", "main", {1000, 1000, 1000, 1000}),
                             measured("hello", "cand", {1500, 2000, 2500, 2000})};
  const std::string terminal = analysis_text(report.result);
  EXPECT_NE(terminal.find("compare hello: cand / main throughput ratio 2.000 (pairs 1.500-2.500"),
            std::string::npos)
      << terminal;
  const auto c = comparisons(report.result);
  ASSERT_EQ(c.size(), 1u);
  const ComparisonText t = comparison_text(c[0]);
  const std::string md = markdown_summary({report});
  EXPECT_NE(md.find(fmt::format("| hello | cand / main | 2.000 | {} | 1.500-2.500 | 2000 | 1000 | "
                                "ok |",
                                t.interval)),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| hello [cand] | 2000 (1500-2500) |"), std::string::npos) << md;
  EXPECT_EQ(md.find("Sweeps"), std::string::npos) << md;

  ScenarioReport sweep;
  sweep.result.scenario = "s";
  for (uint64_t n : {10, 100, 1000}) {
    auto w = measured("echo@request_bytes=" + std::to_string(n), "default", {100},
                      static_cast<int64_t>(n) * 1000);
    w.spec.sweep_of = "echo";
    w.spec.sweep_parameter = "request_bytes";
    w.spec.sweep_value = n;
    sweep.result.workloads.push_back(w);
  }
  const auto s = sweeps(sweep.result);
  ASSERT_EQ(s.size(), 1u);
  const SweepText st = sweep_text(s[0]);
  EXPECT_NE(analysis_text(sweep.result)
                .find(st.model + " (R^2 " + st.r2 + "); exponent " + st.exponent + ", worst pair " +
                      st.worst),
            std::string::npos)
      << analysis_text(sweep.result);
  const std::string smd = markdown_summary({sweep});
  EXPECT_NE(smd.find(fmt::format("| echo | default | request_bytes | 3 | {} | {} | {} | {} |",
                                 st.model, st.r2, st.exponent, st.worst)),
            std::string::npos)
      << smd;
  EXPECT_NE(st.exponent.find("(linear)"), std::string::npos) << st.exponent;
  EXPECT_EQ(smd.find("Comparisons"), std::string::npos) << smd;
}

// A warning gate never fails the run (the exit code comes from critical gates only), so its
// fail or error is no JUnit failure either: a passed testcase that says it in <system-out>.
TEST(JunitXml, AFailingWarningGateIsNoFailureButSaysWhatItFound) {
  ScenarioReport report;
  report.result.scenario = "s";
  report.gates = {gate("hello", "throughput.rps"), gate("hello", "latency.p99"),
                  gate("hello", "errors.count")};
  for (auto& g : report.gates) g.outcome.verdict = gates::Verdict::kFail;
  report.gates[1].outcome.severity = scenario::GateSeverity::kWarning;
  report.gates[2].outcome.severity = scenario::GateSeverity::kWarning;
  report.gates[2].outcome.verdict = gates::Verdict::kError;
  for (size_t i = 0; i < report.gates.size(); ++i) report.gates[i].gate_index = static_cast<int>(i);
  const std::string xml = junit_xml({report});
  EXPECT_NE(xml.find("<testsuites name=\"benchgate\" tests=\"4\" failures=\"1\" errors=\"0\" "
                     "skipped=\"0\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("name=\"hello throughput.rps (gate #1)\"><failure type=\"fail\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("name=\"hello latency.p99 (gate #2)\"><system-out>warning gate fail: within "
                     "the bound (a warning: it does not fail the run)</system-out></testcase>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("name=\"hello errors.count (gate #3)\"><system-out>warning gate error: "),
            std::string::npos)
      << xml;
}

// "pass, underpowered" (docs/GATES.md) is a pass that could not have detected twice its
// allowance: a passed testcase, which says so in <system-out> as a failing warning gate does,
// not a plain empty one. A plain pass stays empty.
TEST(JunitXml, AnUnderpoweredPassSaysWhatItFound) {
  ScenarioReport report;
  report.result.scenario = "s";
  report.gates = {gate("hello", "throughput.rps"), gate("hello", "latency.p99"),
                  gate("hello", "errors.count")};
  for (size_t i = 0; i < report.gates.size(); ++i) report.gates[i].gate_index = static_cast<int>(i);
  report.gates[1].outcome.underpowered = true;
  report.gates[1].outcome.explanation = "underpowered: a 8.2% regression could not be detected";
  report.gates[2].outcome.underpowered = true;
  report.gates[2].outcome.severity = scenario::GateSeverity::kWarning;
  const std::string xml = junit_xml({report});
  EXPECT_NE(xml.find("<testsuites name=\"benchgate\" tests=\"4\" failures=\"0\" errors=\"0\" "
                     "skipped=\"0\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("name=\"hello throughput.rps (gate #1)\"></testcase>"), std::string::npos)
      << xml;
  EXPECT_NE(xml.find("name=\"hello latency.p99 (gate #2)\"><system-out>critical gate pass, "
                     "underpowered: underpowered: a 8.2% regression could not be detected (a pass "
                     "that could not have detected a regression of twice its allowance)"
                     "</system-out></testcase>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("name=\"hello errors.count (gate #3)\"><system-out>warning gate pass, "
                     "underpowered: "),
            std::string::npos)
      << xml;
}

// The summary row under the repetitions: its ops/s is their median, its latency from their
// histograms merged (p99 56.2ms beside repetitions of 83.4ms, 10.1ms and 5.7ms), so it is not
// labelled "median", and the terminal, the HTML report and the Markdown summary say what each
// figure is, in the same words.
TEST(SummaryRow, IsNotLabelledMedianAndDefinesEachFigureInEveryReport) {
  auto w = measured("hello", "default", {1000, 2000, 3000});
  const std::string definition =
      "ops/s, MB/s: median of 3 repetitions (ops/s 1000-3000); latency: their histograms merged; "
      "errors: summed";
  EXPECT_EQ(summary_row_definition(3, "1000-3000"), definition);
  const std::string table = workload_table(w);
  const auto lines = lines_of(table);
  const auto row = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.rfind("  all reps ", 0) == 0;
  });
  ASSERT_NE(row, lines.end()) << table;
  EXPECT_EQ(row->substr(0, 25), "  all reps           2000") << table;
  ASSERT_NE(row + 1, lines.end()) << table;
  EXPECT_EQ(*(row + 1), "             " + definition) << table;
  EXPECT_EQ(table.find("median"), table.find("median of 3")) << table;

  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  run.result.workloads = {w};
  const std::string html = html_document({run});
  EXPECT_NE(html.find("<tr><td class=\"text\">all reps</td><td>2000 (1000-3000)</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<td colspan=\"10\" class=\"text\">" + escape(definition) + "</td>"),
            std::string::npos);
  EXPECT_EQ(html.find("median (latency: merged)"), std::string::npos);

  ScenarioReport report;
  report.result.scenario = "s";
  report.result.workloads = {w};
  const std::string md = markdown_summary({report});
  EXPECT_NE(md.find("| hello | 2000 (1000-3000) |"), std::string::npos) << md;
  EXPECT_NE(md.find("Each row sums up a workload's repetitions as the terminal's \"all reps\" row "
                    "does: ops/s the median (min-max), latency from their histograms merged, "
                    "errors summed."),
            std::string::npos)
      << md;
}

// One repetition: the row repeats its figures, said so ("median of 1 repetition (ops/s
// 48078-48078); latency: their histograms merged" before). No success: every latency is "-",
// and the row says why rather than "their histograms merged".
TEST(SummaryRow, OneRepetitionAndNoSuccessAreSaidPlainly) {
  const auto one = measured("hello", "default", {48078});
  const std::string single = "a single repetition: the row repeats its figures";
  EXPECT_NE(workload_table(one).find("             " + single + "\n"), std::string::npos)
      << workload_table(one);
  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  run.result.workloads = {one};
  EXPECT_NE(html_document({run}).find("<td colspan=\"10\" class=\"text\">" + single + "</td>"),
            std::string::npos);

  auto failed = measured("hello", "default", {0, 0});
  failed.latency = {};
  for (auto& rep : failed.repetitions) {
    rep.latency = {};
    rep.operations = 100;
    rep.errors["status"] = 100;
  }
  const std::string table = workload_table(failed);
  EXPECT_NE(table.find("             ops/s, MB/s: median of 2 repetitions (ops/s 0-0); latency: "
                       "none (no operation succeeded); errors: summed\n"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("histograms merged"), std::string::npos) << table;
  failed.repetitions.pop_back();
  EXPECT_NE(workload_table(failed).find("             " + single +
                                        "; latency: none (no operation succeeded)\n"),
            std::string::npos)
      << workload_table(failed);
}

// The HTML report's and the Markdown summary's ops/s cell of one repetition is its figure, with
// no range from it to itself ("48078 (48078-48078)" before), and the Markdown's sentence under
// its table says what its rows are: a single repetition repeated, or why a latency is "-"
// (before: "their histograms merged" whatever the count).
TEST(SummaryRow, OneRepetitionHasNoRangeInTheHtmlAndMarkdownReports) {
  const auto one = measured("hello", "default", {48078});
  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  run.result.workloads = {one};
  const std::string html = html_document({run});
  EXPECT_NE(html.find("<tr><td class=\"text\">all reps</td><td>48078</td>"), std::string::npos);
  EXPECT_EQ(html.find("48078-48078"), std::string::npos);

  ScenarioReport report;
  report.result.scenario = "s";
  report.result.workloads = {one};
  std::string md = markdown_summary({report});
  EXPECT_NE(md.find("| workload | ops/s | p50 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| hello | 48078 |"), std::string::npos) << md;
  EXPECT_NE(md.find("\nEach workload had a single repetition: its row repeats that repetition's "
                    "figures, as the terminal's \"all reps\" row does.\n"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("48078-48078"), std::string::npos) << md;
  EXPECT_EQ(md.find("histograms merged"), std::string::npos) << md;

  // Beside a workload of three: the header and the sentence are the general ones, and the
  // sentence says the single row and the latency of the workload where nothing succeeded.
  auto failed = measured("bad", "default", {0});
  failed.latency = {};
  failed.repetitions[0].latency = {};
  failed.repetitions[0].operations = 100;
  failed.repetitions[0].errors["status"] = 100;
  report.result.workloads = {measured("many", "default", {1000, 2000, 3000}), one, failed};
  md = markdown_summary({report});
  EXPECT_NE(md.find("| workload | ops/s (median, min-max) | p50 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| many | 2000 (1000-3000) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| hello | 48078 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| bad | 0 | - | - | - |"), std::string::npos) << md;
  EXPECT_NE(md.find("\nEach row sums up a workload's repetitions as the terminal's \"all reps\" "
                    "row does: ops/s the median (min-max), latency from their histograms merged, "
                    "errors summed; a row of a single repetition repeats its figures, with no "
                    "range; a latency of \"-\" is none (no operation succeeded).\n"),
            std::string::npos)
      << md;
}

// A worker adapter's workload has no histogram: its summary latency is the median of the
// repetitions' tool figures (the largest max), and the summary row says so, not "their
// histograms merged" (review of 0cea563).
TEST(SummaryRow, AToolsLatencyIsDefinedAsTheMedianOfItsFigures) {
  auto w = measured("hello", "default", {1000, 2000, 3000});
  w.latency = {};
  for (auto& rep : w.repetitions) {
    rep.latency = {};
    results::ToolLatency t;
    t.tool = "wrk 4.2.0";
    t.max_ns = 900'000;
    t.percentiles_ns[results::percentile_key(99)] = 150'000;
    rep.tool_latency = t;
  }
  const std::string definition =
      "ops/s, MB/s: median of 3 repetitions (ops/s 1000-3000); latency: the median of their "
      "figures as wrk 4.2.0 printed them (max: the largest); errors: summed";
  EXPECT_EQ(summary_row_definition(3, "1000-3000", "wrk 4.2.0"), definition);
  const std::string table = workload_table(w);
  EXPECT_NE(table.find("             " + definition + "\n"), std::string::npos) << table;
  ScenarioReport report;
  report.result.scenario = "s";
  report.result.workloads = {w};
  const std::string md = markdown_summary({report});
  EXPECT_NE(md.find("latency from their histograms merged (where a tool such as wrk or h2load "
                    "printed it: the median of its figures, max the largest), errors summed."),
            std::string::npos)
      << md;
}

// One spelling of a workload's variant in every output: the terminal's "hello [cand]".
TEST(VariantNames, EveryReportWritesTheVariantAsTheTerminalDoes) {
  gating::EvaluatedGate g = gate("hello", "throughput.rps");
  g.variant = "cand";
  EXPECT_NE(gates_table({g}).find(" hello [cand] "), std::string::npos) << gates_table({g});
  ScenarioReport report;
  report.result.scenario = "s";
  report.gates = {g};
  EXPECT_NE(junit_xml({report}).find("name=\"hello [cand] throughput.rps (gate #1)\""),
            std::string::npos)
      << junit_xml({report});
  auto w = measured("hello", "cand", {1000});
  EXPECT_EQ(workload_table(w).rfind("hello [cand]: ", 0), 0u) << workload_table(w);
  report.result.workloads = {w};
  EXPECT_NE(markdown_summary({report}).find("| hello [cand] |"), std::string::npos);
}

}  // namespace
}  // namespace benchgate::report

namespace benchgate::report {
namespace {

// A workload's error can hold bytes that are not UTF-8 (a worker's own message, a tool's
// stderr): the JSON report writes them as U+FFFD instead of throwing (nlohmann's strict dump
// threw type_error 316, and the orchestrator ended on an uncaught exception).
TEST(JsonReport, TextThatIsNotUtf8IsWrittenWithReplacementCharacters) {
  ScenarioReport report;
  report.result.scenario = "s";
  results::WorkloadResult failed = saturated_workload();
  failed.status = results::WorkloadStatus::kFailed;
  failed.error = "worker said \xff\xfe here";
  report.result.workloads.push_back(failed);
  report.status = "failed";
  report.exit_code = 3;
  std::string text;
  ASSERT_NO_THROW(text = json_report({report}, 3));
  const auto json = nlohmann::json::parse(text);
  EXPECT_EQ(json["scenarios"][0]["workloads"][0]["error"],
            "worker said \xEF\xBF\xBD\xEF\xBF\xBD here")
      << text;
}

// A FAILED row's reason of several lines (a stopped router's stderr tail) goes on indented
// under its first line, as the gate table indents an explanation: no quoted line starts at
// column 0, where it would read as the orchestrator's own output.
TEST(TerminalReport, AFailedRowIndentsTheStderrItQuotes) {
  results::WorkloadResult w;
  w.spec.name = "hello";
  w.status = results::WorkloadStatus::kFailed;
  w.error =
      "router exited with status 1; its stderr ends with:\nrouter: bind failed\n\nrouter: bye";
  const std::string table = workload_table(w);
  EXPECT_NE(table.find("  FAILED: router exited with status 1; its stderr ends with:\n"
                       "          router: bind failed\n"
                       "\n"
                       "          router: bye\n"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("\nrouter:"), std::string::npos) << table;
}

}  // namespace
}  // namespace benchgate::report
