// Figures derived from repetitions, and the RESULT| line.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "orchestrator/report/json_report.h"
#include "orchestrator/report/result_line.h"
#include "orchestrator/results/results.h"
#include "orchestrator/results/router_count.h"

namespace benchgate::results {
namespace {

Repetition rep(uint64_t successes, int64_t window_ns, int64_t latency_ns) {
  Repetition r;
  r.operations = successes;
  r.successes = successes;
  r.data_window_ns = window_ns;
  r.bytes_received = successes * 10;
  r.latency.record_n(latency_ns, static_cast<int64_t>(successes));
  return r;
}

// Throughput is counted inside the window over its length (docs/MEASUREMENT.md
// "Throughput"): one response that straggles 300 ms past the end of a 2 s window lengthens
// the data window by 15% but leaves ops/s where it was. Counted over the data window (as
// before), the same straggler cut ops/s from 5000 to 4348 (-13%).
TEST(Results, OneStragglerAtTheWindowEndMovesOpsPerSecondByLessThanOnePercent) {
  Repetition clean = rep(10'000, 2'000'000'000, 1000);
  clean.duration_ns = 2'000'000'000;
  clean.in_window = true;
  clean.window_successes = 10'000;
  clean.window_bytes_received = 100'000;
  Repetition straggler = clean;
  straggler.successes += 1;
  straggler.operations += 1;
  straggler.bytes_received += 10;
  straggler.data_window_ns = 2'300'000'000;  // the straggler's response came 300 ms late
  straggler.latency.record(300'000'000);
  EXPECT_DOUBLE_EQ(clean.ops_per_second(), 5000);
  const double change = std::abs(straggler.ops_per_second() / clean.ops_per_second() - 1);
  EXPECT_LT(change, 0.01) << straggler.ops_per_second();
  EXPECT_LT(std::abs(straggler.bytes_per_second() / clean.bytes_per_second() - 1), 0.01);
  // It is still in latency and in the totals.
  EXPECT_EQ(straggler.latency.max() >= 299'000'000, true);
  EXPECT_EQ(straggler.successes, 10'001u);
}

// A worker that reports no in-window counts: successes over the data window stand in.
TEST(Results, WithoutInWindowCountsOpsPerSecondUseTheDataWindow) {
  auto r = rep(1000, 500'000'000, 1000);
  r.duration_ns = 1'000'000'000;
  EXPECT_DOUBLE_EQ(r.ops_per_second(), 2000);
  EXPECT_FALSE(r.payload_bytes_per_second().has_value());
}

TEST(Results, PayloadBytesPerSecondIsMeasuredOnlyWithInWindowPayloadCounts) {
  Repetition r = rep(1000, 1'000'000'000, 1000);
  r.duration_ns = 2'000'000'000;
  r.in_window = true;
  r.window_successes = 1000;
  r.window_bytes_received = 50'000;
  r.window_payload_bytes = 12'000;
  ASSERT_TRUE(r.payload_bytes_per_second().has_value());
  EXPECT_DOUBLE_EQ(*r.payload_bytes_per_second(), 6000);
  EXPECT_DOUBLE_EQ(r.bytes_per_second(), 25'000);
  r.not_measured.insert("payload_bytes");
  EXPECT_FALSE(r.payload_bytes_per_second().has_value());
}

TEST(Results, SpreadIsMedianMinMaxOverRepetitions) {
  WorkloadResult w;
  w.repetitions = {rep(100, 1'000'000'000, 1), rep(300, 1'000'000'000, 1),
                   rep(200, 1'000'000'000, 1)};
  auto s = w.ops_per_second();
  EXPECT_DOUBLE_EQ(s.median, 200);
  EXPECT_DOUBLE_EQ(s.min, 100);
  EXPECT_DOUBLE_EQ(s.max, 300);
}

TEST(Results, MetricValuesAreInBaseUnitsAndMissingWhenNotCollected) {
  WorkloadResult w;
  w.repetitions = {rep(100, 1'000'000'000, 2'000'000)};
  auto p99 = metric_values(w, "latency.p99");
  ASSERT_TRUE(p99.has_value());
  EXPECT_NEAR((*p99)[0], 0.002, 0.002 * 1e-3);
  EXPECT_FALSE(metric_values(w, "router.cpu_per_request").has_value());
  EXPECT_FALSE(metric_values(WorkloadResult(), "throughput.rps").has_value());
}

TEST(Results, RouterCpuPerRequestIsOverTheRoutersCountElseTheWorkersOperations) {
  auto counted = rep(1000, 1'000'000'000, 1);
  counted.router.sampled = true;
  counted.router.cpu_seconds = 0.2;
  counted.router.collected = true;
  counted.router.requests = 500;
  EXPECT_DOUBLE_EQ(*counted.router_cpu_per_request(), 0.2 / 500);
  // A command: CPU from /proc, no counters; its requests are the workers' operations.
  auto command = counted;
  command.router.collected = false;
  command.router.requests = 0;
  EXPECT_DOUBLE_EQ(*command.router_cpu_per_request(), 0.2 / 1000);
  // An external system: nothing measured, never 0.
  auto external = command;
  external.router.sampled = false;
  EXPECT_FALSE(external.router_cpu_per_request().has_value());
  WorkloadResult w;
  w.repetitions = {external};
  EXPECT_FALSE(metric_values(w, "router.cpu_per_request").has_value());
  EXPECT_FALSE(metric_values(w, "router.rss_bytes").has_value());
  w.repetitions = {command};
  EXPECT_TRUE(metric_values(w, "router.rss_bytes").has_value());
  // Nothing served: no figure.
  auto idle = command;
  idle.operations = 0;
  EXPECT_FALSE(idle.router_cpu_per_request().has_value());
}

// Each repetition's counts fit uint64 (engine/window_merge.cc refuses a window whose sums would
// not), but over repetitions the workers' counts may pass 2^64: the gates' errors.count and
// errors.rate do not wrap round to 0 (a gate passed, or 0 / 0), nor does the total shown.
TEST(Results, CountsOverRepetitionsDoNotWrapRound) {
  constexpr uint64_t kHalf = uint64_t{1} << 63;
  auto failing = rep(0, 1'000'000'000, 1);
  failing.operations = kHalf;
  failing.errors["status"] = kHalf;
  WorkloadResult w;
  w.repetitions = {failing, failing};
  EXPECT_EQ(w.error_count(), std::numeric_limits<uint64_t>::max());
  EXPECT_DOUBLE_EQ(*metric_figure(w, "errors.count"), 2 * static_cast<double>(kHalf));
  EXPECT_DOUBLE_EQ(*metric_figure(w, "errors.rate"), 1);
}

// A repetition's error kinds each fit uint64, their sum need not (a stored run's kinds are read
// back unchecked): status=2^63 and timeout=2^63 read UINT64_MAX, as the store's errors_total and
// runs show do, not 0.
TEST(Results, ARepetitionsErrorKindsSumWithoutWrappingRound) {
  constexpr uint64_t kHalf = uint64_t{1} << 63;
  auto failing = rep(0, 1'000'000'000, 1);
  failing.errors = {{"status", kHalf}, {"timeout", kHalf}};
  EXPECT_EQ(failing.error_count(), std::numeric_limits<uint64_t>::max());
  failing.errors = {{"status", kHalf}, {"timeout", kHalf - 1}};
  EXPECT_EQ(failing.error_count(), std::numeric_limits<uint64_t>::max());
}

// The calls a WAMP router refused (not_authorized, wamp_error) sum without wrapping round: 2^63
// of each in one repetition are every one of its operations, none left for the router to count
// (before, 0 uncounted left them all to compare with the router's 0: router_count_mismatch).
TEST(Results, RefusedCallsSumWithoutWrappingRound) {
  constexpr uint64_t kHalf = uint64_t{1} << 63;
  scenario::Workload w;
  w.protocol = scenario::Protocol::kWampRpc;
  auto refused = rep(0, 1'000'000'000, 1);
  refused.operations = std::numeric_limits<uint64_t>::max();
  refused.errors = {{"not_authorized", kHalf}, {"wamp_error", kHalf}};
  EXPECT_EQ(router_uncounted_operations(w, refused), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(router_countable_operations(w, refused), 0u);
  EXPECT_FALSE(router_count_mismatch(w, refused));
  refused.errors = {{"not_sent", 1}, {"not_authorized", kHalf}, {"wamp_error", kHalf - 1}};
  EXPECT_EQ(router_countable_operations(w, refused), 0u);
}

// Each repetition's histograms hold at most INT64_MAX samples, their merge over repetitions
// need not: the merged connection and session setups are no figure, where their totals
// overflowed (UB) or (with a checked merge ignored) showed the repetitions that fitted.
TEST(Results, SetupSamplesOverRepetitionsPastInt64AreNoFigure) {
  constexpr int64_t kMany = (int64_t{1} << 62) + (int64_t{1} << 61);
  auto measured = rep(10, 1'000'000'000, 1);
  measured.setup.emplace();
  measured.setup->connect.record_n(1000, kMany);
  measured.session_setup.emplace();
  measured.session_setup->record_n(1000, kMany);
  WorkloadResult w;
  w.repetitions = {measured};
  ASSERT_TRUE(w.setup());
  EXPECT_EQ(w.setup()->connect.total_count(), kMany);
  ASSERT_TRUE(w.session_setup());
  w.repetitions = {measured, measured};
  EXPECT_FALSE(w.setup()) << w.setup()->connect.total_count();
  EXPECT_FALSE(w.session_setup()) << w.session_setup()->total_count();
  // The workload's latency, merged over repetitions, the same: none rather than a part.
  measured.latency.record_n(1000, kMany);
  w.repetitions = {measured};
  w.merge_latency();
  EXPECT_EQ(w.latency.total_count(), kMany + 10);
  w.repetitions = {measured, rep(10, 1'000'000'000, 1), measured};
  w.merge_latency();
  EXPECT_EQ(w.latency.total_count(), 0);
}

TEST(ResultLine, HasTheStableFieldsInOrder) {
  WorkloadResult w;
  w.spec.name = "hello";
  w.spec.connections = 8;
  w.repetitions = {rep(1000, 1'000'000'000, 1000)};
  for (const auto& r : w.repetitions) w.latency.add(r.latency);
  auto line = report::result_line("quick", w, "7");
  EXPECT_EQ(line.rfind("RESULT|scenario=quick|workload=hello|variant=default|protocol=http1|"
                       "connections=8|workers=1|threads=1|rps=1000|",
                       0),
            0u)
      << line;
  EXPECT_NE(line.find("|errors=0|reps=1|run=7"), std::string::npos) << line;
}

TEST(ResultLine, UnmeasuredFiguresAreDashesNotZeros) {
  WorkloadResult w;
  w.spec.name = "failed";
  w.status = WorkloadStatus::kFailed;
  auto line = report::result_line("s", w, "-");
  EXPECT_NE(line.find("|rps=-|"), std::string::npos) << line;
  EXPECT_NE(line.find("|p99_us=-|"), std::string::npos) << line;
  EXPECT_NE(line.find("|status=failed"), std::string::npos) << line;
  // Nothing ran: its errors were not counted either.
  EXPECT_NE(line.find("|errors=-|reps=0|"), std::string::npos) << line;
  EXPECT_NE(line.find("|wire_bytes_per_s=-|payload_bytes_per_s=-"), std::string::npos) << line;
}

// mbps= is wire megabytes/s and gbps= the same bytes in gigabits/s (their first meaning);
// the fields appended after them name their bytes.
TEST(ResultLine, NamesWhichBytesItCounts) {
  WorkloadResult w;
  w.spec.name = "bytes";
  Repetition r = rep(1000, 1'000'000'000, 1000);
  r.duration_ns = 1'000'000'000;
  r.in_window = true;
  r.window_successes = 1000;
  r.window_bytes_received = 2'000'000;
  r.window_payload_bytes = 1'500'000;
  w.repetitions = {r};
  w.latency.add(r.latency);
  auto line = report::result_line("s", w, "-");
  EXPECT_NE(line.find("|mbps=2.000|"), std::string::npos) << line;
  EXPECT_NE(line.find("|gbps=0.016|wire_bytes_per_s=2000000|payload_bytes_per_s=1500000"),
            std::string::npos)
      << line;
}

// wamp_pubsub opens its publishers and subscribers; its `connections` key does not apply.
TEST(ResultLine, PubSubConnectionsAreItsSessions) {
  WorkloadResult w;
  w.spec.name = "events";
  w.spec.protocol = scenario::Protocol::kWampPubSub;
  w.spec.connections = 1;
  w.spec.wamp.publishers = 2;
  w.spec.wamp.subscribers = 4;
  auto line = report::result_line("s", w, "-");
  EXPECT_NE(line.find("|protocol=wamp_pubsub|connections=6|"), std::string::npos) << line;
}

// A WAMP row says what it measured by field: transport, serializer and the payload of every
// call (appended after the fields that were there first).
TEST(ResultLine, AWampWorkloadNamesItsTransportSerializerAndPayloadSize) {
  WorkloadResult w;
  w.spec.name = "echo";
  w.spec.protocol = scenario::Protocol::kWampRpc;
  w.spec.wamp.transport = "rawsocket";
  w.spec.wamp.serializer = "cbor";
  w.spec.wamp.request_bytes = 65536;
  auto line = report::result_line("s", w, "-");
  EXPECT_NE(line.find("|payload_bytes_per_s=-|transport=rawsocket|serializer=cbor"
                      "|payload_bytes=65536|"),
            std::string::npos)
      << line;
}

TEST(ResultLine, AnHttpWorkloadHasNoWampParameters) {
  WorkloadResult w;
  w.spec.name = "hello";
  auto line = report::result_line("s", w, "-");
  EXPECT_NE(line.find("|transport=-|serializer=-|payload_bytes=-|"), std::string::npos) << line;
}

// The TLS and HTTP/2 fields come in this order, then where the load came from; what was not
// measured is '-' (no worker ran: no load_from).
TEST(ResultLine, TlsAndHttp2FieldsAreAppendedAndDashWhenNotMeasured) {
  WorkloadResult plain;
  plain.spec.name = "hello";
  plain.repetitions.emplace_back();
  const std::string none =
      "|payload_bytes=-|tls=-|alpn=-|streams=-|effective_streams=-|connect_p50_us=-"
      "|handshake_p50_us=-|ttfb_p50_us=-|handshakes_per_s=-|resumed=-|load_from=-";
  auto line = report::result_line("s", plain, "-");
  EXPECT_NE(line.find(none + "|transfer_bytes="), std::string::npos) << line;

  WorkloadResult h2;
  h2.spec.name = "h2";
  h2.spec.protocol = scenario::Protocol::kHttp2;
  Repetition rep;
  rep.tls = NegotiatedTls{"TLSv1.3", "TLS_AES_256_GCM_SHA384", "h2"};
  rep.requested_streams = 50;
  rep.effective_streams = 10;
  rep.setup.emplace();
  rep.setup->connections = 1;
  rep.setup->connect.record(120'000);
  rep.setup->ttfb.record(300'000);
  h2.repetitions.push_back(rep);
  h2.load_from = "10.0.0.2,local";
  line = report::result_line("s", h2, "-");
  // HdrHistogram reports a bucket's highest equivalent value (120 us reads 120.1). No handshake
  // was recorded: '-' rather than 0.
  const std::string tail =
      "|tls=TLSv1.3|alpn=h2|streams=50|effective_streams=10|connect_p50_us=120.1"
      "|handshake_p50_us=-|ttfb_p50_us=300.0|handshakes_per_s=-|resumed=-"
      "|load_from=10.0.0.2,local";
  EXPECT_NE(line.find(tail + "|transfer_bytes="), std::string::npos) << line;
}

// The repetitions' flags, appended last: their union, comma-separated, "-" for none, in
// docs/MEASUREMENT.md's order (results::ordered_flags).
TEST(ResultLine, FlagsComeLastAsTheUnionOfTheRepetitions) {
  WorkloadResult w;
  w.spec.name = "hello";
  w.repetitions.emplace_back();
  auto line = report::result_line("s", w, "-");
  EXPECT_TRUE(
      line.ends_with("|resumed=-|load_from=-|transfer_bytes=-|chunk_bytes=-"
                     "|data_window_gbps=-|lifecycle_gbps=-|session_setup_p50_us=-|flags=-"))
      << line;
  w.repetitions[0].flags = {"router_count_mismatch"};
  w.repetitions.emplace_back();
  w.repetitions[1].flags = {"degraded", "router_count_mismatch"};
  line = report::result_line("s", w, "-");
  EXPECT_TRUE(line.ends_with("|flags=router_count_mismatch,degraded")) << line;
}

// wamp_transfer: its sizes and both transfer rates (median repetition), before the flags; a
// rate not measured (one chunk per transfer: no data window) is '-', never 0.
// WAMP session establishment: the median of every repetition's sessions merged; a repetition
// that set up none is left out of session_setup.p99 as connect.p99 leaves it out.
TEST(ResultLine, SessionSetupIsTheMedianOfEverySessionMerged) {
  WorkloadResult w;
  w.spec.name = "s";
  w.spec.protocol = scenario::Protocol::kWampRpc;
  auto& first = w.repetitions.emplace_back();
  first.session_setup.emplace();
  for (int i = 0; i < 3; ++i) first.session_setup->record(100'000);
  auto& second = w.repetitions.emplace_back();
  second.session_setup.emplace();  // kept sessions: none set up
  const auto line = report::result_line("s", w, "-");
  EXPECT_NE(line.find("|session_setup_p50_us=100.0|flags="), std::string::npos) << line;
  auto values = metric_values(w, "session_setup.p99");
  ASSERT_TRUE(values);
  EXPECT_EQ(values->size(), 1u);
  w.repetitions[1].session_setup.reset();  // a worker that does not report it
  EXPECT_FALSE(metric_values(w, "session_setup.p99"));
  EXPECT_NE(report::result_line("s", w, "-").find("|session_setup_p50_us=-|"), std::string::npos);
}

TEST(ResultLine, TransferCarriesItsSizesAndBothRates) {
  WorkloadResult w;
  w.spec.name = "t";
  w.spec.protocol = scenario::Protocol::kWampTransfer;
  w.spec.wamp.transfer_bytes = 64 << 20;
  w.spec.wamp.chunk_bytes = 4 << 20;
  for (int64_t ns : {1'000'000, 2'000'000, 4'000'000}) {
    auto& rep = w.repetitions.emplace_back();
    rep.transfer = results::TransferSums{1, 1'000'000, ns, 2'000'000, 2 * ns};
  }
  auto line = report::result_line("s", w, "-");
  // 8 Mbit over 2 ms (the median) is 4 Gbit/s; lifecycle: 16 Mbit over 4 ms.
  EXPECT_NE(line.find("|protocol=wamp_transfer|"), std::string::npos) << line;
  EXPECT_NE(line.find("|transfer_bytes=67108864|chunk_bytes=4194304|data_window_gbps=4.000"
                      "|lifecycle_gbps=4.000|session_setup_p50_us=-|flags=-"),
            std::string::npos)
      << line;
  for (auto& rep : w.repetitions) rep.transfer->data_ns = 0;
  line = report::result_line("s", w, "-");
  EXPECT_NE(line.find("|data_window_gbps=-|lifecycle_gbps=4.000|"), std::string::npos) << line;
}

// Each protocol's parameters sit in their own block of the JSON report; the other is null.
TEST(JsonReport, AWorkloadsParametersHoldOnlyItsProtocolsBlock) {
  WorkloadResult wamp;
  wamp.spec.name = "echo";
  wamp.spec.protocol = scenario::Protocol::kWampRpc;
  wamp.spec.wamp.serializer = "msgpack";
  const auto wamp_params = report::workload_json(wamp)["parameters"];
  EXPECT_TRUE(wamp_params.at("http").is_null()) << wamp_params.dump();
  EXPECT_EQ(wamp_params.at("wamp").at("serializer"), "msgpack") << wamp_params.dump();

  WorkloadResult http;
  http.spec.name = "hello";
  http.spec.http.target = "/bench/hello";
  const auto http_params = report::workload_json(http)["parameters"];
  EXPECT_TRUE(http_params.at("wamp").is_null()) << http_params.dump();
  EXPECT_EQ(http_params.at("http").at("target"), "/bench/hello") << http_params.dump();
}

// Connection-setup metrics read the merged setup histograms; without a setup, or for
// handshakes.rate of a workload that keeps its connections, they are not measured, never 0.
TEST(MetricFigure, ConnectionSetupMetricsAndWhatIsNotMeasured) {
  WorkloadResult w;
  w.spec.name = "h2";
  Repetition rep;
  rep.setup.emplace();
  rep.setup->connect.record(2'000'000);
  w.repetitions.push_back(rep);
  auto connect = metric_figure(w, "connect.p99");
  ASSERT_TRUE(connect);
  EXPECT_NEAR(*connect, 0.002, 0.00001);
  EXPECT_FALSE(metric_figure(w, "tls_handshake.p99"));  // cleartext: no handshake recorded
  EXPECT_FALSE(metric_figure(w, "handshakes.rate"));
  EXPECT_NE(not_measured_reason(w, "handshakes.rate").find("new_connection_per_request = true"),
            std::string::npos);
  w.repetitions.push_back(Repetition());  // a repetition whose workers reported no setup
  EXPECT_FALSE(metric_figure(w, "connect.p99"));
  EXPECT_NE(not_measured_reason(w, "connect.p99").find("did not report connection setup"),
            std::string::npos);
}

// Latency is of successes only (docs/MEASUREMENT.md, "Latency histograms"): a repetition in
// which the server answered every request with a 500 completed no success and has no latency to
// measure. It is left out of the per-repetition values, as a repetition that set up no
// connection is for connect.p99, so the figure a gate judges is the one RESULT prints: the
// histogram of every repetition merged. Not measured only when no repetition had a success.
TEST(MetricFigure, ARepetitionWithNoSuccessHasNoLatencyAndTheOthersAreJudged) {
  WorkloadResult w;
  w.spec.name = "hello";
  w.repetitions = {rep(1000, 1'000'000'000, 100'000), rep(0, 1'000'000'000, 0),
                   rep(1000, 1'000'000'000, 200'000)};
  Repetition& all_500 = w.repetitions[1];
  all_500.operations = 1000;
  all_500.errors = {{"status", 1000}};
  for (auto& r : w.repetitions) w.latency.add(r.latency);
  ASSERT_EQ(all_500.latency.total_count(), 0);

  const std::string line = report::result_line("s", w, "-");
  ASSERT_TRUE(w.latency_at(99));
  const double printed = static_cast<double>(*w.latency_at(99)) / 1e9;
  EXPECT_EQ(line.find("|p99_us=-|"), std::string::npos) << line;
  for (const char* metric : {"latency.p50", "latency.p99", "latency.max", "latency.mean"}) {
    auto values = metric_values(w, metric);
    ASSERT_TRUE(values.has_value()) << metric << " judged not collected";
    EXPECT_EQ(values->size(), 2u) << metric;
    EXPECT_TRUE(metric_figure(w, metric).has_value()) << metric;
    EXPECT_EQ(not_measured_reason(w, metric), "") << metric;
  }
  EXPECT_EQ(*metric_values(w, "latency.p99"),
            (std::vector<double>{static_cast<double>(*w.repetitions[0].latency_at(99)) / 1e9,
                                 static_cast<double>(*w.repetitions[2].latency_at(99)) / 1e9}));
  EXPECT_EQ(metric_figure(w, "latency.p99"), std::optional<double>(printed));

  // No repetition had a success: nothing was measured, never a 0, and the reason says why.
  WorkloadResult none;
  none.spec.name = "hello";
  none.repetitions = {all_500, all_500};
  EXPECT_FALSE(metric_values(none, "latency.p99").has_value());
  EXPECT_FALSE(metric_figure(none, "latency.p99").has_value());
  EXPECT_NE(not_measured_reason(none, "latency.p99").find("no repetition completed"),
            std::string::npos)
      << not_measured_reason(none, "latency.p99");
  EXPECT_NE(report::result_line("s", none, "-").find("|p99_us=-|"), std::string::npos);
}

// A tool's figures of a window that completed no success (h2load times its failed requests too:
// every request answered 404) are not latency of successes. The repetition's row has none, as
// the summary row, which skips it, has none: one rule for both (docs/SCENARIOS.md).
TEST(MetricFigure, AToolsFiguresOfAWindowWithNoSuccessAreNotLatency) {
  auto all_404 = [](int64_t max_ns) {
    Repetition r;
    r.operations = 1000;
    r.errors = {{"status", 1000}};
    r.tool_latency = ToolLatency{"h2load 1.52.0", 10'000, 147'000, 5'000, max_ns, {}};
    return r;
  };
  WorkloadResult w;
  w.spec.name = "nope";
  w.repetitions = {all_404(5'790'000), all_404(92'650'000)};
  for (const Repetition& r : w.repetitions) {
    EXPECT_FALSE(r.latency_at(100)) << *r.latency_at(100);
    EXPECT_FALSE(r.latency_mean()) << *r.latency_mean();
    EXPECT_EQ(r.tool_latency_of_successes(), nullptr);
  }
  EXPECT_FALSE(w.latency_at(100));
  EXPECT_FALSE(w.latency_mean());
  const nlohmann::json reps = report::workload_json(w)["repetitions"];
  ASSERT_EQ(reps.size(), 2u);
  for (const auto& r : reps) {
    EXPECT_TRUE(r["latency"]["max_ns"].is_null()) << r["latency"];
    EXPECT_TRUE(r["latency"]["mean_ns"].is_null()) << r["latency"];
    EXPECT_TRUE(r["latency"]["min_ns"].is_null()) << r["latency"];
    EXPECT_EQ(r["latency"]["tool"], "h2load 1.52.0");
  }

  // With a success, the same figures are the repetition's, and the summary's max is theirs.
  w.repetitions[1].successes = 1;
  EXPECT_FALSE(w.repetitions[0].latency_at(100));
  EXPECT_EQ(w.repetitions[1].latency_at(100), 92'650'000);
  EXPECT_EQ(w.repetitions[1].latency_mean(), 147'000.0);
  EXPECT_EQ(w.latency_at(100), 92'650'000);
}

// A worker's latency (every report's per-worker table): its own histogram's figures; the
// tool's for the repetition's only worker that wraps one, by latency_at's rule (a figure the
// tool printed, of a window with a success); nothing otherwise.
TEST(WorkerLatency, ItsOwnFiguresOrTheToolsForTheOnlyWorker) {
  Repetition own;
  own.successes = 10;
  WorkerShare share{0, 10, 10, 0, 10, 900, 1'000, std::nullopt, 100};
  own.workers = {share, share};
  EXPECT_EQ(own.worker_latency_at(1, 50), 100);
  EXPECT_EQ(own.worker_latency_at(1, 99), 900);
  EXPECT_EQ(own.worker_latency_at(1, 100), 1'000);
  EXPECT_FALSE(own.worker_latency_at(1, 90));
  EXPECT_FALSE(own.worker_latency_at(2, 50));

  Repetition tool;
  tool.successes = 10;
  tool.tool_latency =
      ToolLatency{"wrk 4.2.0", std::nullopt, 200, std::nullopt, 7'000, {{"50", 150}}};
  tool.workers = {WorkerShare{0, 10, 10, 0, 10}};
  EXPECT_EQ(tool.worker_latency_at(0, 50), 150);
  EXPECT_FALSE(tool.worker_latency_at(0, 99));  // the tool did not print it
  EXPECT_EQ(tool.worker_latency_at(0, 100), 7'000);
  tool.successes = 0;
  EXPECT_FALSE(tool.worker_latency_at(0, 100));
  tool.successes = 10;
  tool.workers.push_back(WorkerShare{1, 10, 10, 0, 10});
  EXPECT_FALSE(tool.worker_latency_at(0, 100));
  EXPECT_FALSE(tool.worker_latency_at(1, 50));
}

// The report's parameters are made of the stored definition's blocks (store/workload_params.h)
// but keep their own text: an expectation not given is left out, not null, and there is no name.
TEST(JsonReport, AnHttpWorkloadsParametersLeaveOutExpectationsNotGiven) {
  WorkloadResult http;
  http.spec.name = "hello";
  http.spec.http.target = "/bench/hello";
  auto params = report::workload_json(http)["parameters"];
  EXPECT_FALSE(params.contains("name")) << params.dump();
  EXPECT_FALSE(params.at("http").contains("expect_status")) << params.dump();
  EXPECT_FALSE(params.at("http").contains("expect_body_bytes")) << params.dump();
  http.spec.http.expect_status = 200;
  http.spec.http.expect_body_bytes = 12;
  params = report::workload_json(http)["parameters"];
  EXPECT_EQ(params.at("http").dump(),
            "{\"expect_body_bytes\":12,\"expect_status\":200,\"headers\":{},\"method\":\"GET\","
            "\"request_bytes\":0,\"target\":\"/bench/hello\"}");
  EXPECT_EQ(params.size(), 17u) << params.dump();  // with tls and http2, null here, and sessions
  EXPECT_EQ(params.at("new_connection_per_request"), false);
  EXPECT_TRUE(params.at("tls").is_null());
  EXPECT_TRUE(params.at("http2").is_null());
}

// new_connection_per_request: handshakes/s is the window's connections per second of the
// window, the median over repetitions; resumed counts the TLS handshakes that resumed.
TEST(MetricFigure, HandshakesRateIsTheWindowsConnectionsPerSecond) {
  WorkloadResult w;
  w.spec.name = "fresh";
  w.spec.new_connection_per_request = true;
  w.spec.tls.enabled = true;
  for (uint64_t connections : {3000u, 2400u, 2700u}) {
    Repetition rep;
    rep.duration_ns = 3'000'000'000;
    rep.setup.emplace();
    rep.setup->connections = connections + 1;
    rep.setup->handshakes = connections + 1;
    rep.setup->resumed = connections;  // all but the first connection's
    rep.setup->tls_handshake.record(400'000);
    rep.window_connections = connections;
    w.repetitions.push_back(rep);
  }
  auto rate = metric_figure(w, "handshakes.rate");
  ASSERT_TRUE(rate);
  EXPECT_DOUBLE_EQ(*rate, 900.0);  // 2700 in 3 s, the median repetition
  auto values = metric_values(w, "handshakes.rate");
  ASSERT_TRUE(values);
  EXPECT_EQ(*values, (std::vector<double>{1000.0, 800.0, 900.0}));
  const std::string line = report::result_line("s", w, "-");
  EXPECT_NE(line.find("|handshakes_per_s=900|resumed=8100"), std::string::npos) << line;
  const auto json = report::workload_json(w);
  EXPECT_EQ(json["summary"]["handshakes_per_second"]["median"], 900.0) << json.dump();
  EXPECT_EQ(json["repetitions"][0]["window_connections"], 3000) << json.dump();
  EXPECT_EQ(json["repetitions"][0]["connection_setup"]["resumed"], 3000) << json.dump();
  // Resumption off: the key is left out, so a TLS workload stored before keeps its series.
  EXPECT_FALSE(json["parameters"]["tls"].contains("resumption")) << json.dump();
  EXPECT_EQ(json["parameters"]["new_connection_per_request"], true) << json.dump();

  // A repetition whose workers did not report their window's connections: not measured.
  w.repetitions.back().window_connections.reset();
  EXPECT_FALSE(metric_figure(w, "handshakes.rate"));
  EXPECT_NE(not_measured_reason(w, "handshakes.rate").find("did not report"), std::string::npos);
}

}  // namespace
}  // namespace benchgate::results
