// One definition per figure in every report: a workload's load (its concurrency as its protocol
// has it) and what a tool could not measure, as the terminal, the
// Markdown summary, the HTML report and the JSON report write them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "orchestrator/report/escape.h"
#include "orchestrator/report/gate_report.h"
#include "orchestrator/report/html_report.h"
#include "orchestrator/report/json_report.h"
#include "orchestrator/report/result_line.h"
#include "orchestrator/report/terminal_report.h"
#include "orchestrator/report/workload_shape.h"

namespace benchgate::report {
namespace {

results::WorkloadResult measured(const std::string& name, scenario::Protocol protocol) {
  results::WorkloadResult w;
  w.spec.name = name;
  w.spec.protocol = protocol;
  results::Repetition rep;
  rep.successes = rep.operations = 1000;
  rep.duration_ns = rep.data_window_ns = 1'000'000'000;
  rep.latency.record(50'000);
  w.repetitions.push_back(rep);
  w.latency.add(rep.latency);
  return w;
}

HtmlRun html_run(std::vector<results::WorkloadResult> workloads) {
  HtmlRun run;
  run.run.id = 1;
  run.run.scenario = "s";
  run.run.status = "ok";
  run.result.scenario = "s";
  run.result.workloads = std::move(workloads);
  return run;
}

ScenarioReport markdown_run(std::vector<results::WorkloadResult> workloads) {
  ScenarioReport report;
  report.result.scenario = "s";
  report.run_id = 1;
  report.result.workloads = std::move(workloads);
  return report;
}

// http2 multiplexes `streams` per connection (its in_flight does not apply); wamp_pubsub has
// publishers and subscribers (its `connections` does not apply). The terminal's header, the
// HTML report's and the Markdown summary's load list say the same.
TEST(WorkloadShape, EveryReportWritesAWorkloadsConcurrencyAsItsProtocolHasIt) {
  results::WorkloadResult h2 = measured("h2", scenario::Protocol::kHttp2);
  h2.spec.http.method = "GET";
  h2.spec.http.target = "/bench/hello";
  h2.spec.connections = 4;
  h2.spec.in_flight = 1;
  h2.spec.http2.streams = 10;
  results::WorkloadResult pubsub = measured("events", scenario::Protocol::kWampPubSub);
  pubsub.spec.connections = 1;
  pubsub.spec.in_flight = 1;
  pubsub.spec.wamp.topic = "bench.topic";
  pubsub.spec.wamp.transport = "websocket";
  pubsub.spec.wamp.serializer = "json";
  pubsub.spec.wamp.request_bytes = 64;
  pubsub.spec.wamp.publishers = 2;
  pubsub.spec.wamp.subscribers = 3;

  const std::string h2_load = "GET /bench/hello over h2c, 4 connections x 10 streams";
  const std::string pubsub_load =
      "wamp_pubsub bench.topic over websocket/json, 64 B, 2 publisher(s) x 1 in flight -> 3 "
      "subscriber(s)";
  EXPECT_NE(workload_table(h2).find("h2: " + h2_load + ", "), std::string::npos)
      << workload_table(h2);
  EXPECT_NE(workload_table(pubsub).find("events: " + pubsub_load + ", "), std::string::npos)
      << workload_table(pubsub);

  const std::string html = html_document({html_run({h2, pubsub})});
  EXPECT_NE(html.find("<p>http2 &#183; " + h2_load + " &#183; "), std::string::npos) << html;
  EXPECT_NE(html.find("<p>" + escape(pubsub_load) + " &#183; "), std::string::npos) << html;
  EXPECT_EQ(html.find("in flight &#183;"), std::string::npos) << html;

  const std::string md = markdown_summary({markdown_run({h2, pubsub})});
  EXPECT_NE(md.find("- h2: " + h2_load + ", "), std::string::npos) << md;
  EXPECT_NE(md.find("- events: " + pubsub_load + ", "), std::string::npos) << md;
}

// The JSON's `connections` is the configured key (the definition's, which wamp_pubsub does not
// use); `sessions` is what the RESULT line's `connections` counts: publishers + subscribers.
TEST(WorkloadShape, TheJsonSaysTheSessionsTheResultLineCounts) {
  results::WorkloadResult pubsub = measured("events", scenario::Protocol::kWampPubSub);
  pubsub.spec.connections = 1;
  pubsub.spec.wamp.publishers = 2;
  pubsub.spec.wamp.subscribers = 3;
  const nlohmann::json params = workload_json(pubsub)["parameters"];
  EXPECT_EQ(params["connections"], 1) << params.dump(2);
  EXPECT_EQ(params["sessions"], 5) << params.dump(2);
  EXPECT_NE(result_line("s", pubsub, "1").find("|connections=5|"), std::string::npos);

  results::WorkloadResult rpc = measured("rpc", scenario::Protocol::kWampRpc);
  rpc.spec.connections = 8;
  EXPECT_EQ(workload_json(rpc)["parameters"]["sessions"], 8);
}

// A worker adapter's tool (wrk) that printed no connect or length errors and no p90: the
// Markdown summary and the HTML report say "not measured" as the terminal does, never "errors 0"
// alone; the HTML per-worker row of its only worker shows the max the tool printed, as the
// repetition's row does.
results::WorkloadResult wrk_workload() {
  results::WorkloadResult w;
  w.spec.name = "wrk_hello";
  w.spec.worker = "wrk";
  results::Repetition rep;
  rep.successes = rep.operations = 1000;
  rep.duration_ns = 1'000'000'000;
  rep.tool_latency =
      results::ToolLatency{"wrk 4.2.0",  std::nullopt, 200'000,
                           std::nullopt, 7'000'000,    {{"50", 150'000}, {"99", 900'000}}};
  rep.not_measured = {"errors.connect", "errors.length"};
  rep.workers.push_back({0, 1000, 1000, 0, 1000});
  w.repetitions.push_back(rep);
  return w;
}

TEST(WorkloadShape, WhatTheToolDidNotMeasureIsSaidInEveryReport) {
  const results::WorkloadResult w = wrk_workload();
  const std::string table = workload_table(w);
  ASSERT_NE(table.find("  not measured: errors.connect, errors.length\n"), std::string::npos)
      << table;
  ASSERT_NE(table.find("  latency as wrk 4.2.0 printed it (no histogram): mean 200us; not "
                       "measured: p90 p99.9\n"),
            std::string::npos)
      << table;

  const std::string md = markdown_summary({markdown_run({w})});
  EXPECT_NE(md.find("- wrk_hello: not measured: errors.connect, errors.length\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- wrk_hello: latency as wrk 4.2.0 printed it (no histogram): mean 200us; "
                    "not measured: p90 p99.9\n"),
            std::string::npos)
      << md;

  const std::string html = html_document({html_run({w})});
  EXPECT_NE(html.find(">not measured: errors.connect, errors.length</p>"), std::string::npos)
      << html;
  EXPECT_NE(html.find(">latency as wrk 4.2.0 printed it (no histogram): mean 200us; not "
                      "measured: p90 p99.9</p>"),
            std::string::npos)
      << html;
  // The per-worker row: p50 150us, p99 900us, max 7ms, as the repetition's row.
  EXPECT_NE(html.find("<td>150us</td><td>900us</td><td>7ms</td><td>0</td>"), std::string::npos)
      << html;
}

// One definition of a worker's latency (results::Repetition::worker_latency_at) in every
// per-worker table: the only worker that wraps a tool has the tool's figures in the JSON's
// workers[] and the terminal's table as in the HTML report's; JSON null and "-" where there is
// none: several workers wrapping tools (only their union's figures are kept), or a window that
// completed no success (a tool times failed requests too).
TEST(WorkloadShape, AWorkersLatencyIsOneFigureInEveryPerWorkerTable) {
  results::WorkloadResult w = wrk_workload();
  // A second repetition measured by two workers, so that the terminal prints its per-worker
  // table (it does where a repetition has several).
  results::Repetition two = w.repetitions.front();
  two.index = 1;
  two.workers = {{0, 500, 500, 0, 500}, {1, 500, 500, 0, 500}};
  w.repetitions.push_back(two);

  const nlohmann::json reps = workload_json(w)["repetitions"];
  ASSERT_EQ(reps.size(), 2u);
  const nlohmann::json alone = reps[0]["workers"][0];
  EXPECT_EQ(alone["p50_ns"], 150'000) << alone.dump(2);
  EXPECT_EQ(alone["p99_ns"], 900'000) << alone.dump(2);
  EXPECT_EQ(alone["max_ns"], 7'000'000) << alone.dump(2);
  for (const auto& worker : reps[1]["workers"]) {
    EXPECT_TRUE(worker["p50_ns"].is_null()) << worker.dump(2);
    EXPECT_TRUE(worker["max_ns"].is_null()) << worker.dump(2);
  }

  // The terminal's per-worker rows: "    rep 1        0 -   ...  ops/s  p50  p99  cpu ...".
  const std::string table = workload_table(w);
  const size_t rows = table.find("  per worker:\n");
  ASSERT_NE(rows, std::string::npos) << table;
  auto row = [&](const std::string& start) {
    const size_t at = table.find("\n" + start, rows);
    return at == std::string::npos ? std::string()
                                   : table.substr(at + 1, table.find('\n', at + 1) - at - 1);
  };
  const std::string first = row("    rep 1 ");
  EXPECT_NE(first.find(" 150us     900us "), std::string::npos) << table;
  const std::string second = row("    rep 2 ");
  EXPECT_EQ(second.find("us"), std::string::npos) << table;
  EXPECT_NE(second.find(" -         - "), std::string::npos) << table;

  const std::string html = html_document({html_run({w})});
  EXPECT_NE(html.find("<td>150us</td><td>900us</td><td>7ms</td><td>0</td>"), std::string::npos)
      << html;

  // No success in the window: the tool's figures are not latency, in no report.
  results::WorkloadResult failed = wrk_workload();
  failed.repetitions[0].successes = 0;
  failed.repetitions[0].workers[0].successes = 0;
  const nlohmann::json none = workload_json(failed)["repetitions"][0]["workers"][0];
  EXPECT_TRUE(none["p50_ns"].is_null()) << none.dump(2);
  EXPECT_TRUE(none["max_ns"].is_null()) << none.dump(2);
  EXPECT_EQ(html_document({html_run({failed})}).find("<td>7ms</td><td>0</td>"), std::string::npos);
}

// The threads each worker said it runs (Ready.threads) beside the scenario's where they differ,
// in the terminal's header, the Markdown load list and the HTML report; the JSON lists them.
TEST(WorkloadShape, EveryReportSaysTheThreadsTheWorkersRunWhereTheyDifferFromTheScenarios) {
  results::WorkloadResult w = measured("events", scenario::Protocol::kWampPubSub);
  w.spec.workers = 2;
  w.spec.threads = 4;
  w.worker_threads = {4, 4};
  EXPECT_EQ(workers_text(w.spec, w.worker_threads), "2 worker(s) x 4 thread(s)");
  EXPECT_EQ(workers_text(w.spec, {}), "2 worker(s) x 4 thread(s)");  // not told: as asked
  EXPECT_EQ(workers_text(w.spec, {3, 2}), "2 worker(s) x 4 thread(s) (the workers run 3 and 2)");
  w.spec.workers = 3;
  EXPECT_EQ(workers_text(w.spec, {4, 4, 2}),
            "3 worker(s) x 4 thread(s) (the workers run 4, 4 and 2)");
  w.spec.workers = 1;
  EXPECT_EQ(workers_text(w.spec, {1}), "1 worker(s) x 4 thread(s) (the worker runs 1)");
  w.spec.workers = 2;
  w.worker_threads = {2, 2};
  const std::string shown = "2 worker(s) x 4 thread(s) (the workers run 2 each)";
  EXPECT_NE(workload_table(w).find(", " + shown + ", closed loop\n"), std::string::npos)
      << workload_table(w);
  const std::string md = markdown_summary({markdown_run({w})});
  EXPECT_NE(md.find(", " + shown + ", closed loop\n"), std::string::npos) << md;
  const std::string html = html_document({html_run({w})});
  EXPECT_NE(html.find(" &#183; " + shown + " &#183; closed loop &#183; "), std::string::npos)
      << html;
  EXPECT_EQ(workload_json(w)["worker_threads"], nlohmann::json::array({2, 2}));
  w.worker_threads.clear();
  EXPECT_TRUE(workload_json(w)["worker_threads"].is_null());
}

// A worker whose Ready.threads is 0 did not say how many threads it runs: every report says
// so, never that it runs 0, and the JSON has null in its place.
TEST(WorkloadShape, AWorkerThatDidNotReportItsThreadsIsNeverSaidToRunZero) {
  results::WorkloadResult w = measured("events", scenario::Protocol::kWampPubSub);
  w.spec.workers = 1;
  w.spec.threads = 4;
  EXPECT_EQ(workers_text(w.spec, {0}),
            "1 worker(s) x 4 thread(s) (the worker did not report its threads)");
  w.spec.workers = 2;
  EXPECT_EQ(workers_text(w.spec, {0, 0}),
            "2 worker(s) x 4 thread(s) (the workers did not report their threads)");
  EXPECT_EQ(workers_text(w.spec, {4, 0}),
            "2 worker(s) x 4 thread(s) (1 of 2 workers did not report its threads; the other "
            "runs 4)");
  w.spec.workers = 3;
  EXPECT_EQ(workers_text(w.spec, {0, 0, 2}),
            "3 worker(s) x 4 thread(s) (2 of 3 workers did not report their threads; the other "
            "runs 2)");
  EXPECT_EQ(workers_text(w.spec, {2, 0, 2}),
            "3 worker(s) x 4 thread(s) (1 of 3 workers did not report its threads; the others "
            "run 2 each)");
  EXPECT_EQ(workers_text(w.spec, {4, 0, 2}),
            "3 worker(s) x 4 thread(s) (1 of 3 workers did not report its threads; the others "
            "run 4 and 2)");
  w.spec.workers = 2;
  w.worker_threads = {3, 0};
  const std::string shown =
      "2 worker(s) x 4 thread(s) (1 of 2 workers did not report its threads; the other runs 3)";
  EXPECT_NE(workload_table(w).find(", " + shown + ", closed loop\n"), std::string::npos)
      << workload_table(w);
  const std::string md = markdown_summary({markdown_run({w})});
  EXPECT_NE(md.find(", " + shown + ", closed loop\n"), std::string::npos) << md;
  const std::string html = html_document({html_run({w})});
  EXPECT_NE(html.find(" &#183; " + shown + " &#183; closed loop &#183; "), std::string::npos)
      << html;
  EXPECT_EQ(workload_json(w)["worker_threads"], nlohmann::json::parse("[3, null]"));
}

}  // namespace
}  // namespace benchgate::report
