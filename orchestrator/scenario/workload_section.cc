// [defaults] and [[workloads]]: every workload starts from [defaults] and overrides what it sets;
// checks across fields run on the resolved values and point at the key to change.
#include <algorithm>
#include <cctype>
#include <limits>
#include <map>

#include "common/units/units.h"
#include "common/util/shown_text.h"
#include "common/wamp/message_limits.h"
#include "common/wamp/uri.h"
#include "common/workload/workload_limits.h"
#include "orchestrator/scenario/protocol_keys.h"
#include "orchestrator/scenario/sections.h"
#include "orchestrator/scenario/suggest.h"

namespace benchgate::scenario {
namespace {

using workload_limits::kMaxCalleeDelayNs;
using workload_limits::kMaxCalleeSessions;
using workload_limits::kMaxCallTimeoutNs;
using workload_limits::kMaxFragmentBytes;
using workload_limits::kMaxTransferBytes;
using workload_limits::kMaxWampPayloadBytes;
using workload_limits::kMinFragmentBytes;

// Keys [defaults] and a workload share: the phases and the load shape.
const std::vector<std::string_view> kSharedKeys = {
    "warmup",         "duration",       "repetitions",    "workers",   "threads",
    "worker",         "timeout",        "connections",    "in_flight", "rate",
    "on_worker_loss", "max_start_skew", "expect_failures"};

const std::vector<std::string_view> kHttpKeys = {
    "name",    "protocol",      "method",        "target",
    "headers", "request_bytes", "expect_status", "expect_body_bytes"};

// Keys of the WAMP protocols (request_bytes is shared with HTTP).
const std::vector<std::string_view> kWampKeys = {"transport",
                                                 "serializer",
                                                 "realm",
                                                 "procedure",
                                                 "callee",
                                                 "topic",
                                                 "publishers",
                                                 "subscribers",
                                                 "auth",
                                                 "fragment_bytes",
                                                 "transfer_bytes",
                                                 "chunk_bytes",
                                                 "session_per_operation",
                                                 "callee_sessions",
                                                 "invoke",
                                                 "callee_delay",
                                                 "call_timeout",
                                                 "cancel_after",
                                                 "cancel_mode"};

// wamp_rpc's shared registrations, call timeouts and cancellation (read_wamp_rpc_advanced).
const std::vector<std::string_view> kWampRpcOnlyKeys = {
    "callee_sessions", "invoke", "callee_delay", "call_timeout", "cancel_after", "cancel_mode"};

const std::vector<NotYet> kWorkloadNotYet = {};

const std::vector<std::string_view> kSupportedProtocols = {"http1", "http2", "wamp_rpc",
                                                           "wamp_pubsub", "wamp_transfer"};

// Records where a field got its value, or that its value was invalid.
class Fields {
 public:
  Fields(TableReader& reader, WorkloadTemplate& out, bool in_workload)
      : r_(reader), out_(out), in_workload_(in_workload) {}

  template <class T, class U>
  void take(std::string_view key, std::optional<T> value, U& field) {
    if (!r_.has(key)) return;
    if (!value) {
      out_.broken.insert(std::string(key));
      return;
    }
    field = static_cast<U>(*value);
    out_.broken.erase(std::string(key));
    out_.set_at[std::string(key)] = Origin{r_.key_location(key), in_workload_};
  }

 private:
  TableReader& r_;
  WorkloadTemplate& out_;
  bool in_workload_;
};

// A count the bundled worker bounds (common/workload/workload_limits.h): refused past `max` at
// its value, saying why; nothing then, so that checks across keys leave it alone.
std::optional<uint32_t> bounded_count(TableReader& r, std::string_view key, uint32_t max,
                                      std::string_view why) {
  auto v = r.count(key);
  if (!v || *v <= max) return v;
  r.diagnostics().error(r.value_location(key), "key '" + std::string(key) + "' must be at most " +
                                                   std::to_string(max) + " (" + std::string(why) +
                                                   "), got " + std::to_string(*v));
  return std::nullopt;
}

void read_shared(TableReader& r, WorkloadTemplate& t, bool in_workload) {
  Fields f(r, t, in_workload);
  Workload& w = t.values;
  f.take("warmup", r.duration_ns("warmup", /*allow_zero=*/true), w.warmup_ns);
  f.take("duration", r.duration_ns("duration", false), w.duration_ns);
  f.take("timeout", r.duration_ns("timeout", false), w.timeout_ns);
  f.take("max_start_skew", r.duration_ns("max_start_skew", false), w.max_start_skew_ns);
  f.take("repetitions", r.count("repetitions"), w.repetitions);
  if (r.has("repetitions")) {
    w.repetitions_where = r.value_location("repetitions");
    w.repetitions_refused = t.broken.count("repetitions") != 0;
  }
  f.take("workers",
         bounded_count(r, "workers", workload_limits::kMaxWorkers,
                       "the limit of worker processes, as for --workers"),
         w.workers);
  f.take("threads",
         bounded_count(r, "threads", workload_limits::kMaxThreads,
                       "the bundled worker's limit of load threads"),
         w.threads);
  f.take("connections", r.count("connections"), w.connections);
  f.take("in_flight",
         bounded_count(r, "in_flight", workload_limits::kMaxInFlight,
                       "the bundled worker's limit: it allocates a slot per request up front"),
         w.in_flight);
  f.take("rate", r.number("rate", 0), w.rate);
  // "builtin" or a [worker_impls] name: checked once every section is read.
  f.take("worker", r.string("worker"), w.worker);
  if (r.has("worker")) w.worker_where = r.value_location("worker");
  f.take("on_worker_loss", read_worker_loss(r), w.on_worker_loss);
  f.take("expect_failures", r.boolean("expect_failures"), w.expect_failures);
}

bool is_token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

void read_http(TableReader& r, Workload& w) {
  Diagnostics& diag = r.diagnostics();
  if (auto method = r.string("method")) {
    const bool upper = !method->empty() && std::all_of(method->begin(), method->end(),
                                                       [](char c) { return c >= 'A' && c <= 'Z'; });
    if (!upper) {
      diag.error(r.value_location("method"),
                 "key 'method' must be an HTTP method in upper case such as GET or POST, got '" +
                     shown_text(*method) + "'");
    }
    w.http.method = std::move(*method);
  }
  if (auto target = r.string("target")) {
    const bool clean = std::none_of(target->begin(), target->end(), [](char c) {
      return static_cast<unsigned char>(c) <= ' ' || c == 0x7f;
    });
    if (!target->starts_with("/") || !clean) {
      diag.error(r.value_location("target"),
                 "key 'target' must be a path starting with '/' without spaces, such as "
                 "\"/bench/hello\", got \"" +
                     shown_text(*target) + "\"");
    }
    w.http.target = std::move(*target);
  }
  if (auto v = r.size_bytes("request_bytes")) w.http.request_bytes = *v;
  if (auto v = r.integer("expect_status", 100, 599))
    w.http.expect_status = static_cast<uint32_t>(*v);
  if (auto v = r.size_bytes("expect_body_bytes")) {
    // The worker protocol carries it as an int64 (-1: unset); a size in units can pass that,
    // and came to the worker as a negative length it refused.
    constexpr uint64_t kMaxExpectBodyBytes = std::numeric_limits<int64_t>::max();
    if (*v > kMaxExpectBodyBytes) {
      diag.error(r.value_location("expect_body_bytes"),
                 "key 'expect_body_bytes' must be at most " + std::to_string(kMaxExpectBodyBytes) +
                     " (the worker protocol's 64-bit length), got " +
                     r.size_text("expect_body_bytes", *v));
    }
    w.http.expect_body_bytes = *v;
  }
  if (auto headers = r.string_table("headers")) {
    const toml::table& table = *r.node("headers")->as_table();
    for (const auto& [name, value] : *headers) {
      const Location at = diag.at(table.find(name)->first.source());
      if (name.empty() || !std::all_of(name.begin(), name.end(), is_token_char)) {
        diag.error(at, "header name '" + shown_text(name) + "' is not a valid HTTP token");
      }
      if (value.find_first_of("\r\n") != std::string::npos ||
          value.find('\0') != std::string::npos) {
        diag.error(at, "header '" + shown_text(name) + "' must not contain line breaks");
      }
      std::string lower = name;
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (lower == "content-length" || lower == "transfer-encoding") {
        diag.error(at, "header '" + shown_text(name) + "' is set by the worker from request_bytes");
      }
    }
    w.http.headers = std::move(*headers);
  }
}

Location blame(const WorkloadTemplate& t, const std::vector<std::string_view>& keys);

const std::vector<std::string_view> kHttpOnlyKeys = {"method", "target", "headers", "expect_status",
                                                     "expect_body_bytes"};

// Keys that belong to another protocol than the workload's.
void refuse_keys(TableReader& r, const std::vector<std::string_view>& keys,
                 std::string_view owner) {
  for (std::string_view key : keys) {
    if (r.has(key)) {
      r.diagnostics().error(r.key_location(key), "key '" + std::string(key) + "' applies to " +
                                                     std::string(owner) + " only");
    }
  }
}

// The keys `sweep` can set (sweep_section.cc): a protocol that refuses one refuses it in a sweep
// too.
const std::vector<std::string_view> kSweepableKeys = {"request_bytes", "connections"};

// A key's value as the scenario wrote it, for a message: 4, "1KiB".
std::string value_text(const toml::node& node) {
  if (auto i = node.value<int64_t>(); i && node.is_integer()) return std::to_string(*i);
  if (auto text = node.value<std::string>(); text && node.is_string()) {
    return "\"" + shown_text(*text) + "\"";
  }
  return std::string(toml_type_name(node));
}

// A size limit in a message, from its constant, as the docs write it: "64MiB".
std::string mib_text(uint64_t bytes) { return std::to_string(bytes >> 20) + "MiB"; }

constexpr uint64_t kDefaultTransferBytes = uint64_t{64} << 20;
constexpr uint64_t kDefaultChunkBytes = uint64_t{4} << 20;
// RawSocket's 24-bit frame length, less room for the message around the payload.
constexpr uint64_t kRawSocketMaxPayload =
    wamp_limits::kRawSocketMaxMessageBytes - wamp_limits::kEnvelopeBytes;
// The bundled router's default WebSocket message limit, less the same room.
constexpr uint64_t kWebSocketMaxPayload =
    wamp_limits::kRouterDefaultMaxMessageBytes - wamp_limits::kEnvelopeBytes;

}  // namespace

std::optional<std::string> protocol_refuses(Protocol protocol, std::string_view key) {
  if (key == "request_bytes" && protocol == Protocol::kWampTransfer) {
    return "applies to the protocols other than wamp_transfer only (a transfer's sizes are "
           "transfer_bytes and chunk_bytes)";
  }
  if (key == "connections" && protocol == Protocol::kWampPubSub) {
    return "does not apply to wamp_pubsub: its sessions are publishers and subscribers";
  }
  return std::nullopt;
}

std::optional<std::string> wamp_payload_problem(const WampRequest& wamp, uint64_t bytes,
                                                const std::string& shown) {
  const uint64_t encoded = wamp.serializer == "json" ? (bytes + 2) / 3 * 4 : bytes;
  if (bytes > kMaxWampPayloadBytes) {
    return "must be at most " + mib_text(kMaxWampPayloadBytes) + " for WAMP, got " + shown;
  }
  if (wamp.transport == "rawsocket" && encoded > kRawSocketMaxPayload) {
    return "must fit one RawSocket message (" +
           std::to_string((wamp_limits::kRawSocketMaxMessageBytes + 1) >> 20) + " MiB - 1 bytes" +
           (wamp.serializer == "json" ? ", and json carries them as base64" : "") + "), got " +
           shown + "; use transport = \"websocket\" for larger payloads";
  }
  if (wamp.transport == "websocket" && encoded > kWebSocketMaxPayload) {
    return "must fit one WebSocket message of the bundled router (its --max-message-bytes "
           "default, " +
           std::to_string(wamp_limits::kRouterDefaultMaxMessageBytes >> 20) +
           " MiB, and json carries them as base64), got " + shown +
           "; use serializer = \"msgpack\" or \"cbor\" for larger payloads";
  }
  return std::nullopt;
}

namespace {

// wamp_transfer's sizes: a chunk is one progressive RESULT, so it must fit one message of the
// transport and of the bundled router (wamp_payload_problem); the transfer is bounded so that
// one operation stays within a benchmark's window at loopback speed.
void read_wamp_transfer(TableReader& r, WampRequest& wamp) {
  Diagnostics& diag = r.diagnostics();
  bool total_ok = true;
  if (auto v = r.size_bytes("transfer_bytes")) {
    wamp.transfer_bytes = *v;
    if (*v < 1 || *v > kMaxTransferBytes) {
      total_ok = false;
      diag.error(r.value_location("transfer_bytes"),
                 "key 'transfer_bytes' must be from 1 byte to " +
                     std::to_string(kMaxTransferBytes >> 30) + "GiB, got " +
                     r.size_text("transfer_bytes", *v));
    }
  }
  // Where a problem of the pair is blamed: chunk_bytes when set (the table when neither is).
  const Location where = r.value_location(
      r.has("chunk_bytes") || !r.has("transfer_bytes") ? "chunk_bytes" : "transfer_bytes");
  if (auto v = r.size_bytes("chunk_bytes")) {
    wamp.chunk_bytes = *v;
    if (*v < 1) {
      diag.error(where, "key 'chunk_bytes' must be at least 1 byte, got 0");
      return;
    }
  }
  const std::string chunk = r.size_text("chunk_bytes", wamp.chunk_bytes);
  if (auto problem = wamp_payload_problem(wamp, wamp.chunk_bytes, chunk)) {
    diag.error(where, "key 'chunk_bytes' " + *problem);
    return;
  }
  if (total_ok && wamp.chunk_bytes > wamp.transfer_bytes) {
    diag.error(where, "key 'chunk_bytes' (" + chunk + ") must be at most transfer_bytes (" +
                          r.size_text("transfer_bytes", wamp.transfer_bytes) + ")");
  }
}

// wamp_rpc: shared registrations over callee_sessions worker callees (invoke), a slow callee
// (callee_delay), call timeouts (call_timeout) and cancellation (cancel_after, cancel_mode).
void read_wamp_rpc_advanced(TableReader& r, WampRequest& wamp) {
  Diagnostics& diag = r.diagnostics();
  const bool worker_callee = wamp.callee == "worker";
  for (std::string_view key : {"callee_sessions", "invoke", "callee_delay"}) {
    if (r.has(key) && !worker_callee) {
      diag.error(r.key_location(key), "key '" + std::string(key) +
                                          "' applies to callee = \"worker\" only (the "
                                          "worker's own callee sessions), got callee = \"" +
                                          wamp.callee + "\"");
    }
  }
  if (auto v = r.choice("invoke", {"single", "roundrobin", "random", "first", "last"})) {
    wamp.invoke = *v;
  }
  if (auto v = r.count("callee_sessions")) {
    wamp.callee_sessions = *v;
    if (*v > kMaxCalleeSessions) {
      diag.error(r.value_location("callee_sessions"), "key 'callee_sessions' must be from 1 to " +
                                                          std::to_string(kMaxCalleeSessions) +
                                                          ", got " + std::to_string(*v));
    } else if (*v > 1 && wamp.invoke == "single") {
      diag.error(r.value_location("callee_sessions"),
                 "key 'callee_sessions' = " + std::to_string(*v) +
                     " needs a shared registration: set invoke to \"roundrobin\", \"random\", "
                     "\"first\" or \"last\" (the router allows one session to register a "
                     "procedure with invoke = \"single\")");
    }
  }
  // The limit is written from its constant, as a duration the key takes ("60s", "3600s").
  auto bounded = [&](std::string_view key, int64_t max, int64_t& field) {
    auto v = r.duration_ns(key, /*allow_zero=*/false);
    if (!v) return;
    field = *v;
    if (*v > max) {
      diag.error(r.value_location(key), "key '" + std::string(key) + "' must be at most " +
                                            format_duration_ns(static_cast<double>(max)) +
                                            ", got " + format_duration_ns(static_cast<double>(*v)));
    }
  };
  bounded("callee_delay", kMaxCalleeDelayNs, wamp.callee_delay_ns);
  bounded("cancel_after", kMaxCalleeDelayNs, wamp.cancel_after_ns);
  bounded("call_timeout", kMaxCallTimeoutNs, wamp.call_timeout_ns);
  if (wamp.call_timeout_ns % 1'000'000 != 0) {
    diag.error(r.value_location("call_timeout"),
               "key 'call_timeout' must be a whole number of milliseconds (CALL.Options.timeout "
               "is in milliseconds), got " +
                   format_duration_ns(static_cast<double>(wamp.call_timeout_ns)));
  }
  if (auto v = r.choice("cancel_mode", {"killnowait", "kill", "skip"})) {
    wamp.cancel_mode = *v;
    if (!r.has("cancel_after")) {
      diag.error(r.key_location("cancel_mode"),
                 "key 'cancel_mode' needs cancel_after (when a call is cancelled)");
    }
  }
  if (wamp.session_per_operation) {
    for (std::string_view key : {"call_timeout", "cancel_after"}) {
      if (!r.has(key)) continue;
      diag.error(r.key_location(key),
                 "key '" + std::string(key) +
                     "' does not apply with session_per_operation = true (each call is one "
                     "session's whole lifecycle)");
    }
  }
}

void read_wamp(TableReader& r, WorkloadTemplate& t) {
  Diagnostics& diag = r.diagnostics();
  Workload& w = t.values;
  WampRequest& wamp = w.wamp;
  const bool rpc = w.protocol == Protocol::kWampRpc;
  const bool transfer = w.protocol == Protocol::kWampTransfer;
  if (transfer) {
    refuse_keys(r, {"topic", "publishers", "subscribers", "callee"},
                "protocols wamp_rpc and wamp_pubsub");
    refuse_keys(r, kWampRpcOnlyKeys, "protocol wamp_rpc");
    // Every transfer is a session of its own already.
    refuse_keys(r, {"session_per_operation"}, "protocol wamp_rpc");
    wamp.procedure = "bench.transfer";
    wamp.transfer_bytes = kDefaultTransferBytes;
    wamp.chunk_bytes = kDefaultChunkBytes;
  } else {
    refuse_keys(r,
                rpc ? std::vector<std::string_view>{"topic", "publishers", "subscribers"}
                    : std::vector<std::string_view>{"procedure", "callee"},
                rpc ? "protocol wamp_pubsub" : "protocol wamp_rpc");
    refuse_keys(r, {"transfer_bytes", "chunk_bytes"}, "protocol wamp_transfer");
    if (!rpc) refuse_keys(r, {"session_per_operation"}, "protocol wamp_rpc");
    if (!rpc) refuse_keys(r, kWampRpcOnlyKeys, "protocol wamp_rpc");
  }
  // The keys a sweep can set too, by the rule the sweep obeys (protocol_refuses).
  for (std::string_view key : kSweepableKeys) {
    if (!r.has(key)) continue;
    if (auto why = protocol_refuses(w.protocol, key)) {
      diag.error(r.key_location(key),
                 "key '" + std::string(key) + "' (" + value_text(*r.node(key)) + ") " + *why);
    }
  }
  // Names the transports and serializers go by elsewhere, which are no typo of these: TLS is
  // its own key (docs/SCENARIOS.md, "TLS and HTTP/2").
  if (auto v = r.choice("transport", {"websocket", "rawsocket"},
                        {{"wss", "transport = \"websocket\" with tls = true"},
                         {"ws", "'websocket'"},
                         {"raw", "'rawsocket'"}})) {
    wamp.transport = *v;
  }
  if (auto v =
          r.choice("serializer", {"json", "msgpack", "cbor"}, {{"messagepack", "'msgpack'"}})) {
    wamp.serializer = *v;
  }
  if (auto v = r.choice("callee", {"router", "worker"})) wamp.callee = *v;
  auto uri = [&](std::string_view key, std::string& field) {
    auto v = r.string(key);
    if (!v) return;
    // The bundled router's rule (common/wamp/uri.h), so that the loader accepts what it does.
    if (!wamp::is_valid_uri(*v)) {
      diag.error(r.value_location(key), "key '" + std::string(key) +
                                            "' must be a WAMP URI such as \"bench.echo\" (dot-"
                                            "separated non-empty parts, no whitespace or '#'), "
                                            "got \"" +
                                            shown_text(*v) + "\"");
    }
    field = std::move(*v);
  };
  uri("realm", wamp.realm);
  read_wamp_auth(r, wamp);
  uri("procedure", wamp.procedure);
  uri("topic", wamp.topic);
  if (rpc && wamp.callee == "worker") {
    if (!r.has("procedure")) {
      wamp.procedure = "bench.worker.echo";
    } else if (wamp.procedure == "bench.echo") {
      diag.error(r.value_location("procedure"),
                 "callee = \"worker\" needs a procedure other than bench.echo: the router "
                 "serves bench.echo itself and refuses to register it");
    } else if (wamp.procedure.starts_with("wamp.")) {
      // router/README.md: URIs under wamp. cannot be registered (wamp.error.invalid_uri).
      diag.error(r.value_location("procedure"),
                 "callee = \"worker\" needs a procedure outside wamp.: the router refuses to "
                 "register URIs under wamp. (wamp.error.invalid_uri), got \"" +
                     shown_text(wamp.procedure) + "\"");
    }
  }
  // Recorded as fields, so that a check across them leaves an invalid one (and its default) alone.
  Fields f(r, t, /*in_workload=*/true);
  f.take("publishers", r.count("publishers"), wamp.publishers);
  f.take("subscribers", r.count("subscribers"), wamp.subscribers);
  // One worker opens them all (wamp_pubsub runs on one worker); in 64 bits, as two counts'
  // sum can pass 2^32.
  const uint64_t sessions = uint64_t{wamp.publishers} + wamp.subscribers;
  if (sessions > workload_limits::kMaxConnectionsPerWorker) {
    diag.error(r.value_location(r.has("subscribers") ? "subscribers" : "publishers"),
               "publishers + subscribers (" + std::to_string(wamp.publishers) + " + " +
                   std::to_string(wamp.subscribers) + ") must be at most " +
                   std::to_string(workload_limits::kMaxConnectionsPerWorker) +
                   ", the most sessions the bundled worker opens (a file descriptor each)");
  }
  if (auto v = r.size_bytes("fragment_bytes")) {
    wamp.fragment_bytes = *v;
    if (wamp.transport != "websocket") {
      diag.error(r.value_location("fragment_bytes"),
                 "key 'fragment_bytes' applies to transport = \"websocket\" only (RawSocket "
                 "has no fragmentation), got transport = \"" +
                     wamp.transport + "\"");
    } else if (*v != 0 && (*v < kMinFragmentBytes || *v > kMaxFragmentBytes)) {
      diag.error(r.value_location("fragment_bytes"),
                 "key 'fragment_bytes' must be 0 (off) or from " +
                     std::to_string(kMinFragmentBytes) + " bytes to " +
                     mib_text(kMaxFragmentBytes) + ", got " + r.size_text("fragment_bytes", *v));
    }
  }
  if (auto v = r.size_bytes("request_bytes")) {
    wamp.request_bytes = *v;
    if (auto problem = wamp_payload_problem(wamp, *v, r.size_text("request_bytes", *v))) {
      diag.error(r.value_location("request_bytes"), "key 'request_bytes' " + *problem);
    }
  }
  if (transfer) read_wamp_transfer(r, wamp);
  if (rpc) {
    f.take("session_per_operation", r.boolean("session_per_operation"), wamp.session_per_operation);
    read_wamp_rpc_advanced(r, wamp);
  }
}

void check_pubsub_across_fields(Diagnostics& diag, const WorkloadTemplate& t) {
  const Workload& w = t.values;
  if (w.workers > 1) {
    // Every worker's subscribers would also get the other workers' publications, and no
    // worker could tell how many events it should see.
    diag.error(blame(t, {"workers"}),
               "workload '" + shown_text(w.name) +
                   "': wamp_pubsub runs on one worker (workers = 1), got " +
                   std::to_string(w.workers) +
                   ": a worker checks deliveries against its own publications");
  }
}

// The location to blame for a check across `keys`: a key set in the workload itself first,
// then one set in [defaults], then the workload's header.
Location blame(const WorkloadTemplate& t, const std::vector<std::string_view>& keys) {
  for (bool in_workload : {true, false}) {
    for (std::string_view key : keys) {
      auto it = t.set_at.find(key);
      if (it != t.set_at.end() && it->second.in_workload == in_workload) return it->second.where;
    }
  }
  return t.values.where;
}

// new_connection_per_request: one request per connection, so one outstanding at a time (read
// after the HTTP/2 keys, whose streams it checks).
void read_connection_mode(TableReader& r, WorkloadTemplate& t) {
  Workload& w = t.values;
  auto v = r.boolean("new_connection_per_request");
  if (!v) return;
  w.new_connection_per_request = *v;
  if (!*v) return;
  Diagnostics& diag = r.diagnostics();
  if (!is_http(w.protocol)) {
    diag.error(r.key_location("new_connection_per_request"),
               "key 'new_connection_per_request' applies to protocols http1 and http2 only (a "
               "WAMP session is set up and joined once)");
    return;
  }
  if (w.in_flight > 1 && t.broken.find("in_flight") == t.broken.end()) {
    diag.error(blame(t, {"in_flight"}),
               "workload '" + shown_text(w.name) +
                   "': new_connection_per_request sends one request per connection: in_flight "
                   "must be 1, got " +
                   std::to_string(w.in_flight));
  }
  if (w.protocol == Protocol::kHttp2 && w.http2.streams > 1) {
    diag.error(r.value_location("streams"),
               "workload '" + shown_text(w.name) +
                   "': new_connection_per_request sends one request per connection: streams "
                   "must be 1, got " +
                   std::to_string(w.http2.streams));
  }
}

// The parameter of the workload's `sweep` when it is a table of one key (expand_sweep reports
// any other shape), or nothing.
std::string_view swept_parameter(TableReader& r) {
  const toml::node* node = r.node("sweep");
  const toml::table* table = node ? node->as_table() : nullptr;
  if (!table || table->size() != 1) return {};
  return table->begin()->first.str();
}

// `swept`: the parameter the workload's sweep sets in every workload it expands into (empty
// without a sweep). The workload's own value of it is never run, so it is not checked here;
// expand_sweep checks each swept value instead.
void check_across_fields(Diagnostics& diag, const WorkloadTemplate& t, std::string_view swept) {
  const Workload& w = t.values;
  auto broken = [&](std::initializer_list<std::string_view> keys) {
    return std::any_of(keys.begin(), keys.end(), [&](std::string_view k) {
      return k == swept || t.broken.find(k) != t.broken.end();
    });
  };
  const std::string who = "workload '" + shown_text(w.name) + "': ";
  const uint64_t needed = uint64_t{w.workers} * w.threads;
  if (w.protocol == Protocol::kWampPubSub) {
    check_pubsub_across_fields(diag, t);
  } else if (!broken({"connections", "workers", "threads"}) && w.connections < needed) {
    diag.error(blame(t, {"connections", "workers", "threads"}),
               who + "connections (" + std::to_string(w.connections) +
                   ") must be at least workers * threads (" + std::to_string(w.workers) + " * " +
                   std::to_string(w.threads) + " = " + std::to_string(needed) +
                   "): each thread needs a connection");
  }
  // A closed loop of one operation at a time: the key at fault is in_flight when it is not 1,
  // else rate; then the key that asks for the closed loop (the workload's protocol, its
  // session_per_operation) when the other comes from [defaults].
  const std::string_view closed_loop_key = w.in_flight != 1 ? "in_flight" : "rate";
  if (auto closed = closed_loop_only(w);
      closed && !broken({"rate", "in_flight"}) && (w.rate > 0 || w.in_flight != 1)) {
    diag.error(blame(t, {closed_loop_key, closed->key}),
               who + std::string(closed->why) +
                   ": in_flight must be 1 and rate unset, got in_flight = " +
                   std::to_string(w.in_flight) + (w.rate > 0 ? " and a rate" : ""));
  }
  // The rule is in_flight's, which the message names: its own key when the workload sets it,
  // else the workload's rate (an in_flight of [defaults] may suit the other workloads).
  if (!broken({"rate", "in_flight"}) && w.rate > 0) {
    if (auto problem = open_loop_in_flight_problem(w.in_flight)) {
      diag.error(blame(t, {"in_flight", "rate"}), who + "rate " + *problem);
    }
  }
  const bool pubsub = w.protocol == Protocol::kWampPubSub;
  if (!pubsub && !broken({"connections", "workers"})) {
    if (auto problem = connections_problem(w.connections, w.workers, worker_callee_sessions(w))) {
      diag.error(blame(t, {"connections", "workers"}), who + *problem);
    }
  }
  const std::string_view scheduled_key = pubsub ? "publishers" : "connections";
  if (!broken({"rate", scheduled_key})) {
    const uint64_t scheduled = pubsub ? w.wamp.publishers : w.connections;
    if (auto problem = rate_problem(w.rate, scheduled, pubsub)) {
      diag.error(blame(t, {"rate", scheduled_key}), who + *problem);
    }
  }
  if (!broken({"timeout", "warmup", "duration", "repetitions"})) {
    // In double: duration * repetitions can exceed 64 bits for absurd but parseable inputs.
    const double measured = static_cast<double>(w.warmup_ns) +
                            static_cast<double>(w.duration_ns) * static_cast<double>(w.repetitions);
    if (static_cast<double>(w.timeout_ns) <= measured) {
      // The timeout is the key at fault wherever it is set; only the default one is blamed on
      // what it must cover (a warm-up of zero adds nothing to it).
      std::vector<std::string_view> keys = {"duration", "repetitions"};
      if (w.warmup_ns > 0) keys.push_back("warmup");
      if (t.set_at.count("timeout")) keys = {"timeout"};
      diag.error(blame(t, keys), who + "timeout (" +
                                     format_duration_ns(static_cast<double>(w.timeout_ns)) +
                                     ") must be longer than warmup + duration * repetitions (" +
                                     format_duration_ns(measured) + ")");
    }
  }
}

}  // namespace

std::string name_problem(std::string_view name) {
  const bool fits = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
  });
  if (!fits) return "must match [a-z0-9_.-]+";
  // They fit the pattern, but as a folder name they are this folder and its parent.
  if (name == "." || name == "..") {
    return "must not be '.' or '..' (names end up in file and folder names, where these mean "
           "the folder itself and its parent)";
  }
  return "";
}

WorkloadTemplate read_defaults(TableReader& top) {
  WorkloadTemplate t;
  const toml::table* table = top.table("defaults");
  if (!table) return t;
  TableReader r(*table, "in [defaults]", top.diagnostics(), top.interpolator());
  std::vector<std::string_view> known = kSharedKeys;
  if (r.has("sweep")) {
    // Inherited by every workload, a sweep would silently multiply each of them by its
    // values; the one workload that is swept says so itself.
    known.push_back("sweep");
    top.diagnostics().error(r.key_location("sweep"),
                            "key 'sweep' in [defaults] is refused: a sweep expands one workload "
                            "into one per value, so it is written in that [[workloads]] table, "
                            "not inherited by every workload");
  }
  // `tls` is every workload's unless it sets its own: with [router] tls = true, every workload
  // must speak TLS. The other TLS keys stay each workload's: they need the workload's protocol
  // (alpn) or its server (sni, ca_file).
  known.push_back("tls");
  r.check_keys(known, {});
  read_shared(r, t, /*in_workload=*/false);
  Fields(r, t, /*in_workload=*/false).take("tls", r.boolean("tls"), t.values.tls.enabled);
  if (r.has("tls")) {
    t.values.tls_where = r.key_location("tls");
    t.values.tls_in_defaults = true;
    t.values.tls_refused = t.broken.count("tls") != 0;
  }
  return t;
}

std::vector<Workload> read_workloads(TableReader& top, const WorkloadTemplate& defaults) {
  Diagnostics& diag = top.diagnostics();
  std::vector<Workload> out;
  const toml::node* node = top.node("workloads");
  if (!node) {
    diag.error(diag.file_start(), "a scenario needs at least one [[workloads]]");
    return out;
  }
  if (!node->is_array_of_tables()) {
    diag.error(node->source(), "key 'workloads' must be an array of tables ([[workloads]]), got " +
                                   std::string(toml_type_name(*node)));
    return out;
  }
  std::vector<std::string_view> known = kSharedKeys;
  known.insert(known.end(), kHttpKeys.begin(), kHttpKeys.end());
  known.insert(known.end(), kWampKeys.begin(), kWampKeys.end());
  known.push_back("sweep");  // a workload's own key: [defaults] cannot sweep
  known.push_back("new_connection_per_request");
  known.insert(known.end(), tls_and_http2_keys().begin(), tls_and_http2_keys().end());
  std::map<std::string, Location> names;  // where each name was first given
  size_t index = 0;
  for (const toml::node& element : *node->as_array()) {
    ++index;
    TableReader r(*element.as_table(), "in [[workloads]] #" + std::to_string(index), diag,
                  top.interpolator());
    r.check_keys(known, kWorkloadNotYet);
    WorkloadTemplate t = defaults;
    Workload& w = t.values;
    w.where = r.table_location();
    if (r.require("name")) {
      if (auto name = r.string("name")) {
        if (std::string why = name_problem(*name); !why.empty()) {
          diag.error(r.value_location("name"),
                     "key 'name' " + why + ", got '" + shown_text(*name) + "'");
        } else if (auto [first, added] = names.emplace(*name, r.value_location("name")); !added) {
          const Location& there = first->second;
          diag.error(r.value_location("name"), "duplicate workload name '" + shown_text(*name) +
                                                   "' (first given at " + there.file + ":" +
                                                   std::to_string(there.line) + ":" +
                                                   std::to_string(there.column) + ")");
        }
        w.name = std::move(*name);
      }
    }
    if (auto protocol = r.choice("protocol", kSupportedProtocols)) {
      if (*protocol == "http2") w.protocol = Protocol::kHttp2;
      if (*protocol == "wamp_rpc") w.protocol = Protocol::kWampRpc;
      if (*protocol == "wamp_pubsub") w.protocol = Protocol::kWampPubSub;
      if (*protocol == "wamp_transfer") w.protocol = Protocol::kWampTransfer;
      t.set_at["protocol"] = Origin{r.key_location("protocol"), /*in_workload=*/true};
    }
    read_shared(r, t, /*in_workload=*/true);
    if (is_http(w.protocol)) {
      refuse_keys(r, kWampKeys, "the WAMP protocols (wamp_rpc, wamp_pubsub, wamp_transfer)");
      read_http(r, w);
    } else {
      refuse_keys(r, kHttpOnlyKeys, "protocols http1 and http2");
      read_wamp(r, t);
    }
    read_tls_and_http2(r, w);
    read_connection_mode(r, t);
    const std::string_view swept = swept_parameter(r);
    if (is_http(w.protocol) && t.broken.find("in_flight") == t.broken.end() &&
        swept != "request_bytes") {
      if (auto problem =
              pipelined_body_problem(w.http.request_bytes, w.in_flight,
                                     r.size_text("request_bytes", w.http.request_bytes))) {
        diag.error(
            r.has("request_bytes") ? r.value_location("request_bytes") : blame(t, {"in_flight"}),
            "workload '" + shown_text(w.name) + "': " + *problem);
      }
    }
    check_across_fields(diag, t, swept);
    for (Workload& expanded : expand_sweep(r, w)) out.push_back(std::move(expanded));
  }
  return out;
}

}  // namespace benchgate::scenario
