// The identity of a workload definition: a canonical JSON of the resolved scenario::Workload and
// its hash. A series is keyed by this hash, so a changed definition starts a new series
// (docs/GATES.md, "Series and baselines").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "orchestrator/scenario/scenario.h"

namespace benchgate::store {

// "http1", ...: the protocol as scenario files name it.
std::string protocol_name(scenario::Protocol protocol);

// Every field of the workload except its source location (moving a workload within its file
// does not change what it measures), keys sorted, no whitespace: equal definitions give equal
// text. Every new field of scenario::Workload must be added here.
std::string workload_params_json(const scenario::Workload& workload);

// The blocks of workload_params_json, which the JSON report's `parameters` are made of too
// (report/json_report.cc), so that both say a workload's definition with the same keys:
// the keys of every protocol (protocol, windows, load, worker; not the name),
nlohmann::json load_params_json(const scenario::Workload& workload);
// the HTTP keys (an expectation not given is null),
nlohmann::json http_params_json(const scenario::HttpRequest& http);
// and the WAMP keys.
nlohmann::json wamp_params_json(const scenario::WampRequest& wamp);
// A workload's TLS settings (null without tls) and HTTP/2 settings (null unless http2).
nlohmann::json tls_params_json(const scenario::TlsSettings& tls);
nlohmann::json http2_params_json(const scenario::Workload& workload);

// SHA-256 (hex) of workload_params_json.
std::string workload_params_hash(const scenario::Workload& workload);

}  // namespace benchgate::store
