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
  if (w.protocol != scenario::Protocol::kHttp1) j["wamp"] = wamp_params_json(w.wamp);
  return j.dump();
}

nlohmann::json wamp_params_json(const scenario::WampRequest& wamp) {
  return {
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
}

std::string workload_params_hash(const scenario::Workload& workload) {
  return sha256_hex(workload_params_json(workload));
}

}  // namespace benchgate::store
