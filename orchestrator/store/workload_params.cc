// Canonical workload parameters (workload_params.h).
#include "orchestrator/store/workload_params.h"

#include <nlohmann/json.hpp>

#include "orchestrator/store/sha256.h"

namespace benchgate::store {

std::string protocol_name(scenario::Protocol protocol) { return scenario::to_string(protocol); }

nlohmann::json load_params_json(const scenario::Workload& w) {
  return {
      {"protocol", protocol_name(w.protocol)},
      {"warmup_ns", w.warmup_ns},
      {"duration_ns", w.duration_ns},
      {"repetitions", w.repetitions},
      {"workers", w.workers},
      {"threads", w.threads},
      {"worker", w.worker},
      {"timeout_ns", w.timeout_ns},
      {"connections", w.connections},
      {"in_flight", w.in_flight},
      {"rate", w.rate},
  };
}

nlohmann::json http_params_json(const scenario::HttpRequest& http) {
  return {
      {"method", http.method},
      {"target", http.target},
      {"request_bytes", http.request_bytes},
      {"expect_status", http.expect_status ? nlohmann::json(*http.expect_status) : nullptr},
      {"expect_body_bytes",
       http.expect_body_bytes ? nlohmann::json(*http.expect_body_bytes) : nullptr},
      {"headers", http.headers},
  };
}

std::string workload_params_json(const scenario::Workload& w) {
  // nlohmann::json objects keep keys sorted, so dump() is canonical. This text is hashed into
  // the series key: a WAMP workload keeps the `http` block (HTTP defaults) it has always had,
  // since leaving it out would start a new series for every stored WAMP workload. The JSON
  // report gives each protocol only its own block (report/json_report.cc); the hashes of
  // known definitions are pinned in tests/unit/orchestrator/store/environment_test.cc.
  nlohmann::json j = load_params_json(w);
  j["name"] = w.name;
  j["http"] = http_params_json(w.http);
  // Only WAMP workloads carry the key, so HTTP workloads keep the hashes (series) they had.
  if (!scenario::is_http(w.protocol)) j["wamp"] = wamp_params_json(w.wamp);
  // TLS and HTTP/2 settings only where they apply, for the same reason: an https or h2
  // workload is a series of its own, a cleartext HTTP/1.1 one keeps its hash.
  if (w.tls.enabled) j["tls"] = tls_params_json(w.tls);
  if (w.protocol == scenario::Protocol::kHttp2) j["http2"] = http2_params_json(w);
  // Only where set, for the same reason.
  if (w.new_connection_per_request) j["new_connection_per_request"] = true;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json tls_params_json(const scenario::TlsSettings& tls) {
  if (!tls.enabled) return nullptr;
  const auto text = [](const std::string& v) {
    return v.empty() ? nlohmann::json() : nlohmann::json(v);
  };
  nlohmann::json j = {{"version", text(tls.version)}, {"ciphers", text(tls.ciphers)},
                      {"sni", text(tls.sni)},         {"ca_file", text(tls.ca_file)},
                      {"insecure", tls.insecure},     {"alpn", tls.alpn}};
  // Only where set: a TLS workload stored before keeps its series.
  if (tls.resumption) j["resumption"] = true;
  return j;
}

nlohmann::json http2_params_json(const scenario::Workload& w) {
  if (w.protocol != scenario::Protocol::kHttp2) return nullptr;
  return {{"streams", w.http2.streams},
          {"initial_window", w.http2.initial_window},
          {"max_frame_size", w.http2.max_frame_size}};
}

nlohmann::json wamp_params_json(const scenario::WampRequest& wamp) {
  nlohmann::json j = {
      {"transport", wamp.transport},
      {"serializer", wamp.serializer},
      {"realm", wamp.realm},
      {"procedure", wamp.procedure},
      {"callee", wamp.callee},
      {"topic", wamp.topic},
      {"publishers", wamp.publishers},
      {"subscribers", wamp.subscribers},
      {"request_bytes", wamp.request_bytes},
  };
  // Only where set, so that the series of unfragmented workloads keep their hashes.
  if (wamp.fragment_bytes > 0) j["fragment_bytes"] = wamp.fragment_bytes;
  if (wamp.session_per_operation) j["session_per_operation"] = true;  // where set, as above
  // Shared registrations, a slow callee, call timeouts and cancellation: where set, as above.
  if (wamp.callee_sessions != 1) j["callee_sessions"] = wamp.callee_sessions;
  if (wamp.invoke != "single") j["invoke"] = wamp.invoke;
  if (wamp.callee_delay_ns > 0) j["callee_delay_ns"] = wamp.callee_delay_ns;
  if (wamp.call_timeout_ns > 0) j["call_timeout_ns"] = wamp.call_timeout_ns;
  if (wamp.cancel_after_ns > 0) {
    j["cancel_after_ns"] = wamp.cancel_after_ns;
    j["cancel_mode"] = wamp.cancel_mode;
  }
  if (wamp.transfer_bytes > 0) {  // wamp_transfer only
    j["transfer_bytes"] = wamp.transfer_bytes;
    j["chunk_bytes"] = wamp.chunk_bytes;
  }
  return j;
}

std::string workload_params_hash(const scenario::Workload& workload) {
  return sha256_hex(workload_params_json(workload));
}

}  // namespace benchgate::store
