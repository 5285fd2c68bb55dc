// Stored records back to the results model; see stored_run.h.
#include "orchestrator/report/stored_run.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "orchestrator/scenario/scenario_loader.h"

namespace benchgate::report {
namespace {

std::optional<HdrHistogram> decode(const std::vector<uint8_t>& bytes) {
  if (bytes.empty()) return std::nullopt;
  auto h = HdrHistogram::decode(std::span(bytes.data(), bytes.size()));
  if (!h) return std::nullopt;
  return std::move(h).value();
}

std::optional<HdrHistogram> decode(const std::optional<std::vector<uint8_t>>& bytes) {
  return bytes ? decode(*bytes) : std::nullopt;
}

// What store_workloads.cc wrote (tool_latency_json); malformed text gives no figures.
std::optional<results::ToolLatency> tool_latency(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  results::ToolLatency t;
  t.tool = j.value("tool", "");
  auto ns = [&](const char* key) -> std::optional<int64_t> {
    if (!j.contains(key) || !j[key].is_number()) return std::nullopt;
    return j[key].get<int64_t>();
  };
  t.min_ns = ns("min_ns");
  t.mean_ns = ns("mean_ns");
  t.stdev_ns = ns("stdev_ns");
  t.max_ns = ns("max_ns");
  if (j.contains("percentiles_ns") && j["percentiles_ns"].is_object()) {
    for (const auto& [key, value] : j["percentiles_ns"].items()) {
      if (value.is_number()) t.percentiles_ns[key] = value.get<int64_t>();
    }
  }
  return t;
}

results::Repetition repetition(const store::StoredRepetition& s) {
  results::Repetition r;
  r.index = s.index;
  r.start_unix_ns = s.start_ns;
  r.duration_ns = s.duration_ns;
  r.data_window_ns = s.data_window_ns.value_or(0);
  r.operations = s.operations;
  r.successes = s.successes;
  r.errors = s.errors;
  r.bytes_sent = s.bytes_sent.value_or(0);
  r.bytes_received = s.bytes_received.value_or(0);
  r.late_sends = s.late_sends;
  r.unsent = s.unsent;
  if (auto h = decode(s.latency_hdr)) r.latency = std::move(*h);
  r.service_time = decode(s.service_time_hdr);
  r.worker_cpu_seconds = s.worker_cpu_s.value_or(0);
  r.worker_cpu_utilization = s.worker_cpu_utilization.value_or(0);
  r.router.collected = s.router_collected;
  r.router.sampled = s.router_sampled;
  r.router.requests = s.router_requests;
  r.router.cpu_seconds = s.router_cpu_s;
  r.router.rss_bytes = s.router_rss_bytes;
  r.router.counter_deltas = s.router_metrics;
  // No column says whether counters were read: a scrape that counted nothing reads back as
  // none read.
  r.router.counters_collected = s.router_collected || !s.router_metrics.empty();
  r.router.handling = decode(s.router_handling_hdr);
  // What completed inside the window (schema 5): the count is stored, the byte counts only as
  // their rates over the window, which give back the same rates.
  r.in_window = s.window_successes.has_value();
  if (r.in_window) {
    r.window_successes = *s.window_successes;
    const double seconds = static_cast<double>(s.duration_ns) / 1e9;
    if (s.bytes_per_s) {
      r.window_bytes_received = static_cast<uint64_t>(std::llround(*s.bytes_per_s * seconds));
    }
    if (s.payload_bytes_per_s) {
      r.window_payload_bytes =
          static_cast<uint64_t>(std::llround(*s.payload_bytes_per_s * seconds));
    }
  }
  r.worker_cpu_wait_share = s.worker_cpu_wait_share;
  // Each worker's start skew, from its row (worker_windows.start_skew_ns, schema version 15),
  // the list the live run gives: every worker's in the order of its rows, or none unless every
  // worker reported its start (engine/start_sync.h). A run stored before kept the largest alone
  // (repetitions.start_skew_ns): no list, which one entry would pass for, and the largest for
  // max_start_skew_ns() to answer.
  const bool every_start =
      !s.workers.empty() && std::all_of(s.workers.begin(), s.workers.end(),
                                        [](const auto& w) { return w.start_skew_ns.has_value(); });
  if (every_start) {
    for (const auto& w : s.workers) r.worker_start_skew_ns.push_back(*w.start_skew_ns);
  } else {
    r.stored_max_start_skew_ns = s.start_skew_ns;
  }
  r.latency_clamped = s.latency_clamped;
  r.stopped = s.stopped;
  r.flags = s.flags;
  r.not_measured.insert(s.not_measured.begin(), s.not_measured.end());
  r.tool_latency = tool_latency(s.tool_latency_json);
  for (const auto& t : s.timeline) {
    r.timeline.push_back(
        results::TimelineSecond{t.second, t.ops_per_s, t.errors, t.p50_ns, t.p99_ns, t.max_ns});
  }
  r.start_spread_ns = s.start_spread_ns;
  // Connection setup (schema version 13): `connections` is there when every worker reported
  // setups, 0 when none was set up in the window, which results::not_measured_reason words as
  // the live run did. Its histograms are stored from schema version 21; a run stored before
  // kept their p50 and p99 only, of which no workload figure (every repetition merged) can be
  // made: they read back empty, and the reports say they are not stored (Repetition::not_stored).
  if (s.connections) {
    results::ConnectionSetup setup;
    setup.connections = *s.connections;
    setup.handshakes = s.handshakes.value_or(0);
    setup.resumed = s.resumed.value_or(0);
    if (s.connect_hdr) {
      if (auto h = decode(s.connect_hdr)) setup.connect = std::move(*h);
      if (auto h = decode(s.tls_handshake_hdr)) setup.tls_handshake = std::move(*h);
      if (auto h = decode(s.ttfb_hdr)) setup.ttfb = std::move(*h);
    } else {
      r.not_stored.insert("setup");
    }
    r.setup = std::move(setup);
  }
  // WAMP session setup (schema version 16: the count; 21: the histogram), as connection setup.
  if (s.sessions) {
    if (s.session_setup_hdr) {
      r.session_setup = decode(s.session_setup_hdr).value_or(HdrHistogram());
    } else {
      r.stored_sessions = s.sessions;
      r.not_stored.insert("session_setup");
    }
  }
  // TLS as the server chose it and HTTP/2's streams (schema version 13).
  if (s.tls_version) {
    r.tls = results::NegotiatedTls{*s.tls_version, s.tls_cipher.value_or(""), s.alpn.value_or("")};
  }
  r.requested_streams = static_cast<uint32_t>(s.requested_streams.value_or(0));
  r.effective_streams = static_cast<uint32_t>(s.effective_streams.value_or(0));
  // Invocations per callee session (schema version 21).
  if (s.callee_invocations) {
    for (const int64_t n : *s.callee_invocations) {
      r.callee_invocations.push_back(static_cast<uint64_t>(n));
    }
  }
  // Why the router ended sessions (schema version 22).
  if (s.sessions_ended) {
    for (const store::StoredSessionsEnded& e : *s.sessions_ended) {
      r.sessions_ended.push_back({static_cast<uint32_t>(e.worker), e.reason, e.sessions});
    }
  }
  r.window_connections = s.window_connections;
  for (const auto& w : s.workers) {
    results::WorkerShare share;
    share.worker = w.worker;
    share.operations = w.operations;
    share.successes = w.successes;
    share.errors = w.errors;
    share.ops_per_second = w.ops_per_s;
    share.p99_ns = w.p99_ns;
    share.max_ns = w.max_ns;
    share.cpu_utilization = w.cpu_utilization;
    share.p50_ns = w.p50_ns;
    share.host = w.host.value_or("");
    share.clock_offset_ns = w.clock_offset_ns;
    share.rtt_ns = w.rtt_ns;
    share.start_skew_ns = w.start_skew_ns;
    r.workers.push_back(std::move(share));
  }
  return r;
}

// The stored name (results::status_name, what store_workloads.cc wrote) back to its status, so
// that the HTML says what the terminal, the JSON and the Markdown said: an interrupted workload
// is "interrupted", not "failed". A workload that was not run is stored as failed with its
// reason ("not run: ..."), as the live run reports it. A name no version writes is no status
// the report can claim: it reads as failed, its error says why.
results::WorkloadStatus status(const std::string& name) {
  for (auto s : {results::WorkloadStatus::kOk, results::WorkloadStatus::kFailed,
                 results::WorkloadStatus::kNotConfigured, results::WorkloadStatus::kInterrupted}) {
    if (name == results::status_name(s)) return s;
  }
  return results::WorkloadStatus::kFailed;
}

// Whether the workload reconnected per operation, from its stored parameters
// (store/workload_params.cc), for a run whose scenario text no longer defines it: what
// results::resumed_handshakes reads, so that `resumed` reads back as the live run reported it.
void reconnects_as_stored(const std::string& params_json, scenario::Workload& spec) {
  const auto j = nlohmann::json::parse(params_json, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return;
  const auto flag = [](const nlohmann::json& object, const char* key) {
    return object.is_object() && object.contains(key) && object[key].is_boolean() &&
           object[key].get<bool>();
  };
  spec.new_connection_per_request = flag(j, "new_connection_per_request");
  if (j.contains("wamp")) {
    spec.wamp.session_per_operation = flag(j["wamp"], "session_per_operation");
  }
}

scenario::Protocol protocol(const std::string& name) {
  if (name == "http2") return scenario::Protocol::kHttp2;
  if (name == "wamp_rpc") return scenario::Protocol::kWampRpc;
  if (name == "wamp_pubsub") return scenario::Protocol::kWampPubSub;
  if (name == "wamp_transfer") return scenario::Protocol::kWampTransfer;
  return scenario::Protocol::kHttp1;
}

}  // namespace

engine::ScenarioResult result_from_store(const store::RunDetail& run) {
  engine::ScenarioResult out;
  out.scenario = run.run.scenario;
  out.error = run.run.error;
  out.interrupted = run.run.status == "aborted";
  // The specs as the run's own text defines them (as `gate RUN` reads its gates, a gate the
  // loader refuses now kept). Ports are allocated by the loader but nothing listens on them.
  scenario::LoadOptions options;
  options.keep_refused_gates = true;
  auto loaded = scenario::load_scenario_text(
      run.scenario_text, "run " + std::to_string(run.run.id) + " scenario", options);
  const scenario::Scenario* spec = loaded.scenario ? &*loaded.scenario : nullptr;
  if (spec) {
    out.variants = spec->compare_workers.empty() ? spec->compare_routers : spec->compare_workers;
  }
  for (const auto& stored : run.workloads) {
    results::WorkloadResult w;
    bool found = false;
    if (spec) {
      for (const auto& candidate : spec->workloads) {
        if (candidate.name == stored.name) {
          w.spec = candidate;
          found = true;
          break;
        }
      }
    }
    if (!found) {
      w.spec.name = stored.name;
      w.spec.protocol = protocol(stored.protocol);
      reconnects_as_stored(stored.params_json, w.spec);
    }
    // The sweep it is a value of, as stored from schema version 26: the scenario text loaded
    // again gives it only where the text still loads here (a `${env:NAME}` unset, a `ca_file`
    // not there and it does not). A run stored before has the text's, or none.
    if (stored.sweep_of && stored.sweep_parameter && stored.sweep_value) {
      w.spec.sweep_of = *stored.sweep_of;
      w.spec.sweep_parameter = *stored.sweep_parameter;
      w.spec.sweep_value = *stored.sweep_value;
    }
    w.variant = stored.variant;
    w.status = status(stored.status);
    w.error = stored.error;
    if (w.status == results::WorkloadStatus::kFailed && stored.status != "failed") {
      w.error = "stored status '" + stored.status + "'" + (w.error.empty() ? "" : ": " + w.error);
    }
    w.load_from = stored.load_from.value_or("");
    w.worker_name = stored.worker_name.value_or("");
    w.worker_version = stored.worker_version.value_or("");
    for (const int64_t threads : stored.worker_threads.value_or(std::vector<int64_t>{})) {
      // A worker's Ready.threads is a uint32; a store edited by hand may hold anything.
      w.worker_threads.push_back(
          static_cast<uint32_t>(std::clamp<int64_t>(threads, 0, UINT32_MAX)));
    }
    // wamp_rpc with worker callees counted each callee's invocations, stored from schema
    // version 21: a run stored before says they are not stored.
    const bool worker_callees =
        w.spec.protocol == scenario::Protocol::kWampRpc && w.spec.wamp.callee == "worker";
    for (const auto& rep : stored.repetitions) {
      w.repetitions.push_back(repetition(rep));
      if (worker_callees && !rep.callee_invocations) {
        w.repetitions.back().not_stored.insert("callee_invocations");
      }
      // A WAMP window's protocol errors may be sessions the router ended, whose reasons are
      // stored from schema version 22.
      const auto& errors = w.repetitions.back().errors;
      const auto protocol_errors = errors.find("protocol");
      if (!scenario::is_http(w.spec.protocol) && !rep.sessions_ended &&
          protocol_errors != errors.end() && protocol_errors->second > 0) {
        w.repetitions.back().not_stored.insert("sessions_ended");
      }
    }
    // As the engine merges them (workload_runner.cc): every measured repetition.
    w.merge_latency();
    out.workloads.push_back(std::move(w));
  }
  return out;
}

}  // namespace benchgate::report
