// The workload `orchestrator worker-check --protocol P` runs against the bundled router: one
// small closed-loop spec per protocol of the worker protocol (proto/benchgate/v1/worker.proto),
// as `run` would send it for a scenario of that protocol with the loader's defaults, and the
// rules worker-check holds a result to for that protocol alone (docs/WORKER_PROTOCOL.md,
// "Checking a worker").
#pragma once

#include <cstdint>
#include <string>

#include "benchgate/v1/worker.pb.h"
#include "common/util/expected.h"
#include "orchestrator/scenario/scenario.h"

namespace benchgate::cli {

// Connections of the check's workload (WAMP: sessions; wamp_pubsub: 1 publisher and 1
// subscriber), its progress interval and its drain.
inline constexpr uint32_t kCheckConnections = 2;
inline constexpr int64_t kCheckProgressNs = 100'000'000;
inline constexpr int64_t kCheckDrainNs = 2'000'000'000;

// The protocol worker-check runs, as its flags chose it.
struct CheckProtocol {
  scenario::Protocol protocol = scenario::Protocol::kHttp1;
  std::string wamp_transport;   // WAMP: "websocket" or "rawsocket"; empty otherwise
  std::string wamp_serializer;  // WAMP: "json", "msgpack" or "cbor"; empty otherwise
};

// --protocol, --wamp-transport and --wamp-serializer as given ("" for the two: not given): the
// protocol, or the usage error naming the flag and the value ("--protocol 'h2c' is not one of
// http1, http2, wamp_rpc, wamp_pubsub, wamp_transfer (HTTP/2 over cleartext is http2)"). The
// WAMP flags apply to the WAMP protocols only, and default to websocket and json there.
Expected<CheckProtocol> parse_check_protocol(const std::string& protocol,
                                             const std::string& transport,
                                             const std::string& serializer);

// What the check's workload is, for the rule that shows the spec: "http2 (h2c, prior
// knowledge): GET /bench/hello, 1 stream per connection, 2 connections".
std::string check_workload_text(const CheckProtocol& protocol);

// The spec of the check's workload for a worker that connects to `address` (the bundled
// router's HTTP address for http1 and http2, its WAMP address of the transport otherwise).
v1::WorkloadSpec check_spec(const CheckProtocol& protocol, const std::string& address);

// The error kinds a result of `protocol` may count, by docs/WORKER_PROTOCOL.md "What a result
// must contain": the WAMP kinds (wamp_error, callee_error, not_authorized, lost,
// chunk_mismatch, call_timeout, canceled) are WAMP's only. "" when the result's errors (and
// the errors.KIND it declares not measured) are of the protocol's kinds, else those that are
// not ("http2 defines no errors of kind wamp_error, lost (WAMP's kinds)"). Kinds no protocol
// defines are check_error_kinds' (orchestrator/workers/result_checks.h).
std::string check_protocol_error_kinds(const v1::WindowResult& result, scenario::Protocol protocol);

}  // namespace benchgate::cli
