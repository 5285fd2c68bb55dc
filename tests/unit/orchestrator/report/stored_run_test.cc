// A stored run read back for a report (stored_run.h): the same figures as the live run's
// terminal table, and the HTML figures table with the terminal's columns.
#include "orchestrator/report/stored_run.h"

#include <gtest/gtest.h>

#include <sstream>

#include "common/units/units.h"
#include "common/util/text_lines.h"
#include "orchestrator/report/analysis.h"
#include "orchestrator/report/escape.h"
#include "orchestrator/report/gate_report.h"
#include "orchestrator/report/html_report.h"
#include "orchestrator/report/json_report.h"
#include "orchestrator/report/result_line.h"
#include "orchestrator/report/terminal_report.h"
#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "tests/unit/orchestrator/store/store_test_support.h"

namespace benchgate::report {
namespace {

// Two windows whose router CPU and RSS were sampled: 0.5 s of CPU over 1000 requests.
results::WorkloadResult sampled_workload() {
  results::WorkloadResult w;
  w.spec.name = "hello";
  for (uint32_t i = 0; i < 2; ++i) {
    results::Repetition rep;
    rep.index = i;
    rep.duration_ns = rep.data_window_ns = 1'000'000'000;
    rep.successes = rep.operations = 1000;
    rep.in_window = true;
    rep.window_successes = rep.successes;
    rep.latency.record_n(50'000 + i, 1000);
    rep.router.collected = true;
    rep.router.requests = 1000;
    rep.router.sampled = true;
    rep.router.cpu_seconds = 0.5;
    rep.router.rss_bytes = 12'345'678 + i;
    w.latency.add(rep.latency);
    w.repetitions.push_back(rep);
  }
  return w;
}

// The line of `table` that starts with `row` ("  rep 1"), or "".
std::string row_of(const std::string& table, const std::string& row) {
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(row, 0) == 0) return line;
  }
  return "";
}

class StoredRun : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = store::Store::open(folder_.file("runs.db"));
    ASSERT_TRUE(opened.ok()) << opened.message();
    store_ = std::move(*opened);
  }
  void TearDown() override { store_.reset(); }

  // `w` stored as a finished ok run; its id.
  int64_t stored_run(const results::WorkloadResult& w) {
    store::RunInfo info;
    info.scenario = "stored";
    info.scenario_text = "name = \"stored\"\n";
    info.testbed.host = "bench-host-1";
    auto id = store_->begin_run(info);
    EXPECT_TRUE(id.ok()) << id.message();
    EXPECT_TRUE(store_->store_workload(*id, w).ok());
    EXPECT_TRUE(store_->finish_run(*id, "ok", 0).ok());
    return *id;
  }

  // `w` stored as run and read back as a report reads it.
  engine::ScenarioResult stored_and_read(const results::WorkloadResult& w) {
    const int64_t id = stored_run(w);
    auto detail = store_->get_run(id);
    EXPECT_TRUE(detail.ok()) << detail.message();
    return result_from_store(*detail);
  }

  store::testing::TempDir folder_;  // declared first: removed after the store is closed
  std::unique_ptr<store::Store> store_;
};

// The router's CPU and RSS were measured: a stored run re-reported (`orchestrator report RUN`,
// `gate RUN`) says so, with the live run's figures, never "not measured".
TEST_F(StoredRun, TheRoutersSampledCpuAndRssAreReadBackAsMeasured) {
  const results::WorkloadResult live = sampled_workload();
  const engine::ScenarioResult restored = stored_and_read(live);
  ASSERT_EQ(restored.workloads.size(), 1u);
  const results::WorkloadResult& w = restored.workloads[0];
  ASSERT_EQ(w.repetitions.size(), 2u);
  EXPECT_TRUE(w.repetitions[0].router.sampled);
  EXPECT_EQ(w.repetitions[1].router.rss_bytes, 12'345'679u);
  EXPECT_EQ(w.repetitions[0].router_cpu_per_request(),
            live.repetitions[0].router_cpu_per_request());
  for (const char* metric : {"router.cpu_per_request", "router.rss_bytes"}) {
    ASSERT_TRUE(results::metric_figure(w, metric).has_value()) << metric;
    EXPECT_EQ(*results::metric_figure(w, metric), *results::metric_figure(live, metric)) << metric;
    EXPECT_EQ(results::not_measured_reason(w, metric), "") << metric;
  }
  for (const char* row : {"  rep 1 ", "  rep 2 "}) {
    const std::string shown = row_of(workload_table(w), row);
    EXPECT_NE(shown, "") << row;
    EXPECT_EQ(shown, row_of(workload_table(live), row));
  }
}

// README: a re-evaluated figure "is explained as the run explained it". A cleartext workload
// whose workers reported setups measured no TLS handshake, and a repetition that set up no
// connection (kept from before its window) measured no connect time: `orchestrator gate RUN`
// says so, not that the workers did not report setups.
TEST_F(StoredRun, AFigureOfSetupsNotMadeIsExplainedAsTheLiveRunExplainedIt) {
  results::WorkloadResult live = sampled_workload();
  live.repetitions[0].setup.emplace();
  live.repetitions[0].setup->connections = 4;
  live.repetitions[0].setup->connect.record(120'000);
  live.repetitions[0].setup->ttfb.record(300'000);
  live.repetitions[1].setup.emplace();  // its connections were kept: none set up
  const engine::ScenarioResult restored = stored_and_read(live);
  ASSERT_EQ(restored.workloads.size(), 1u);
  const std::string tls = results::not_measured_reason(live, "tls_handshake.p99");
  EXPECT_EQ(tls, "tls_handshake.p99 was not measured: no connection of this kind was set up");
  EXPECT_EQ(results::not_measured_reason(restored.workloads[0], "tls_handshake.p99"), tls);

  live.repetitions[0].setup->connections = 0;
  live.repetitions[0].setup->connect.reset();
  live.repetitions[0].setup->ttfb.reset();
  const engine::ScenarioResult none = stored_and_read(live);
  const std::string connect = results::not_measured_reason(live, "connect.p99");
  EXPECT_EQ(connect, "connect.p99 was not measured: no connection of this kind was set up");
  EXPECT_EQ(results::not_measured_reason(none.workloads[0], "connect.p99"), connect);
}

// README calls the HTML figures table "the figures table of the terminal": the same columns,
// router/op included.
TEST_F(StoredRun, TheHtmlFiguresTableHasTheTerminalsRouterPerOpColumn) {
  HtmlRun run;
  run.result = stored_and_read(sampled_workload());
  const std::string html = html_document({run});
  EXPECT_NE(html.find("<th>errors</th><th>router/op</th><th class=\"text\">flags</th>"),
            std::string::npos);
  const std::string per_op = format_duration_ns(500'000);  // 0.5 s over 1000 requests
  EXPECT_NE(html.find("<td>" + per_op + "</td><td class=\"text\"></td></tr>"), std::string::npos)
      << per_op;
}

// The dashed baseline of a past run's spectrum is the baseline its relative gates judge it
// against (docs/GATES.md, "Series and baselines"): the runs stored before it, not one measured
// and promoted after it.
TEST_F(StoredRun, ThePastRunsSpectrumIsDrawnAgainstTheBaselineRunsBeforeIt) {
  const int64_t before = stored_run(sampled_workload());
  const int64_t judged = stored_run(sampled_workload());
  const int64_t after = stored_run(sampled_workload());
  ASSERT_TRUE(store_->add_baseline("main", before).ok());
  ASSERT_TRUE(store_->add_baseline("main", after).ok());
  ReportOptions options;
  options.baseline = "main";
  auto run = load_html_run(*store_, judged, options);
  ASSERT_TRUE(run.ok()) << run.message();
  ASSERT_EQ(run->spectra.count({"hello", "default"}), 1u);
  EXPECT_EQ(run->spectra.at({"hello", "default"}).run_ids, std::vector<int64_t>{before});
}

// Each baseline run's samples fit int64, two runs' together need not: the second is left out of
// the baseline spectrum whole, and of the runs its legend names, where it was named but its
// samples overflowed (UB) the merge or, the merge refused, were missing from it.
TEST_F(StoredRun, ABaselineRunWhoseSamplesWouldPassInt64IsLeftOutOfTheSpectrum) {
  constexpr int64_t kMany = (int64_t{1} << 62) + (int64_t{1} << 61);
  results::WorkloadResult big = sampled_workload();
  for (auto& rep : big.repetitions) {
    rep.latency.reset();
    rep.latency.record_n(50'000, kMany / 2);
  }
  const int64_t first = stored_run(big);
  const int64_t second = stored_run(big);
  const int64_t judged = stored_run(sampled_workload());
  ASSERT_TRUE(store_->add_baseline("main", first).ok());
  ASSERT_TRUE(store_->add_baseline("main", second).ok());
  ReportOptions options;
  options.baseline = "main";
  auto run = load_html_run(*store_, judged, options);
  ASSERT_TRUE(run.ok()) << run.message();
  ASSERT_EQ(run->spectra.count({"hello", "default"}), 1u);
  const BaselineSpectrum& spectrum = run->spectra.at({"hello", "default"});
  ASSERT_EQ(spectrum.run_ids.size(), 1u);
  EXPECT_EQ(spectrum.merged.total_count(), kMany / 2 * 2);
}

// A paired gate's `baseline` names the variant it was judged against (docs/GATES.md, "Paired
// gates"), not a stored baseline: the report draws no baseline for it, even where a stored
// baseline of that name holds runs of the workload.
TEST_F(StoredRun, APairedGatesAgainstVariantIsNoBaselineToDraw) {
  results::WorkloadResult old_variant = sampled_workload();
  old_variant.variant = "old";
  results::WorkloadResult new_variant = sampled_workload();
  new_variant.variant = "new";
  ASSERT_TRUE(store_->add_baseline("old", stored_run(old_variant)).ok());
  store::RunInfo info;
  info.scenario = "stored";
  info.scenario_text = "name = \"stored\"\n";
  info.testbed.host = "bench-host-1";
  auto id = store_->begin_run(info);
  ASSERT_TRUE(id.ok()) << id.message();
  ASSERT_TRUE(store_->store_workload(*id, old_variant).ok());
  ASSERT_TRUE(store_->store_workload(*id, new_variant).ok());
  ASSERT_TRUE(store_->finish_run(*id, "ok", 0).ok());
  store::GateRecord paired;
  paired.workload = "hello";
  paired.variant = "new";
  paired.metric = "throughput.rps";
  paired.kind = "relative";
  paired.baseline = "old";
  paired.method = "paired-signed-rank";
  paired.verdict = "pass";
  paired.severity = "critical";
  store::GateRecord errored = paired;  // compared nothing: its method is none
  errored.metric = "latency.p99";
  errored.method = "none";
  errored.verdict = "error";
  ASSERT_TRUE(store_->store_gate_results(*id, {paired, errored}).ok());

  auto run = load_html_run(*store_, *id, ReportOptions{});
  ASSERT_TRUE(run.ok()) << run.message();
  EXPECT_EQ(run->baseline, "");
  EXPECT_TRUE(run->spectra.empty());
  const std::string html = html_document({*run});
  EXPECT_EQ(html.find("Baseline 'old'"), std::string::npos);
  EXPECT_EQ(html.find("in baseline old"), std::string::npos);

  ReportOptions asked;  // --baseline old: the stored baseline, asked for by name
  asked.baseline = "old";
  auto drawn = load_html_run(*store_, *id, asked);
  ASSERT_TRUE(drawn.ok()) << drawn.message();
  EXPECT_EQ(drawn->baseline, "old");
  EXPECT_EQ(drawn->spectra.count({"hello", "old"}), 1u);
}

// worker_start_skew_ns holds each worker's start skew in the order of the repetition's
// workers rows (docs/MEASUREMENT.md "Worker CPU and start"): read back from the store it is
// the same list, from each worker's row (worker_windows.start_skew_ns), not the largest skew
// alone; none when a worker did not report its start, as the live run gives none; and after
// worker 0 is lost (on_worker_loss = "continue"), worker 1's alone.
TEST_F(StoredRun, EveryWorkersStartSkewIsReadBackNotTheLargestAlone) {
  results::WorkloadResult live = sampled_workload();
  live.repetitions.push_back(live.repetitions.back());
  live.repetitions.back().index = 2;
  auto shares = [](std::vector<std::pair<uint32_t, std::optional<int64_t>>> skews) {
    std::vector<results::WorkerShare> out;
    for (auto [worker, skew] : skews) {
      results::WorkerShare share;
      share.worker = worker;
      share.operations = share.successes = 1000;
      share.start_skew_ns = skew;
      out.push_back(share);
    }
    return out;
  };
  live.repetitions[0].workers = shares({{0, 120'000}, {1, -30'000}, {2, 45'000}});
  live.repetitions[0].worker_start_skew_ns = {120'000, -30'000, 45'000};
  live.repetitions[1].workers = shares({{0, 120'000}, {1, std::nullopt}, {2, 45'000}});
  live.repetitions[1].worker_start_skew_ns = {};  // a worker did not report its start
  live.repetitions[2].workers = shares({{1, -2'000'000}});
  live.repetitions[2].worker_start_skew_ns = {-2'000'000};
  const engine::ScenarioResult restored = stored_and_read(live);
  ASSERT_EQ(restored.workloads.size(), 1u);
  const results::WorkloadResult& w = restored.workloads[0];
  ASSERT_EQ(w.repetitions.size(), 3u);
  const nlohmann::json stored = workload_json(w)["repetitions"];
  const nlohmann::json measured = workload_json(live)["repetitions"];
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(w.repetitions[i].worker_start_skew_ns, live.repetitions[i].worker_start_skew_ns) << i;
    EXPECT_EQ(w.repetitions[i].max_start_skew_ns(), live.repetitions[i].max_start_skew_ns()) << i;
    EXPECT_EQ(stored[i]["worker_start_skew_ns"], measured[i]["worker_start_skew_ns"]) << i;
  }
  EXPECT_EQ(stored[0]["worker_start_skew_ns"], nlohmann::json({120'000, -30'000, 45'000}));
}

// A run stored before each worker's start skew was (schema version 15) kept the largest alone
// (repetitions.start_skew_ns): read back, the list is none (null in JSON), not a one-entry list
// that reads as every worker's, and the largest is still what the terminal prints.
TEST_F(StoredRun, TheLargestStartSkewAloneIsNoListOfEveryWorkers) {
  results::WorkloadResult live = sampled_workload();
  live.repetitions[0].worker_start_skew_ns = {200'000, -1'500'000};  // no workers rows kept
  const engine::ScenarioResult restored = stored_and_read(live);
  ASSERT_EQ(restored.workloads.size(), 1u);
  const results::Repetition& rep = restored.workloads[0].repetitions[0];
  EXPECT_TRUE(rep.worker_start_skew_ns.empty());
  EXPECT_EQ(rep.max_start_skew_ns(), -1'500'000);
  EXPECT_TRUE(
      workload_json(restored.workloads[0])["repetitions"][0]["worker_start_skew_ns"].is_null());
}

// `resumed` read back from the store is the live report's (docs/MEASUREMENT.md "Handshakes per
// second"): a count, 0 included, where the workload reconnects per operation over TLS, "-" and null
// where it keeps its connections, also when the run's scenario text no longer defines the workloads
// (the workload's stored parameters say whether it reconnects). A row stored before the store
// followed that rule holds a count for a workload that keeps its connections too: it reads
// back as not measured all the same.
TEST_F(StoredRun, ResumedReadsBackAsTheLiveReportGaveIt) {
  auto with_tls = [](const std::string& name, scenario::Protocol protocol, uint64_t handshakes,
                     uint64_t resumed) {
    results::WorkloadResult w = sampled_workload();
    w.spec.name = name;
    w.spec.protocol = protocol;
    w.spec.tls.enabled = true;
    for (auto& rep : w.repetitions) {
      rep.setup.emplace();
      rep.setup->connections = scenario::is_http(protocol) ? handshakes : 0;
      rep.setup->handshakes = handshakes;
      rep.setup->resumed = resumed;
    }
    return w;
  };
  std::vector<results::WorkloadResult> live = {
      with_tls("kept", scenario::Protocol::kHttp1, 2, 0),
      with_tls("per_request", scenario::Protocol::kHttp1, 500, 0),
      with_tls("per_request_resuming", scenario::Protocol::kHttp2, 500, 498),
      with_tls("transfer", scenario::Protocol::kWampTransfer, 14, 12),
      with_tls("rpc_kept", scenario::Protocol::kWampRpc, 3, 0),
      with_tls("rpc_per_call", scenario::Protocol::kWampRpc, 1002, 0),
  };
  live[1].spec.new_connection_per_request = true;
  live[2].spec.new_connection_per_request = true;
  live[5].spec.wamp.session_per_operation = true;
  store::RunInfo info;
  info.scenario = "stored";
  info.scenario_text = "name = \"stored\"\n";  // defines none of the workloads
  info.testbed.host = "bench-host-1";
  auto id = store_->begin_run(info);
  ASSERT_TRUE(id.ok()) << id.message();
  for (const auto& w : live) ASSERT_TRUE(store_->store_workload(*id, w).ok()) << w.spec.name;
  ASSERT_TRUE(store_->finish_run(*id, "ok", 0).ok());

  const auto resumed_field = [](const results::WorkloadResult& w) {
    const std::string line = result_line("stored", w, "-");
    const size_t at = line.find("|resumed=");
    return line.substr(at + 9, line.find('|', at + 1) - at - 9);
  };
  const auto resumed_line = [](const results::WorkloadResult& w) {
    const std::string table = workload_table(w);
    const size_t at = table.find("  resumed: ");
    return at == std::string::npos ? std::string() : table.substr(at, table.find('\n', at) - at);
  };
  const std::map<std::string, std::string> expected = {
      {"kept", "-"},      {"per_request", "0"}, {"per_request_resuming", "996"},
      {"transfer", "24"}, {"rpc_kept", "-"},    {"rpc_per_call", "0"}};
  const std::map<std::string, std::string> expected_line = {
      {"kept", ""},
      {"per_request", "  resumed: 0 of 1000 TLS handshakes"},
      {"per_request_resuming", "  resumed: 996 of 1000 TLS handshakes"},
      {"transfer", "  resumed: 24 of 28 TLS handshakes"},
      {"rpc_kept", ""},
      {"rpc_per_call", "  resumed: 0 of 2004 TLS handshakes"}};
  for (const char* when : {"as stored", "stored before the rule"}) {
    auto detail = store_->get_run(*id);
    ASSERT_TRUE(detail.ok()) << detail.message();
    const engine::ScenarioResult restored = result_from_store(*detail);
    ASSERT_EQ(restored.workloads.size(), live.size());
    for (size_t i = 0; i < live.size(); ++i) {
      const results::WorkloadResult& w = restored.workloads[i];
      const std::string& name = live[i].spec.name;
      ASSERT_EQ(w.spec.name, name);
      EXPECT_EQ(resumed_field(live[i]), expected.at(name)) << name;
      EXPECT_EQ(resumed_field(w), expected.at(name)) << name << " " << when;
      for (size_t r = 0; r < 2; ++r) {
        EXPECT_EQ(workload_json(w)["repetitions"][r]["connection_setup"]["resumed"],
                  workload_json(live[i])["repetitions"][r]["connection_setup"]["resumed"])
            << name << " " << when;
      }
      EXPECT_EQ(resumed_line(live[i]), expected_line.at(name)) << name;
      EXPECT_EQ(resumed_line(w), expected_line.at(name)) << name << " " << when;
    }
    // As a version that stored every TLS workload's count left them: 0 of the kept ones'.
    ASSERT_TRUE(
        store_->database().exec("UPDATE repetitions SET resumed = 0 WHERE resumed IS NULL").ok());
  }
}

// Each stored workload status reads back as itself, so the HTML report of a run interrupted
// during a workload says "interrupted" where the terminal said INTERRUPTED and the JSON and the
// store `interrupted`, not "failed"; a comparison with that workload says it too.
TEST_F(StoredRun, EachWorkloadStatusReadsBackAsTheLiveRunReportedIt) {
  store::RunInfo info;
  info.scenario = "stored";
  info.scenario_text = "name = \"stored\"\n";
  info.testbed.host = "bench-host-1";
  auto id = store_->begin_run(info);
  ASSERT_TRUE(id.ok()) << id.message();
  std::vector<results::WorkloadResult> live;
  for (auto [variant, status] : {std::pair{"main", results::WorkloadStatus::kOk},
                                 std::pair{"cand", results::WorkloadStatus::kInterrupted},
                                 std::pair{"other", results::WorkloadStatus::kNotConfigured},
                                 std::pair{"late", results::WorkloadStatus::kFailed}}) {
    results::WorkloadResult w = sampled_workload();
    w.variant = variant;
    w.status = status;
    if (status == results::WorkloadStatus::kInterrupted) w.error = "interrupted";
    if (status != results::WorkloadStatus::kOk && status != results::WorkloadStatus::kInterrupted) {
      w.repetitions.clear();
      w.latency = HdrHistogram();
      w.error = status == results::WorkloadStatus::kFailed ? "not run: the run was interrupted"
                                                           : "not_configured: no h2load";
    }
    ASSERT_TRUE(store_->store_workload(*id, w).ok());
    live.push_back(w);
  }
  ASSERT_TRUE(store_->finish_run(*id, "aborted", 130).ok());
  auto detail = store_->get_run(*id);
  ASSERT_TRUE(detail.ok()) << detail.message();
  HtmlRun run;
  run.run = detail->run;
  run.result = result_from_store(*detail);
  EXPECT_TRUE(run.result.interrupted);
  ASSERT_EQ(run.result.workloads.size(), live.size());
  for (size_t i = 0; i < live.size(); ++i) {
    EXPECT_EQ(results::status_name(run.result.workloads[i].status),
              std::string(results::status_name(live[i].status)));
    EXPECT_EQ(run.result.workloads[i].error, live[i].error);
  }
  run.result.variants = {"main", "cand"};
  const std::string html = html_document({run});
  EXPECT_NE(html.find("status <b>interrupted</b>"), std::string::npos) << html;
  EXPECT_NE(html.find("status <b>not_configured</b>"), std::string::npos);
  EXPECT_NE(html.find("status <b>failed</b></p>\n<p class=\"flag\">not run: the run was"),
            std::string::npos);
  EXPECT_NE(html.find("<td class=\"text\">cand / main</td><td>-</td><td>-</td><td>-</td><td>-</td>"
                      "<td>-</td><td class=\"text\">interrupted</td>"),
            std::string::npos)
      << html;
}

// An http2 workload over TLS whose two repetitions set up connections at different speeds,
// and a wamp_rpc workload with worker callees: the terminal's lines under their tables are of
// every repetition merged (connect p50 40us p99 200us, which neither repetition's own p50 and
// p99 give), so the store keeps the setup histograms, not only their p50 and p99 (schema
// version 21), with the TLS, streams and invocations per callee.
results::WorkloadResult h2_over_tls() {
  results::WorkloadResult w = sampled_workload();
  w.spec.name = "h2";
  w.spec.protocol = scenario::Protocol::kHttp2;
  for (auto& rep : w.repetitions) {
    const int64_t slower = rep.index == 0 ? 1 : 5;
    rep.tls = results::NegotiatedTls{"TLSv1.3", "TLS_AES_128_GCM_SHA256", "h2"};
    rep.requested_streams = 100;
    rep.effective_streams = rep.index == 0 ? 64 : 32;
    rep.setup.emplace();
    rep.setup->connections = 4;
    rep.setup->handshakes = 4;
    rep.setup->connect.record_n(40'000 * slower, 4);
    rep.setup->tls_handshake.record_n(300'000 * slower, 4);
    rep.setup->ttfb.record_n(90'000 * slower, 4);
  }
  return w;
}

results::WorkloadResult rpc_with_callees() {
  results::WorkloadResult w = sampled_workload();
  w.spec.name = "rpc";
  w.spec.protocol = scenario::Protocol::kWampRpc;
  for (auto& rep : w.repetitions) {
    rep.session_setup.emplace();
    rep.session_setup->record_n(rep.index == 0 ? 1'000'000 : 3'000'000, 2);
    rep.callee_invocations =
        rep.index == 0 ? std::vector<uint64_t>{400, 600} : std::vector<uint64_t>{500, 500};
  }
  return w;
}

TEST_F(StoredRun, TlsStreamsSetupsAndCalleesAreReadBackAsTheLiveRunHadThem) {
  const results::WorkloadResult live = h2_over_tls();
  const engine::ScenarioResult restored = stored_and_read(live);
  ASSERT_EQ(restored.workloads.size(), 1u);
  const results::WorkloadResult& w = restored.workloads[0];
  ASSERT_EQ(w.repetitions.size(), 2u);
  for (const auto& rep : w.repetitions) {
    ASSERT_TRUE(rep.tls.has_value());
    EXPECT_EQ(rep.tls->version, "TLSv1.3");
    EXPECT_EQ(rep.tls->cipher, "TLS_AES_128_GCM_SHA256");
    EXPECT_EQ(rep.tls->alpn, "h2");
    EXPECT_EQ(rep.requested_streams, 100u);
    ASSERT_TRUE(rep.setup.has_value());
    EXPECT_EQ(rep.setup->connections, 4u);
    EXPECT_EQ(rep.setup->connect.total_count(), 4);
    EXPECT_EQ(rep.setup->tls_handshake.total_count(), 4);
    EXPECT_EQ(rep.setup->ttfb.total_count(), 4);
    EXPECT_TRUE(rep.not_stored.empty());
  }
  EXPECT_EQ(w.repetitions[0].effective_streams, 64u);
  EXPECT_EQ(w.repetitions[1].effective_streams, 32u);
  const auto setup = w.setup();
  ASSERT_TRUE(setup.has_value());
  EXPECT_EQ(setup->connect.value_at_percentile(50), live.setup()->connect.value_at_percentile(50));
  EXPECT_EQ(setup->connect.value_at_percentile(99), live.setup()->connect.value_at_percentile(99));
  EXPECT_EQ(connection_lines(w), connection_lines(live));
  EXPECT_EQ(connection_lines(w),
            "  tls: TLSv1.3 TLS_AES_128_GCM_SHA256, alpn h2 (as the server chose)\n"
            "  streams: 100 per connection asked, 32 effective (the server's "
            "SETTINGS_MAX_CONCURRENT_STREAMS)\n"
            "  connections: 8 set up; connect p50 40us p99 200us; TLS handshake p50 "
            "300us p99 1.5ms; first byte p50 90us p99 450us\n");

  const results::WorkloadResult rpc_live = rpc_with_callees();
  const engine::ScenarioResult rpc = stored_and_read(rpc_live);
  ASSERT_EQ(rpc.workloads.size(), 1u);
  const results::WorkloadResult& r = rpc.workloads[0];
  ASSERT_EQ(r.repetitions.size(), 2u);
  EXPECT_EQ(r.repetitions[0].callee_invocations, (std::vector<uint64_t>{400, 600}));
  EXPECT_EQ(r.repetitions[1].callee_invocations, (std::vector<uint64_t>{500, 500}));
  ASSERT_TRUE(r.session_setup().has_value());
  EXPECT_EQ(r.session_setup()->total_count(), 4);
  EXPECT_EQ(session_setup_line(r), session_setup_line(rpc_live));
  EXPECT_EQ(session_setup_line(r), "  sessions: 4 set up; connect to WELCOME p50 1ms p99 3ms\n");
  EXPECT_EQ(callee_line(r), callee_line(rpc_live));
  EXPECT_EQ(callee_line(r),
            "  callees: 2 session(s) (invoke single), 2000 invocations; per session, by "
            "repetition: 400-600, 500-500\n");
}

// docs/REPORTS.md: the HTML report shows the terminal's lines under a workload's table, read
// from the stored run, with the figures the terminal printed.
TEST_F(StoredRun, TheHtmlReportHasTheTerminalsTlsSetupAndCalleeLinesWithTheirFigures) {
  HtmlRun run;
  run.result = stored_and_read(h2_over_tls());
  const engine::ScenarioResult rpc = stored_and_read(rpc_with_callees());
  run.result.workloads.push_back(rpc.workloads.at(0));
  const std::string html = html_document({run});
  for (const std::string& line :
       {connection_lines(h2_over_tls()), session_setup_line(rpc_with_callees()),
        callee_line(rpc_with_callees())}) {
    for (std::string_view one : text_lines(line)) {
      const std::string text(one.substr(2));  // without the terminal's indent
      ASSERT_FALSE(text.empty());
      EXPECT_NE(html.find("<p class=\"detail\">" + escape(text) + "</p>"), std::string::npos)
          << text << "\n"
          << html;
    }
  }
  EXPECT_EQ(html.find("p50 - p99 -"), std::string::npos) << html;
}

// A run stored before schema version 21 kept each repetition's setup p50 and p99, not the
// histograms the workload's figures are of: its reports say the figures are not stored, never
// "p50 - p99 -" as if nothing had been measured.
TEST_F(StoredRun, SetupFiguresOfARunStoredBeforeTheHistogramsWereAreSaidNotStored) {
  const int64_t h2 = stored_run(h2_over_tls());
  const int64_t rpc = stored_run(rpc_with_callees());
  ASSERT_TRUE(store_->database()
                  .exec("UPDATE repetitions SET connect_hdr = NULL, tls_handshake_hdr = NULL, "
                        "ttfb_hdr = NULL, session_setup_hdr = NULL")
                  .ok());
  HtmlRun run;
  run.result = result_from_store(*store_->get_run(h2));
  const results::WorkloadResult& w = run.result.workloads.at(0);
  const std::string connections =
      "connections: 8 set up; connect, TLS handshake and first byte percentiles not stored (a "
      "run stored before schema version 21 kept each repetition's p50 and p99 only)";
  EXPECT_NE(connection_lines(w).find("  " + connections + "\n"), std::string::npos)
      << connection_lines(w);
  // What was stored is read back as before: the TLS and streams lines are the live run's.
  EXPECT_NE(connection_lines(w).find("  tls: TLSv1.3 TLS_AES_128_GCM_SHA256, alpn h2"),
            std::string::npos);
  const engine::ScenarioResult sessions = result_from_store(*store_->get_run(rpc));
  const std::string session =
      "sessions: 4 set up; connect to WELCOME percentiles not stored (a run stored before schema "
      "version 21 kept each repetition's p50 and p99 only)";
  EXPECT_EQ(session_setup_line(sessions.workloads.at(0)), "  " + session + "\n");
  run.result.workloads.push_back(sessions.workloads.at(0));
  const std::string html = html_document({run});
  EXPECT_NE(html.find("<p class=\"detail\">" + escape(connections) + "</p>"), std::string::npos)
      << html;
  EXPECT_NE(html.find("<p class=\"detail\">" + escape(session) + "</p>"), std::string::npos);
  EXPECT_EQ(html.find("p50 - p99 -"), std::string::npos) << html;
}

// A wamp_rpc workload whose router ended three sessions in its first window (two ABORTs of
// worker 0, a GOODBYE of worker 1), on workers that answered Describe as kv-worker 1.2.
results::WorkloadResult rpc_with_session_ends() {
  results::WorkloadResult w = rpc_with_callees();
  w.worker_name = "kv-worker";
  w.worker_version = "1.2";
  w.repetitions[0].errors["protocol"] = 3;
  w.repetitions[0].sessions_ended = {
      {0, "ABORT wamp.close.system_shutdown: going down\\n\\x1b[31m", 2},
      {1, "GOODBYE wamp.close.close_realm", 1}};
  return w;
}

// Schema version 22: the sessions the router ended are stored, so that the reports built from
// the store (`report RUN`, the HTML of `run --html`, the JSON of a stored run) say why, as the
// live run's terminal and JSON did; and the workers' Describe name and version are shown beside
// the binaries.
TEST_F(StoredRun, SessionsTheRouterEndedAndTheWorkersDescribeAreReadBackAsTheLiveRunHadThem) {
  const results::WorkloadResult live = rpc_with_session_ends();
  const engine::ScenarioResult restored = stored_and_read(live);
  ASSERT_EQ(restored.workloads.size(), 1u);
  const results::WorkloadResult& w = restored.workloads[0];
  ASSERT_EQ(w.repetitions.size(), 2u);
  EXPECT_EQ(w.repetitions[0].sessions_ended, live.repetitions[0].sessions_ended);
  EXPECT_TRUE(w.repetitions[1].sessions_ended.empty());
  EXPECT_TRUE(w.repetitions[0].not_stored.empty());
  const std::string lines =
      "  sessions the router ended during the window (counted as protocol errors: one per "
      "operation outstanding, one where none was):\n"
      "    rep 1 worker 0: 2 sessions ABORT wamp.close.system_shutdown: going down\\n\\x1b[31m\n"
      "    rep 1 worker 1: 1 session GOODBYE wamp.close.close_realm\n";
  EXPECT_EQ(sessions_ended_lines(live), lines);
  EXPECT_EQ(sessions_ended_lines(w), lines);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(workload_json(w)["repetitions"][i]["sessions_ended"],
              workload_json(live)["repetitions"][i]["sessions_ended"]);
  }
  EXPECT_EQ(w.worker_name, "kv-worker");
  EXPECT_EQ(w.worker_version, "1.2");
  EXPECT_EQ(workload_json(w)["worker_name"], "kv-worker");
  EXPECT_EQ(workload_json(w)["worker_version"], "1.2");
  EXPECT_EQ(described_workers(restored.workloads),
            std::vector<std::string>{"kv-worker, version 1.2 (every workload)"});

  ScenarioReport report;
  report.result = restored;
  EXPECT_NE(markdown_summary({report}).find("- workers: kv-worker, version 1.2 (every workload)\n"),
            std::string::npos)
      << markdown_summary({report});

  HtmlRun run;
  run.result = restored;
  const std::string html = html_document({run});
  for (std::string_view one : text_lines(lines)) {
    const std::string text(one.substr(one.find_first_not_of(' ')));
    EXPECT_NE(html.find("<p class=\"detail\">" + escape(text) + "</p>"), std::string::npos)
        << text << "\n"
        << html;
  }
  EXPECT_NE(html.find("<tr><th class=\"text\">workers</th><td class=\"text\">kv-worker, version "
                      "1.2 (every workload)</td></tr>"),
            std::string::npos)
      << html;
}

// A run stored before schema version 22 kept its protocol errors but not why the router ended
// sessions, nor its workers' Describe: its reports say the reasons are not stored, and name no
// worker.
TEST_F(StoredRun, SessionsEndedOfARunStoredBeforeTheyWereAreSaidNotStored) {
  const int64_t id = stored_run(rpc_with_session_ends());
  ASSERT_TRUE(store_->database()
                  .exec("UPDATE repetitions SET sessions_ended = NULL; UPDATE workloads SET "
                        "worker_name = NULL, worker_version = NULL")
                  .ok());
  HtmlRun run;
  run.result = result_from_store(*store_->get_run(id));
  const results::WorkloadResult& w = run.result.workloads.at(0);
  EXPECT_TRUE(w.repetitions.at(0).sessions_ended.empty());
  const std::string line =
      "sessions the router ended during the window: not stored (a run stored before schema "
      "version 22; some of its protocol errors may be such ends)";
  EXPECT_EQ(sessions_ended_lines(w), "  " + line + "\n");
  EXPECT_TRUE(described_workers(run.result.workloads).empty());
  const std::string html = html_document({run});
  EXPECT_NE(html.find("<p class=\"detail\">" + escape(line) + "</p>"), std::string::npos) << html;
  EXPECT_EQ(html.find("<th class=\"text\">workers</th>"), std::string::npos) << html;
  // A window without protocol errors had no session to end: nothing to say of it.
  ASSERT_TRUE(store_->database().exec("UPDATE repetitions SET errors_by_kind = '{}'").ok());
  EXPECT_EQ(sessions_ended_lines(result_from_store(*store_->get_run(id)).workloads.at(0)), "");
}

// A sweep's workloads, stored, are its sweep again when the run's scenario text does not load
// here (a `${env:NAME}` unset; here a text that defines none of them): every stored-run report
// (HTML, `gate RUN`'s outputs) fits the model the live run printed. A run stored before schema
// version 26 kept no sweep, and its text gives none: no sweep, no invented one.
TEST_F(StoredRun, ASweepsWorkloadsAreItsSweepAgainWithoutTheScenarioText) {
  store::RunInfo info;
  info.scenario = "stored";
  info.scenario_text = "name = \"stored\"\n";  // defines none of the workloads
  info.testbed.host = "bench-host-1";
  auto id = store_->begin_run(info);
  ASSERT_TRUE(id.ok()) << id.message();
  engine::ScenarioResult live;
  live.scenario = "stored";
  for (const uint64_t n : {64, 4096, 65536}) {
    results::WorkloadResult w = sampled_workload();
    w.spec.name = "echo@request_bytes=" + std::to_string(n);
    w.variant = "default";
    w.spec.sweep_of = "echo";
    w.spec.sweep_parameter = "request_bytes";
    w.spec.sweep_value = n;
    // A cost growing with n, so that the fit and the exponent are figures.
    w.latency = HdrHistogram();
    for (auto& rep : w.repetitions) {
      rep.latency = HdrHistogram();
      rep.latency.record_n(static_cast<int64_t>(20'000 + n * 10), 1000);
      w.latency.add(rep.latency);
    }
    ASSERT_TRUE(store_->store_workload(*id, w).ok()) << w.spec.name;
    live.workloads.push_back(std::move(w));
  }
  ASSERT_TRUE(store_->finish_run(*id, "ok", 0).ok());
  const auto live_sweeps = sweeps(live);
  ASSERT_EQ(live_sweeps.size(), 1u);

  const engine::ScenarioResult restored = result_from_store(*store_->get_run(*id));
  ASSERT_EQ(restored.workloads.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(restored.workloads[i].spec.sweep_of, live.workloads[i].spec.sweep_of);
    EXPECT_EQ(restored.workloads[i].spec.sweep_parameter, live.workloads[i].spec.sweep_parameter);
    EXPECT_EQ(restored.workloads[i].spec.sweep_value, live.workloads[i].spec.sweep_value);
  }
  const auto restored_sweeps = sweeps(restored);
  ASSERT_EQ(restored_sweeps.size(), 1u);
  EXPECT_EQ(restored_sweeps[0].n, (std::vector<double>{64, 4096, 65536}));
  EXPECT_EQ(sweep_line("stored", restored_sweeps[0]), sweep_line("stored", live_sweeps[0]));
  HtmlRun run;
  run.result = restored;
  EXPECT_NE(html_document({run}).find("data-chart=\"sweep\""), std::string::npos);

  ASSERT_TRUE(store_->database()
                  .exec("UPDATE workloads SET sweep_of = NULL, sweep_parameter = NULL, "
                        "sweep_value = NULL")
                  .ok());
  const engine::ScenarioResult before = result_from_store(*store_->get_run(*id));
  EXPECT_TRUE(sweeps(before).empty());
}

}  // namespace
}  // namespace benchgate::report
