// A stored run reads back with every figure; labels are data, never SQL.
#include <gtest/gtest.h>

#include <limits>

#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/workload_params.h"
#include "store_test_support.h"

namespace benchgate::store {
namespace {

using testing::TempDir;

class StoreRoundTrip : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Store::open(dir_.file("bench.db"));
    ASSERT_TRUE(s.ok()) << s.message();
    store_ = std::move(*s);
  }
  TempDir dir_;
  std::unique_ptr<Store> store_;
};

// Which binaries a run measured (schema version 19) read back in the order stored, a figure
// not read (no build-id, no file) as nothing; a run that recorded none reads back none.
TEST_F(StoreRoundTrip, TheBinariesARunMeasuredReadBackAsStored) {
  RunInfo info = testing::test_run_info();
  info.binaries = {
      {"router", "/opt/candidate/router", "--router-bin",
       "5f1e2d3c4b5a69788796a5b4c3d2e1f0a1b2c3d4", std::nullopt},
      {"worker", "/usr/lib/benchgate/worker", "next to the orchestrator", std::nullopt,
       "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"command", "/srv/system", "command", std::nullopt, std::nullopt},
  };
  auto run = store_->begin_run(info);
  ASSERT_TRUE(run.ok()) << run.message();
  auto detail = store_->get_run(*run);
  ASSERT_TRUE(detail.ok()) << detail.message();
  EXPECT_EQ(detail->binaries, info.binaries);

  auto bare = store_->begin_run(testing::test_run_info());
  ASSERT_TRUE(bare.ok()) << bare.message();
  auto none = store_->get_run(*bare);
  ASSERT_TRUE(none.ok()) << none.message();
  EXPECT_TRUE(none->binaries.empty());
}

TEST_F(StoreRoundTrip, AStoredRunReadsBackWithEveryFigureAndADecodableHistogram) {
  RunInfo info = testing::test_run_info();
  auto run = store_->begin_run(info);
  ASSERT_TRUE(run.ok()) << run.message();
  results::WorkloadResult workload = testing::test_workload("http_hello", 3);
  workload.repetitions[1].service_time = HdrHistogram();
  workload.repetitions[1].service_time->record(777);
  ASSERT_TRUE(store_->store_workload(*run, workload).ok());
  ASSERT_TRUE(store_->finish_run(*run, "ok", 0).ok());

  auto detail = store_->get_run(*run);
  ASSERT_TRUE(detail.ok()) << detail.message();
  EXPECT_EQ(detail->run.id, *run);
  EXPECT_EQ(detail->run.scenario, "quickstart");
  EXPECT_EQ(detail->run.status, "ok");
  ASSERT_TRUE(detail->run.exit_code.has_value());
  EXPECT_EQ(*detail->run.exit_code, 0);
  EXPECT_TRUE(detail->run.finished_at_ns.has_value());
  EXPECT_EQ(detail->run.commit, info.commit);
  EXPECT_EQ(detail->run.branch, "main");
  EXPECT_EQ(detail->run.labels, info.labels);
  EXPECT_EQ(detail->scenario_text, info.scenario_text);
  EXPECT_EQ(detail->scenario_hash.size(), 64u);
  EXPECT_EQ(detail->testbed.host, info.testbed.host);
  EXPECT_EQ(detail->testbed.fingerprint(), info.testbed.fingerprint());

  ASSERT_EQ(detail->workloads.size(), 1u);
  const StoredWorkload& w = detail->workloads[0];
  EXPECT_EQ(w.name, "http_hello");
  EXPECT_EQ(w.variant, "default");
  EXPECT_EQ(w.protocol, "http1");
  EXPECT_EQ(w.status, "ok");
  EXPECT_EQ(w.params_json, workload_params_json(workload.spec));
  EXPECT_EQ(w.params_hash, workload_params_hash(workload.spec));
  ASSERT_EQ(w.repetitions.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const results::Repetition& in = workload.repetitions[i];
    const StoredRepetition& out = w.repetitions[i];
    EXPECT_EQ(out.index, in.index);
    EXPECT_EQ(out.start_ns, in.start_unix_ns);
    EXPECT_EQ(out.duration_ns, in.duration_ns);
    EXPECT_EQ(out.data_window_ns, in.data_window_ns);
    EXPECT_EQ(out.operations, in.operations);
    EXPECT_EQ(out.successes, in.successes);
    EXPECT_EQ(out.errors_total, 5u);
    EXPECT_EQ(out.errors, in.errors);
    EXPECT_EQ(out.bytes_sent, in.bytes_sent);
    EXPECT_EQ(out.bytes_received, in.bytes_received);
    EXPECT_EQ(out.late_sends, in.late_sends);
    EXPECT_EQ(out.unsent, in.unsent);
    // Throughput by the window (docs/MEASUREMENT.md "Throughput").
    const double seconds = static_cast<double>(in.duration_ns) / 1e9;
    EXPECT_DOUBLE_EQ(out.ops_per_s, static_cast<double>(in.window_successes) / seconds);
    ASSERT_TRUE(out.bytes_per_s.has_value());
    EXPECT_DOUBLE_EQ(*out.bytes_per_s, static_cast<double>(in.window_bytes_received) / seconds);
    EXPECT_EQ(out.window_successes, in.window_successes);
    ASSERT_TRUE(out.payload_bytes_per_s.has_value());
    EXPECT_DOUBLE_EQ(*out.payload_bytes_per_s,
                     static_cast<double>(in.window_payload_bytes) / seconds);
    EXPECT_EQ(out.start_skew_ns, -1'500'000);
    EXPECT_EQ(out.worker_cpu_wait_share, 0.03);
    EXPECT_EQ(out.latency_clamped, 2u);
    EXPECT_EQ(out.p50_ns, in.latency.value_at_percentile(50));
    EXPECT_EQ(out.p75_ns, in.latency.value_at_percentile(75));
    EXPECT_EQ(out.p90_ns, in.latency.value_at_percentile(90));
    EXPECT_EQ(out.p95_ns, in.latency.value_at_percentile(95));
    EXPECT_EQ(out.p99_ns, in.latency.value_at_percentile(99));
    EXPECT_EQ(out.p999_ns, in.latency.value_at_percentile(99.9));
    EXPECT_EQ(out.max_ns, in.latency.max());
    ASSERT_TRUE(out.mean_ns.has_value());
    EXPECT_DOUBLE_EQ(*out.mean_ns, in.latency.mean());
    ASSERT_TRUE(out.worker_cpu_s.has_value() && out.worker_cpu_utilization.has_value());
    EXPECT_DOUBLE_EQ(*out.worker_cpu_s, in.worker_cpu_seconds);
    EXPECT_DOUBLE_EQ(*out.worker_cpu_utilization, in.worker_cpu_utilization);
    EXPECT_TRUE(out.router_collected);
    EXPECT_EQ(out.router_requests, in.router.requests);
    EXPECT_DOUBLE_EQ(out.router_cpu_s, in.router.cpu_seconds);
    EXPECT_EQ(out.router_rss_bytes, in.router.rss_bytes);
    EXPECT_EQ(out.router_metrics, in.router.counter_deltas);
    EXPECT_EQ(out.flags, in.flags);

    auto decoded = HdrHistogram::decode(out.latency_hdr);
    ASSERT_TRUE(decoded.ok()) << decoded.message();
    EXPECT_EQ(decoded->total_count(), in.latency.total_count());
    EXPECT_EQ(decoded->value_at_percentile(99), in.latency.value_at_percentile(99));
    EXPECT_EQ(decoded->max(), in.latency.max());
  }
  ASSERT_TRUE(w.repetitions[1].service_time_hdr.has_value());
  auto service = HdrHistogram::decode(*w.repetitions[1].service_time_hdr);
  ASSERT_TRUE(service.ok());
  EXPECT_EQ(service->total_count(), 1);
  EXPECT_FALSE(w.repetitions[0].service_time_hdr.has_value());
}

TEST_F(StoreRoundTrip, AnEmptyHistogramStoresNoPercentilesRatherThanZero) {
  auto run = store_->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok());
  results::WorkloadResult workload = testing::test_workload("http_hello", 1);
  workload.repetitions[0].latency.reset();
  workload.repetitions[0].router = {};
  ASSERT_TRUE(store_->store_workload(*run, workload).ok());
  auto detail = store_->get_run(*run);
  ASSERT_TRUE(detail.ok());
  const StoredRepetition& r = detail->workloads[0].repetitions[0];
  EXPECT_FALSE(r.p99_ns.has_value());
  EXPECT_FALSE(r.mean_ns.has_value());
  EXPECT_FALSE(r.router_collected);
  EXPECT_TRUE(r.router_metrics.empty());
  auto p99 = store_->run_metric_values(*run, "http_hello", "default", "latency.p99");
  ASSERT_TRUE(p99.ok()) << p99.message();
  EXPECT_FALSE(p99->has_value());
  auto rss = store_->run_metric_values(*run, "http_hello", "default", "router.rss_bytes");
  ASSERT_TRUE(rss.ok());
  EXPECT_FALSE(rss->has_value());
}

TEST_F(StoreRoundTrip, StoredMetricValuesEqualTheValuesComputedInMemory) {
  auto run = store_->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok());
  const results::WorkloadResult workload = testing::test_workload("http_hello", 4, 11);
  ASSERT_TRUE(store_->store_workload(*run, workload).ok());
  for (const char* metric :
       {"throughput.rps", "throughput.bytes_per_s", "latency.p50", "latency.p75", "latency.p90",
        "latency.p95", "latency.p99", "latency.p999", "latency.max", "latency.mean", "errors.count",
        "errors.rate", "router.cpu_per_request", "router.rss_bytes", "worker.cpu_utilization"}) {
    const auto expected = results::metric_values(workload, metric);
    auto stored = store_->run_metric_values(*run, "http_hello", "default", metric);
    ASSERT_TRUE(stored.ok()) << metric << ": " << stored.message();
    ASSERT_EQ(stored->has_value(), expected.has_value()) << metric;
    EXPECT_EQ(**stored, *expected) << metric;
  }
}

// A workload that keeps its connections and sessions sets them up before its first window:
// the later repetitions have no setup of their own. In memory they are skipped (the metric is
// not collected only when no repetition has it, or a worker did not report setups); read back
// from the store, the values are the same, so a stored run is judged as it was live.
TEST_F(StoreRoundTrip, ARepetitionThatSetUpNothingIsSkippedInStoreAsInMemory) {
  auto with_setups = [](std::vector<int> connections) {
    results::WorkloadResult w = testing::test_workload("http_hello", 3);
    for (size_t i = 0; i < w.repetitions.size(); ++i) {
      results::Repetition& rep = w.repetitions[i];
      if (connections[i] < 0) continue;  // not reported
      rep.setup.emplace();
      rep.session_setup.emplace();
      rep.setup->connections = static_cast<uint64_t>(connections[i]);
      rep.setup->handshakes = static_cast<uint64_t>(connections[i]);
      for (int c = 0; c < connections[i]; ++c) {
        rep.setup->connect.record(40'000 + 1'000 * c + static_cast<int64_t>(i));
        rep.setup->tls_handshake.record(900'000 + 1'000 * c);
        rep.setup->ttfb.record(150'000 + 1'000 * c);
        rep.session_setup->record(300'000 + 1'000 * c);
      }
    }
    return w;
  };
  struct Case {
    std::vector<int> connections;
    size_t values;  // 0: not collected
  };
  const Case cases[] = {{{3, 0, 0}, 1}, {{0, 2, 0}, 1},  {{3, 0, 2}, 2},
                        {{0, 0, 0}, 0}, {{3, -1, 0}, 0}, {{3, 3, 3}, 3}};
  int n = 0;
  for (const Case& c : cases) {
    auto run = store_->begin_run(testing::test_run_info());
    ASSERT_TRUE(run.ok());
    const std::string name = "kept_" + std::to_string(n++);
    results::WorkloadResult workload = with_setups(c.connections);
    workload.spec.name = name;
    ASSERT_TRUE(store_->store_workload(*run, workload).ok());
    for (const char* metric :
         {"connect.p99", "tls_handshake.p99", "ttfb.p99", "session_setup.p99"}) {
      const auto expected = results::metric_values(workload, metric);
      ASSERT_EQ(expected ? expected->size() : 0u, c.values) << name << " " << metric;
      auto stored = store_->run_metric_values(*run, name, "default", metric);
      ASSERT_TRUE(stored.ok()) << metric << ": " << stored.message();
      ASSERT_EQ(stored->has_value(), expected.has_value()) << name << " " << metric;
      if (expected) {
        EXPECT_EQ(**stored, *expected) << name << " " << metric;
      }
    }
  }
}

// repetitions.resumed follows results::resumed_handshakes, the rule of the RESULT line and the
// JSON report (docs/MEASUREMENT.md "Handshakes per second"): a count, 0 included, where the
// workload reconnects per operation over TLS (new_connection_per_request, wamp_transfer, wamp_rpc
// with session_per_operation), NULL where it keeps its connections, though their handshakes are
// stored, and NULL for cleartext.
TEST_F(StoreRoundTrip, ResumedIsStoredOnlyWhereTheWorkloadReconnectsPerOperationOverTls) {
  auto run = store_->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok()) << run.message();
  auto with_setup = [](const std::string& name, scenario::Protocol protocol, uint64_t handshakes,
                       uint64_t resumed) {
    results::WorkloadResult w = testing::test_workload(name, 1);
    w.spec.protocol = protocol;
    w.spec.tls.enabled = handshakes > 0;
    auto& setup = w.repetitions.front().setup.emplace();
    setup.connections = scenario::is_http(protocol) ? handshakes : 0;
    setup.handshakes = handshakes;
    setup.resumed = resumed;
    return w;
  };
  std::vector<results::WorkloadResult> workloads = {
      with_setup("kept_https", scenario::Protocol::kHttp1, 32, 0),
      with_setup("per_request", scenario::Protocol::kHttp2, 500, 0),
      with_setup("per_request_resuming", scenario::Protocol::kHttp1, 500, 468),
      with_setup("transfer", scenario::Protocol::kWampTransfer, 14, 12),
      with_setup("rpc_kept", scenario::Protocol::kWampRpc, 3, 0),
      with_setup("rpc_per_call", scenario::Protocol::kWampRpc, 1002, 0),
      with_setup("cleartext_per_request", scenario::Protocol::kHttp1, 0, 0),
  };
  workloads[1].spec.new_connection_per_request = true;
  workloads[2].spec.new_connection_per_request = true;
  workloads[5].spec.wamp.session_per_operation = true;
  workloads[6].spec.new_connection_per_request = true;
  for (const auto& w : workloads) ASSERT_TRUE(store_->store_workload(*run, w).ok()) << w.spec.name;
  ASSERT_TRUE(store_->finish_run(*run, "ok", 0).ok());

  auto detail = store_->get_run(*run);
  ASSERT_TRUE(detail.ok()) << detail.message();
  std::map<std::string, std::pair<std::optional<uint64_t>, std::optional<uint64_t>>> stored;
  for (const auto& w : detail->workloads) {
    ASSERT_EQ(w.repetitions.size(), 1u) << w.name;
    stored[w.name] = {w.repetitions[0].handshakes, w.repetitions[0].resumed};
  }
  using Row = std::pair<std::optional<uint64_t>, std::optional<uint64_t>>;
  EXPECT_EQ(stored["kept_https"], Row(32, std::nullopt));
  EXPECT_EQ(stored["per_request"], Row(500, 0));
  EXPECT_EQ(stored["per_request_resuming"], Row(500, 468));
  EXPECT_EQ(stored["transfer"], Row(14, 12));
  EXPECT_EQ(stored["rpc_kept"], Row(3, std::nullopt));
  EXPECT_EQ(stored["rpc_per_call"], Row(1002, 0));
  EXPECT_EQ(stored["cleartext_per_request"], Row(0, std::nullopt));
  // The column itself: NULL, not 0, for the three that measured no resumption.
  auto nulls = store_->database().prepare(
      "SELECT COUNT(*) FROM repetitions WHERE resumed IS NULL AND handshakes IS NOT NULL");
  ASSERT_TRUE(nulls.ok()) << nulls.message();
  auto row = nulls->step();
  ASSERT_TRUE(row.ok() && *row);
  EXPECT_EQ(nulls->int64(0), 3);
}

TEST_F(StoreRoundTrip, ACommandsTreeCpuAndRssAreStoredWithoutRequestCounts) {
  // A `command` system under test: CPU and RSS read from /proc, no request counters. The
  // per-request figure is over the workers' operations, in memory and in SQL alike.
  auto run = store_->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok());
  results::WorkloadResult workload = testing::test_workload("http_hello", 2);
  for (auto& rep : workload.repetitions) {
    rep.router = {};
    rep.router.sampled = true;
    rep.router.cpu_seconds = 0.5;
    rep.router.rss_bytes = 4096;
  }
  ASSERT_TRUE(store_->store_workload(*run, workload).ok());
  auto detail = store_->get_run(*run);
  ASSERT_TRUE(detail.ok());
  const StoredRepetition& r = detail->workloads[0].repetitions[0];
  EXPECT_FALSE(r.router_collected);
  EXPECT_TRUE(r.router_sampled);
  EXPECT_DOUBLE_EQ(r.router_cpu_s, 0.5);
  EXPECT_EQ(r.router_rss_bytes, 4096u);
  for (const char* metric : {"router.cpu_per_request", "router.rss_bytes"}) {
    const auto expected = results::metric_values(workload, metric);
    ASSERT_TRUE(expected.has_value()) << metric;
    auto stored = store_->run_metric_values(*run, "http_hello", "default", metric);
    ASSERT_TRUE(stored.ok()) << metric << ": " << stored.message();
    ASSERT_TRUE(stored->has_value()) << metric;
    EXPECT_EQ(**stored, *expected) << metric;
  }
  EXPECT_DOUBLE_EQ((*results::metric_values(workload, "router.cpu_per_request"))[0],
                   0.5 / static_cast<double>(workload.repetitions[0].operations));
}

TEST_F(StoreRoundTrip, UnknownWorkloadOrMetricIsAnError) {
  auto run = store_->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok());
  ASSERT_TRUE(store_->store_workload(*run, testing::test_workload()).ok());
  EXPECT_FALSE(store_->run_metric_values(*run, "nope", "default", "latency.p99").ok());
  auto bad = store_->run_metric_values(*run, "http_hello", "default", "latency.p98");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("unknown metric"), std::string::npos);
}

TEST_F(StoreRoundTrip, ALabelContainingSqlReadsBackUnchangedAndDropsNothing) {
  RunInfo info = testing::test_run_info();
  const std::string evil = "x'); DROP TABLE runs; --";
  info.labels = {{evil, evil}, {"quote\"key", "back\\slash"}};
  info.commit = evil;
  info.branch = evil;
  auto run = store_->begin_run(info);
  ASSERT_TRUE(run.ok()) << run.message();
  auto workload = testing::test_workload(evil, 1);
  workload.variant = evil;
  ASSERT_TRUE(store_->store_workload(*run, workload).ok());
  ASSERT_TRUE(store_->finish_run(*run, "ok", 0).ok());
  ASSERT_TRUE(store_->add_baseline("main", *run).ok());
  EXPECT_FALSE(store_->add_baseline(evil, *run).ok());

  auto runs = store_->list_runs(10, "quickstart");
  ASSERT_TRUE(runs.ok()) << runs.message();
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].labels, info.labels);
  EXPECT_EQ((*runs)[0].commit, evil);
  EXPECT_EQ((*runs)[0].branch, evil);
  auto detail = store_->get_run(*run);
  ASSERT_TRUE(detail.ok());
  EXPECT_EQ(detail->workloads[0].name, evil);
  EXPECT_EQ(detail->workloads[0].variant, evil);
  auto values = store_->run_metric_values(*run, evil, evil, "throughput.rps");
  ASSERT_TRUE(values.ok()) << values.message();
  EXPECT_TRUE(values->has_value());
}

TEST_F(StoreRoundTrip, ListRunsIsNewestFirstAndFiltersByScenario) {
  for (const char* name : {"a", "b", "a"}) {
    ASSERT_TRUE(store_->begin_run(testing::test_run_info(name)).ok());
  }
  auto all = store_->list_runs(10);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 3u);
  EXPECT_GT((*all)[0].id, (*all)[1].id);
  auto only_a = store_->list_runs(10, "a");
  ASSERT_TRUE(only_a.ok());
  EXPECT_EQ(only_a->size(), 2u);
  auto one = store_->list_runs(1);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->size(), 1u);
}

TEST_F(StoreRoundTrip, FinishRunAcceptsOnlyFinalStatusesOfRunningRuns) {
  auto run = store_->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok());
  EXPECT_FALSE(store_->finish_run(*run, "running", 0).ok());
  EXPECT_FALSE(store_->finish_run(*run + 100, "ok", 0).ok());
  ASSERT_TRUE(store_->finish_run(*run, "failed", 3).ok());
  auto again = store_->finish_run(*run, "ok", 0);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.message().find("not running"), std::string::npos) << again.message();
  EXPECT_FALSE(store_->store_workload(*run, testing::test_workload()).ok());
}

TEST_F(StoreRoundTrip, GateResultsKeepEveryInputAndEachEvaluationSeparately) {
  auto run = store_->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok());
  GateRecord g;
  g.gate_index = 1;
  g.workload = "http_hello";
  g.metric = "throughput.rps";
  g.kind = "relative";
  g.threshold = 0.05;
  g.observed = 1234.5;
  g.baseline = "main";
  g.baseline_runs = {7, 8, 9};
  g.baseline_centre = 1300.0;
  g.effect = 0.051;
  g.p_value = 0.004;
  g.alpha = 0.01;
  g.method = "t";
  g.verdict = "fail";
  g.severity = "critical";
  g.explanation = "throughput fell 5.1% (p = 0.004)";
  ASSERT_TRUE(store_->store_gate_results(*run, {g}).ok());
  auto first = store_->gate_results(*run);
  ASSERT_TRUE(first.ok()) << first.message();
  ASSERT_EQ(first->size(), 1u);
  const GateRecord& r = (*first)[0];
  EXPECT_EQ(r.gate_index, 1);
  EXPECT_EQ(r.baseline_runs, g.baseline_runs);
  EXPECT_EQ(r.threshold, g.threshold);
  EXPECT_EQ(r.observed, g.observed);
  EXPECT_EQ(r.baseline_centre, g.baseline_centre);
  EXPECT_EQ(r.effect, g.effect);
  EXPECT_EQ(r.p_value, g.p_value);
  EXPECT_EQ(r.alpha, g.alpha);
  EXPECT_EQ(r.method, "t");
  EXPECT_EQ(r.verdict, "fail");
  EXPECT_EQ(r.explanation, g.explanation);

  g.verdict = "pass";
  g.p_value.reset();
  ASSERT_TRUE(store_->store_gate_results(*run, {g}).ok());
  auto second = store_->gate_results(*run);
  ASSERT_TRUE(second.ok());
  ASSERT_EQ(second->size(), 1u);
  EXPECT_EQ((*second)[0].verdict, "pass");
  EXPECT_FALSE((*second)[0].p_value.has_value());

  g.verdict = "maybe";
  EXPECT_FALSE(store_->store_gate_results(*run, {g}).ok());
  EXPECT_FALSE(store_->store_gate_results(*run + 100, {}).ok());
}

// A workload's errors summed over its repetitions stop at their cap (results::saturated_sum)
// rather than wrap: two repetitions of 2^63 errors stored 0 in workloads.errors_total; now the
// column's largest, 2^63 - 1, as every count the store writes stops there. The kinds keep each
// repetition's count whole.
TEST_F(StoreRoundTrip, AWorkloadsErrorsSummedOverRepetitionsDoNotWrap) {
  constexpr uint64_t kHalf = uint64_t{1} << 63;
  auto run = store_->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok()) << run.message();
  results::WorkloadResult workload = testing::test_workload("http_hello", 2);
  for (auto& rep : workload.repetitions) rep.errors = {{"status", kHalf}};
  ASSERT_TRUE(store_->store_workload(*run, workload).ok());
  auto detail = store_->get_run(*run);
  ASSERT_TRUE(detail.ok()) << detail.message();
  const StoredWorkload& w = detail->workloads.at(0);
  EXPECT_EQ(w.errors_total, static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
  ASSERT_EQ(w.repetitions.size(), 2u);
  EXPECT_EQ(w.repetitions[1].errors.at("status"), kHalf);
}

}  // namespace
}  // namespace benchgate::store

namespace benchgate::store {
namespace {

TEST(StoreTimeline, SecondsAndWorkerSharesReadBackPerRepetition) {
  testing::TempDir dir;
  auto store = Store::open(dir.file("bench.db"));
  ASSERT_TRUE(store.ok()) << store.message();
  auto run = (*store)->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok());
  results::WorkloadResult workload = testing::test_workload("http_hello", 2);
  workload.repetitions[1].timeline = {{0, 1999.5, 3, 20'000, 41'000, 90'000},
                                      {1, 2100, 0, std::nullopt, std::nullopt, std::nullopt}};
  workload.repetitions[1].workers = {
      {0, 900, 900, 0, 1800.5, 41'000, 90'000, 0.25},
      {1, 2100, 2097, 3, 4194.0, std::nullopt, std::nullopt, std::nullopt}};
  ASSERT_TRUE((*store)->store_workload(*run, workload).ok());
  auto detail = (*store)->get_run(*run);
  ASSERT_TRUE(detail.ok()) << detail.message();
  const auto& reps = detail->workloads.at(0).repetitions;
  EXPECT_TRUE(reps[0].timeline.empty());
  EXPECT_TRUE(reps[0].workers.empty());
  ASSERT_EQ(reps[1].timeline.size(), 2u);
  EXPECT_EQ(reps[1].timeline[0].second, 0u);
  EXPECT_DOUBLE_EQ(reps[1].timeline[0].ops_per_s, 1999.5);
  EXPECT_EQ(reps[1].timeline[0].errors, 3u);
  EXPECT_EQ(reps[1].timeline[0].p50_ns, 20'000);
  EXPECT_EQ(reps[1].timeline[0].p99_ns, 41'000);
  EXPECT_EQ(reps[1].timeline[0].max_ns, 90'000);
  EXPECT_EQ(reps[1].timeline[1].second, 1u);
  EXPECT_FALSE(reps[1].timeline[1].p99_ns.has_value());  // not measured stays absent
  ASSERT_EQ(reps[1].workers.size(), 2u);
  EXPECT_DOUBLE_EQ(reps[1].workers[0].ops_per_s, 1800.5);
  EXPECT_EQ(reps[1].workers[0].p99_ns, 41'000);
  EXPECT_EQ(reps[1].workers[0].cpu_utilization, 0.25);
  EXPECT_EQ(reps[1].workers[1].errors, 3u);
  EXPECT_FALSE(reps[1].workers[1].p99_ns.has_value());
  EXPECT_FALSE(reps[1].workers[1].cpu_utilization.has_value());
}

}  // namespace
}  // namespace benchgate::store
