#include "orchestrator/report/json_report.h"

#include "common/command_line/version.h"
#include "common/serialization/base64.h"
#include "orchestrator/gates/gate_evaluator.h"
#include "orchestrator/gates/gate_outcome.h"
#include "orchestrator/report/analysis.h"
#include "orchestrator/results/resumption.h"
#include "orchestrator/store/binary_identity.h"
#include "orchestrator/store/workload_params.h"

namespace benchgate::report {
namespace {

// A histogram as HdrHistogram's own log format carries it: V2 compressed, in base64.
std::string histogram_base64(const HdrHistogram& histogram) {
  std::string out;
  serialization::append_base64(histogram.encode_compressed(), out);
  return out;
}

using nlohmann::json;

json percentiles(const HdrHistogram& h);

// A histogram with nothing recorded (a cleartext connection's handshake) is null.
json setup_json(const scenario::Workload& w, const results::ConnectionSetup& setup) {
  const auto resumed = results::resumed_handshakes(w, setup);
  auto figures = [](const HdrHistogram& h) {
    return h.total_count() > 0 ? percentiles(h) : json(nullptr);
  };
  return {{"connections", setup.connections},
          {"handshakes", setup.handshakes},
          // Of the handshakes, those the server resumed; null without TLS, and for a workload
          // that keeps its connections (results/resumption.h).
          {"resumed", resumed ? json(*resumed) : json(nullptr)},
          {"connect", figures(setup.connect)},
          {"tls_handshake", figures(setup.tls_handshake)},
          {"ttfb", figures(setup.ttfb)}};
}

json tls_json(const results::NegotiatedTls& tls) {
  return {{"version", tls.version},
          {"cipher", tls.cipher},
          {"alpn", tls.alpn.empty() ? json(nullptr) : json(tls.alpn)}};
}

json percentiles(const HdrHistogram& h) {
  if (h.total_count() == 0) return nullptr;  // not measured, never 0
  return {{"count", h.total_count()},
          {"min_ns", h.min()},
          {"p50_ns", h.value_at_percentile(50)},
          {"p75_ns", h.value_at_percentile(75)},
          {"p90_ns", h.value_at_percentile(90)},
          {"p95_ns", h.value_at_percentile(95)},
          {"p99_ns", h.value_at_percentile(99)},
          {"p999_ns", h.value_at_percentile(99.9)},
          {"max_ns", h.max()},
          {"mean_ns", h.mean()}};
}

json figure(const std::optional<int64_t>& v) { return v ? json(*v) : json(nullptr); }
json figure(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

// Ready.threads in worker order; a worker's 0 (it did not say) is null, never a count.
json worker_threads_json(const std::vector<uint32_t>& threads) {
  if (threads.empty()) return nullptr;
  json list = json::array();
  for (const uint32_t t : threads) list.push_back(t == 0 ? json(nullptr) : json(t));
  return list;
}

// A tool's printed figures (worker adapters) in the same shape as `percentiles`, with null for
// each figure the tool did not print, and the tool's name. `figures` is a repetition or a
// workload summary (both answer latency_at and latency_mean).
template <class Figures>
json printed_percentiles(const Figures& figures, const std::string& tool) {
  json out = {{"tool", tool}, {"count", nullptr}};
  for (const auto& [key, percentile] : {std::pair{"p50_ns", 50.0},
                                        {"p75_ns", 75.0},
                                        {"p90_ns", 90.0},
                                        {"p95_ns", 95.0},
                                        {"p99_ns", 99.0},
                                        {"p999_ns", 99.9},
                                        {"max_ns", 100.0}}) {
    out[key] = figure(figures.latency_at(percentile));
  }
  out["mean_ns"] = figure(figures.latency_mean());
  return out;
}

json tool_percentiles(const results::Repetition& rep) {
  json out = printed_percentiles(rep, rep.tool_latency->tool);
  // Null, as the rest, when the window completed no success (the tool timed failures).
  const results::ToolLatency* t = rep.tool_latency_of_successes();
  out["min_ns"] = t ? figure(t->min_ns) : json(nullptr);
  out["stdev_ns"] = t ? figure(t->stdev_ns) : json(nullptr);
  return out;
}

json workload_tool_percentiles(const results::WorkloadResult& w) {
  json out = printed_percentiles(w, w.latency_tool());
  out["summary"] = "median of the repetitions' printed figures; max of their max";
  return out;
}

json spread(const results::Spread& s) {
  return {{"median", s.median}, {"min", s.min}, {"max", s.max}};
}

// [{"worker": 0, "reason": "ABORT ...", "sessions": 2}, ...]; "reason" "" for the sessions a
// worker's peer ended for reasons past its first 8.
json sessions_ended_json(const results::Repetition& rep) {
  json out = json::array();
  for (const results::SessionsEnded& e : rep.sessions_ended) {
    out.push_back({{"worker", e.worker}, {"reason", e.reason}, {"sessions", e.sessions}});
  }
  return out;
}

json repetition_json(const scenario::Workload& w, const results::Repetition& rep) {
  json j = {{"index", rep.index},
            {"start_unix_ns", rep.start_unix_ns},
            {"duration_ns", rep.duration_ns},
            {"data_window_ns", rep.data_window_ns},
            {"operations", rep.operations},
            {"successes", rep.successes},
            {"errors", rep.error_count()},
            // As the summary's: the kinds' sum stopped at its cap, at least `errors`.
            {"errors_at_least", results::count_capped(rep.error_count())},
            {"errors_by_kind", rep.errors},
            {"bytes_sent", rep.bytes_sent},
            {"bytes_received", rep.bytes_received},
            {"ops_per_second", rep.ops_per_second()},
            {"bytes_per_second", rep.bytes_per_second()},
            {"latency", rep.tool_latency ? tool_percentiles(rep) : percentiles(rep.latency)},
            {"latency_hdr_v2_base64",
             rep.tool_latency ? json(nullptr) : json(histogram_base64(rep.latency))},
            {"worker_cpu_seconds", rep.worker_cpu_seconds},
            {"worker_cpu_utilization", rep.worker_cpu_utilization},
            {"flags", results::ordered_flags(rep.flags)},
            {"stopped", rep.stopped},
            {"sessions_ended", sessions_ended_json(rep)},
            {"not_measured", rep.not_measured}};
  // A figure the workers could not measure is null, never its zero.
  if (!rep.measured("bytes_sent")) j["bytes_sent"] = nullptr;
  if (!rep.measured("bytes_received")) {
    j["bytes_received"] = nullptr;
    j["bytes_per_second"] = nullptr;
  }
  if (!rep.measured("data_window")) j["data_window_ns"] = nullptr;
  if (!rep.measured("cpu")) {
    j["worker_cpu_seconds"] = nullptr;
    j["worker_cpu_utilization"] = nullptr;
  }
  if (rep.service_time) {
    j["service_time"] = percentiles(*rep.service_time);
    j["late_sends"] = rep.late_sends;
    j["unsent"] = rep.unsent;
  }
  // What throughput counts (docs/MEASUREMENT.md "Throughput"); null when not reported.
  j["in_window"] = nullptr;
  if (rep.in_window) {
    j["in_window"] = {
        {"successes", rep.window_successes},
        {"bytes_received", rep.window_bytes_received},
        {"payload_bytes",
         rep.measured("payload_bytes") ? json(rep.window_payload_bytes) : json(nullptr)}};
  }
  const auto payload = rep.payload_bytes_per_second();
  j["payload_bytes_per_second"] = payload ? json(*payload) : json(nullptr);
  // Connections and TLS (docs/MEASUREMENT.md "Connections and TLS"): null when not measured.
  j["connection_setup"] = rep.setup ? setup_json(w, *rep.setup) : json(nullptr);
  j["tls"] = rep.tls ? tls_json(*rep.tls) : json(nullptr);
  j["window_connections"] = rep.window_connections ? json(*rep.window_connections) : json(nullptr);
  // WAMP (docs/MEASUREMENT.md "Session establishment"): null when not measured.
  j["session_setup"] = rep.session_setup ? percentiles(*rep.session_setup) : json(nullptr);
  // wamp_transfer (docs/MEASUREMENT.md "Transfer throughput"): the sums and both rates; null
  // for other workloads, a rate null when not measured.
  // wamp_rpc with callee = "worker": the invocations of each callee session, every worker's
  // in worker order; null for other workloads.
  j["callee_invocations"] =
      rep.callee_invocations.empty() ? json(nullptr) : json(rep.callee_invocations);
  j["transfer"] = nullptr;
  if (rep.transfer) {
    const auto& t = *rep.transfer;
    const auto data = t.data_gbps();
    const auto lifecycle = t.lifecycle_gbps();
    j["transfer"] = {{"transfers", t.transfers},
                     {"data_bytes", t.data_bytes},
                     {"data_ns", t.data_ns},
                     {"lifecycle_bytes", t.lifecycle_bytes},
                     {"lifecycle_ns", t.lifecycle_ns},
                     {"data_window_gbps", data ? json(*data) : json(nullptr)},
                     {"lifecycle_gbps", lifecycle ? json(*lifecycle) : json(nullptr)}};
  }
  j["streams"] = rep.requested_streams > 0 ? json(rep.requested_streams) : json(nullptr);
  j["effective_streams"] = rep.effective_streams > 0 ? json(rep.effective_streams) : json(nullptr);
  j["worker_cpu_wait_share"] =
      rep.worker_cpu_wait_share ? json(*rep.worker_cpu_wait_share) : json(nullptr);
  j["worker_start_skew_ns"] =
      rep.worker_start_skew_ns.empty() ? json(nullptr) : json(rep.worker_start_skew_ns);
  j["start_spread_ns"] = rep.start_spread_ns ? json(*rep.start_spread_ns) : json(nullptr);
  // Each worker's own figures and clock (docs/MEASUREMENT.md "Clock offset and start skew");
  // null where not measured. Its latency as every report's per-worker table gives it
  // (Repetition::worker_latency_at: a tool's figures for the only worker that wraps one).
  auto optional = [](const auto& v) { return v ? json(*v) : json(nullptr); };
  json workers = json::array();
  for (size_t i = 0; i < rep.workers.size(); ++i) {
    const results::WorkerShare& w = rep.workers[i];
    workers.push_back({{"worker", w.worker},
                       {"host", w.host.empty() ? json(nullptr) : json(w.host)},
                       {"operations", w.operations},
                       {"successes", w.successes},
                       {"errors", w.errors},
                       {"ops_per_second", w.ops_per_second},
                       {"p50_ns", optional(rep.worker_latency_at(i, 50))},
                       {"p99_ns", optional(rep.worker_latency_at(i, 99))},
                       {"max_ns", optional(rep.worker_latency_at(i, 100))},
                       {"cpu_utilization", optional(w.cpu_utilization)},
                       {"clock_offset_ns", optional(w.clock_offset_ns)},
                       {"rtt_ns", optional(w.rtt_ns)},
                       {"start_skew_ns", optional(w.start_skew_ns)}});
  }
  j["workers"] = std::move(workers);
  j["latency_clamped"] = rep.latency_clamped;
  if (rep.events_expected > 0 || rep.events_delivered > 0) {
    j["events"] = {{"expected", rep.events_expected}, {"delivered", rep.events_delivered}};
  }
  if (rep.router.collected || rep.router.counters_collected || rep.router.sampled) {
    json router = {{"cpu_seconds", nullptr}, {"rss_bytes", nullptr}};
    if (rep.router.sampled) {
      router["cpu_seconds"] = rep.router.cpu_seconds;
      router["rss_bytes"] = rep.router.rss_bytes;
    }
    if (rep.router.collected) router["requests"] = rep.router.requests;
    if (rep.router.counters_collected) router["counters"] = rep.router.counter_deltas;
    if (auto per_request = rep.router_cpu_per_request()) {
      router["cpu_seconds_per_request"] = *per_request;
    }
    if (rep.router.handling) router["handling"] = percentiles(*rep.router.handling);
    j["router"] = router;
  } else {
    j["router"] = nullptr;
  }
  return j;
}

// Each protocol's parameters in its own block: "http" for an HTTP workload, "wamp" for a WAMP
// one; the other block is null, never the other protocol's defaults. The blocks are the stored
// definition's (store/workload_params.h), whose own text keeps a WAMP workload's http block:
// it is hashed into the series key.
json parameters_json(const scenario::Workload& w) {
  json j = store::load_params_json(w);
  // `connections` is the configured key, which wamp_pubsub does not use; the sessions its
  // workers open are the RESULT line's `connections` (scenario::Workload::sessions:
  // publishers + subscribers for wamp_pubsub). Not part of the definition's hash.
  j["sessions"] = w.sessions();
  if (!scenario::is_http(w.protocol)) {
    j["wamp"] = store::wamp_params_json(w.wamp);
    j["http"] = nullptr;
    j["tls"] = store::tls_params_json(w.tls);  // wss, RawSocket over TLS; null for cleartext
    return j;
  }
  json http = store::http_params_json(w.http);
  // An expectation not given is left out here, not written as null.
  if (!w.http.expect_status) http.erase("expect_status");
  if (!w.http.expect_body_bytes) http.erase("expect_body_bytes");
  j["http"] = std::move(http);
  j["tls"] = store::tls_params_json(w.tls);
  j["http2"] = store::http2_params_json(w);
  j["new_connection_per_request"] = w.new_connection_per_request;
  j["wamp"] = nullptr;
  return j;
}

}  // namespace

json workload_json(const results::WorkloadResult& w) {
  json reps = json::array();
  for (const auto& rep : w.repetitions) reps.push_back(repetition_json(w.spec, rep));
  json j = {{"name", w.spec.name},
            {"variant", w.variant},
            {"status", results::status_name(w.status)},
            {"error", w.error.empty() ? json(nullptr) : json(w.error)},
            {"load_from", w.load_from.empty() ? json(nullptr) : json(w.load_from)},
            // What its workers answered to Describe; null where none answered.
            {"worker_name", w.worker_name.empty() ? json(nullptr) : json(w.worker_name)},
            {"worker_version", w.worker_version.empty() ? json(nullptr) : json(w.worker_version)},
            // Each worker's Ready.threads in worker order, null for a worker that did not say
            // (0, workers_text); null where none was ready.
            {"worker_threads", worker_threads_json(w.worker_threads)},
            {"parameters", parameters_json(w.spec)},
            {"repetitions", reps},
            {"flags", w.flags()}};
  const bool tool = !w.latency_tool().empty();
  if (!w.repetitions.empty()) {
    const auto payload = w.payload_bytes_per_second();
    j["summary"] = {{"ops_per_second", spread(w.ops_per_second())},
                    {"bytes_per_second",
                     w.measured("bytes_received") ? spread(w.bytes_per_second()) : json(nullptr)},
                    {"payload_bytes_per_second", payload ? spread(*payload) : json(nullptr)},
                    {"errors", w.error_count()},
                    // The sum stopped at its cap (results::count_capped): at least `errors`.
                    {"errors_at_least", results::count_capped(w.error_count())},
                    {"latency", tool ? workload_tool_percentiles(w) : percentiles(w.latency)}};
    // new_connection_per_request only (docs/MEASUREMENT.md "Handshakes per second").
    const auto handshakes = w.handshakes_per_second();
    j["summary"]["handshakes_per_second"] = handshakes ? spread(*handshakes) : json(nullptr);
    const auto sessions = w.session_setup();
    j["summary"]["session_setup"] = sessions ? percentiles(*sessions) : json(nullptr);
    // wamp_transfer only (docs/MEASUREMENT.md "Transfer throughput").
    const auto data_gbps = w.transfer_data_gbps();
    const auto lifecycle_gbps = w.transfer_lifecycle_gbps();
    j["summary"]["transfer_data_window_gbps"] = data_gbps ? spread(*data_gbps) : json(nullptr);
    j["summary"]["transfer_lifecycle_gbps"] =
        lifecycle_gbps ? spread(*lifecycle_gbps) : json(nullptr);
    j["latency_hdr_v2_base64"] = tool ? json(nullptr) : json(histogram_base64(w.latency));
  } else {
    j["summary"] = nullptr;
  }
  return j;
}

// `strict`: the run was judged with --strict, which fails it for this gate when
// gates::fails_only_when_strict ("strict_failure").
json gate_json(const gating::EvaluatedGate& gate, bool strict) {
  const auto& o = gate.outcome;
  auto optional = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  // The effect's interval (gates/effect_interval.h), null where the method gives none.
  json interval = nullptr;
  if (const auto& i = o.effect_interval) {
    interval = {{"low", i->low}, {"high", i->high}, {"confidence", i->confidence}};
  }
  return {{"gate_index", gate.gate_index},
          {"workload", gate.workload},
          // null where no variant is named: a gate whose workload did not run, for every variant.
          {"variant", gate.variant.empty() ? json(nullptr) : json(gate.variant)},
          {"workload_ran", gate.workload_ran},
          {"metric", o.metric},
          {"kind", gating::kind_of(gate)},
          {"baseline", gate.baseline.empty() ? json(nullptr) : json(gate.baseline)},
          {"severity", o.severity == scenario::GateSeverity::kCritical ? "critical" : "warning"},
          {"verdict", gates::to_string(o.verdict)},
          {"method", gates::to_string(o.method)},
          {"observed", optional(o.observed)},
          {"threshold", optional(o.threshold)},
          {"baseline_runs", o.baseline_run_ids},
          {"baseline_centre", optional(o.baseline_centre)},
          {"effect", optional(o.effect)},
          {"effect_interval", interval},
          {"p_value", optional(o.p_value)},
          {"p_adjusted", optional(o.p_adjusted)},
          {"alpha", o.alpha},
          {"underpowered", o.underpowered},
          {"fail_when_underpowered", o.fail_when_underpowered},
          {"strict_failure", strict && gates::fails_only_when_strict(o)},
          {"detectable", optional(o.detectable)},
          {"confirmation", o.confirmation.empty() ? json(nullptr) : json(o.confirmation)},
          {"confirmation_observed", optional(o.confirmation_observed)},
          {"confirmation_p_value", optional(o.confirmation_p_value)},
          {"explanation", o.explanation}};
}

static json comparisons_json(const engine::ScenarioResult& result) {
  json out = json::array();
  for (const auto& c : comparisons(result)) {
    const bool ok = c.status == "ok";
    auto figure = [&](double v) { return ok ? json(v) : json(nullptr); };
    auto optional = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
    out.push_back({{"workload", c.workload},
                   {"baseline", c.baseline},
                   {"variant", c.variant},
                   {"metric", "ops_per_second"},
                   {"status", c.status},
                   {"baseline_median", figure(c.baseline_rps)},
                   {"variant_median", figure(c.variant_rps)},
                   {"ratio", optional(c.ratio)},
                   {"pair_ratio_min", optional(c.pair_min)},
                   {"pair_ratio_max", optional(c.pair_max)},
                   {"ratio_ci95_low", optional(c.ci_low)},
                   {"ratio_ci95_high", optional(c.ci_high)}});
  }
  return out;
}

static json sweeps_json(const engine::ScenarioResult& result) {
  json out = json::array();
  for (const auto& s : sweeps(result)) {
    json fit = nullptr;
    if (s.fit) fit = {{"a_us", s.fit->a}, {"b_us_per_unit", s.fit->b}, {"r2", s.fit->r2}};
    json growth = nullptr;
    if (s.growth) {
      growth = {{"median_exponent", s.growth->median},
                {"worst_exponent", s.growth->worst},
                {"worst_pair", {s.n[s.growth->worst_pair], s.n[s.growth->worst_pair + 1]}},
                {"class", results::growth_class(s.growth->median)}};
    }
    json left_out = json::array();
    for (const auto& p : s.left_out) left_out.push_back({{"n", p.n}, {"reason", p.reason}});
    out.push_back({{"workload", s.workload},
                   {"variant", s.variant},
                   {"parameter", s.parameter},
                   {"cost", "latency_p50_us"},
                   {"n", s.n},
                   {"cost_us", s.cost_us},
                   {"fit", fit},
                   {"growth", growth},
                   {"left_out", left_out}});
  }
  return out;
}

json scenario_json(const ScenarioReport& report) {
  const auto& result = report.result;
  json workloads = json::array();
  for (const auto& w : result.workloads) workloads.push_back(workload_json(w));
  json gates = json::array();
  for (const auto& g : report.gates) gates.push_back(gate_json(g, report.strict));
  return {{"name", result.scenario},
          {"run_id", report.run_id ? json(report.run_id) : json(nullptr)},
          {"system_under_test", result.system_description},
          {"binaries", store::binaries_json(report.binaries)},
          {"status", report.status.empty() ? json(nullptr) : json(report.status)},
          {"ok", result.ok()},
          {"interrupted", result.interrupted},
          // As the store says it (runs.error): a run that exits 3 on a critical gate that is an
          // error says so here too.
          {"error", report.run_error().empty() ? json(nullptr) : json(report.run_error())},
          {"exit_code", report.exit_code},
          {"strict", report.strict},
          {"workloads", workloads},
          {"gates", gates},
          {"comparisons", comparisons_json(result)},
          {"sweeps", sweeps_json(result)}};
}

std::string json_report(const std::vector<ScenarioReport>& reports, int exit_code) {
  json scenarios = json::array();
  for (const auto& report : reports) scenarios.push_back(scenario_json(report));
  json doc = {
      {"benchgate", command_line::version()}, {"scenarios", scenarios}, {"exit_code", exit_code}};
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace benchgate::report
