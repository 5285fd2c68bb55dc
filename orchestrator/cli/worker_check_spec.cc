#include "orchestrator/cli/worker_check_spec.h"

#include <array>
#include <string_view>
#include <utility>

#include "common/util/shown_list.h"

namespace benchgate::cli {
namespace {

using scenario::Protocol;

constexpr std::array<Protocol, 5> kProtocols = {Protocol::kHttp1, Protocol::kHttp2,
                                                Protocol::kWampRpc, Protocol::kWampPubSub,
                                                Protocol::kWampTransfer};

// The kinds docs/WORKER_PROTOCOL.md lists "for WAMP" (common/workload/error_kinds.h has them
// all, as `run` accepts any of them whatever the protocol).
constexpr std::array<std::string_view, 7> kWampOnlyKinds = {
    "wamp_error",     "callee_error", "not_authorized", "lost",
    "chunk_mismatch", "call_timeout", "canceled"};

// wamp_transfer's sizes: small, so that a 1 s window holds many transfers on 2 sessions, and
// more than one chunk each, so that the progressive results are what is checked.
constexpr uint64_t kTransferBytes = 64 * 1024;
constexpr uint64_t kChunkBytes = 16 * 1024;

std::string protocol_names() {
  std::string names;
  for (Protocol p : kProtocols) names += (names.empty() ? "" : ", ") + std::string(to_string(p));
  return names;
}

// What people call a protocol that is not its name here.
std::string hint(const std::string& given) {
  if (given == "h2c" || given == "h2" || given == "http/2" || given == "HTTP/2") {
    return " (HTTP/2, h2c with prior knowledge, is http2)";
  }
  if (given == "h1" || given == "http" || given == "http/1.1" || given == "HTTP/1.1") {
    return " (HTTP/1.1 is http1)";
  }
  if (given == "wamp" || given == "rpc" || given == "pubsub") {
    return " (WAMP is wamp_rpc, wamp_pubsub or wamp_transfer; --wamp-transport chooses "
           "websocket or rawsocket)";
  }
  return "";
}

bool one_of(const std::string& value, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    if (value == name) return true;
  }
  return false;
}

}  // namespace

Expected<CheckProtocol> parse_check_protocol(const std::string& protocol,
                                             const std::string& transport,
                                             const std::string& serializer) {
  CheckProtocol chosen;
  bool known = false;
  for (Protocol p : kProtocols) {
    if (protocol == to_string(p)) {
      chosen.protocol = p;
      known = true;
    }
  }
  if (!known) {
    return Error{"--protocol '" + shown_cut(protocol, ShownList::kItemBytes) + "' is not one of " +
                     protocol_names() + hint(protocol),
                 ErrorKind::kInvalidInput};
  }
  if (scenario::is_http(chosen.protocol)) {
    for (const auto& [flag, value] :
         {std::pair{"--wamp-transport", &transport}, std::pair{"--wamp-serializer", &serializer}}) {
      if (!value->empty()) {
        return Error{std::string(flag) + " applies to the WAMP protocols only, not to " +
                         "--protocol " + protocol,
                     ErrorKind::kInvalidInput};
      }
    }
    return chosen;
  }
  chosen.wamp_transport = transport.empty() ? "websocket" : transport;
  chosen.wamp_serializer = serializer.empty() ? "json" : serializer;
  if (!one_of(chosen.wamp_transport, {"websocket", "rawsocket"})) {
    return Error{"--wamp-transport '" + shown_cut(transport, ShownList::kItemBytes) +
                     "' is not one of websocket, rawsocket",
                 ErrorKind::kInvalidInput};
  }
  if (!one_of(chosen.wamp_serializer, {"json", "msgpack", "cbor"})) {
    return Error{"--wamp-serializer '" + shown_cut(serializer, ShownList::kItemBytes) +
                     "' is not one of json, msgpack, cbor",
                 ErrorKind::kInvalidInput};
  }
  return chosen;
}

std::string check_workload_text(const CheckProtocol& p) {
  const std::string connections = std::to_string(kCheckConnections) + " connections";
  switch (p.protocol) {
    case Protocol::kHttp1:
      return "http1: GET /bench/hello, 1 in flight per connection, " + connections;
    case Protocol::kHttp2:
      return "http2 (h2c, prior knowledge): GET /bench/hello, 1 stream per connection, " +
             connections;
    case Protocol::kWampRpc:
      return "wamp_rpc over " + p.wamp_transport + " (" + p.wamp_serializer +
             "): CALL bench.echo (the router answers), 1 in flight per session, " +
             std::to_string(kCheckConnections) + " caller sessions";
    case Protocol::kWampPubSub:
      return "wamp_pubsub over " + p.wamp_transport + " (" + p.wamp_serializer +
             "): acknowledged PUBLISH to bench.topic, 1 publisher and 1 subscriber session";
    case Protocol::kWampTransfer:
      return "wamp_transfer over " + p.wamp_transport + " (" + p.wamp_serializer +
             "): bench.transfer of " + std::to_string(kTransferBytes) + " bytes in chunks of " +
             std::to_string(kChunkBytes) + ", " + std::to_string(kCheckConnections) + " sessions";
  }
  return "";
}

v1::WorkloadSpec check_spec(const CheckProtocol& p, const std::string& address) {
  v1::WorkloadSpec spec;
  spec.set_name("worker-check");
  spec.set_protocol(to_string(p.protocol));
  spec.set_address(address);
  spec.set_connections(kCheckConnections);
  spec.set_threads(1);
  spec.set_in_flight(1);
  spec.set_progress_interval_ns(kCheckProgressNs);
  spec.set_drain_timeout_ns(kCheckDrainNs);
  spec.set_connect_timeout_ns(5'000'000'000);
  if (scenario::is_http(p.protocol)) {
    auto* http = spec.mutable_http();
    http->set_method("GET");
    http->set_target("/bench/hello");
    http->set_expect_status(200);
    http->set_expect_body_bytes(12);
    if (p.protocol == Protocol::kHttp2) spec.mutable_http2()->set_streams(1);
    return spec;
  }
  // The loader's defaults (orchestrator/scenario/scenario.h WampRequest), as `run` sends them
  // (engine/load_split.cc).
  auto* wamp = spec.mutable_wamp();
  wamp->set_transport(p.wamp_transport);
  wamp->set_serializer(p.wamp_serializer);
  wamp->set_realm("realm1");
  switch (p.protocol) {
    case Protocol::kWampPubSub:
      wamp->set_kind("pubsub");
      wamp->set_topic("bench.topic");
      wamp->set_publishers(1);
      wamp->set_subscribers(kCheckConnections - 1);
      wamp->set_acknowledge(true);  // the closed loop is paced by PUBLISHED
      break;
    case Protocol::kWampTransfer:
      wamp->set_kind("transfer");
      wamp->set_procedure("bench.transfer");
      wamp->set_transfer_bytes(kTransferBytes);
      wamp->set_chunk_bytes(kChunkBytes);
      break;
    default:
      wamp->set_kind("rpc");
      wamp->set_procedure("bench.echo");
      wamp->set_callee("router");
      break;
  }
  return spec;
}

std::string check_protocol_error_kinds(const v1::WindowResult& result, Protocol protocol) {
  if (!scenario::is_http(protocol)) return "";
  std::string wrong;
  for (std::string_view kind : kWampOnlyKinds) {
    const std::string name(kind);
    const bool counted = result.errors().count(name) > 0 && result.errors().at(name) > 0;
    bool declared = false;
    for (const std::string& field : result.not_measured()) {
      declared = declared || field == "errors." + name;
    }
    if (counted || declared) wrong += (wrong.empty() ? "" : ", ") + name;
  }
  if (wrong.empty()) return "";
  return std::string(to_string(protocol)) + " defines no errors of kind " + wrong +
         " (WAMP's kinds)";
}

}  // namespace benchgate::cli
