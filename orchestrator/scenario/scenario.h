// The typed scenario model (docs/SCENARIOS.md). TOML is parsed and validated once, by the loader
// (scenario_loader.h); every other part of the orchestrator sees only these structs, with
// defaults applied, units converted to base units and interpolation done.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace benchgate::scenario {

// Where something was written: file, 1-based line and column.
struct Location {
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;
};

enum class RouterImpl { kBuiltin, kCommand, kExternal };

// The system under test.
struct RouterConfig {
  RouterImpl impl = RouterImpl::kBuiltin;
  uint32_t threads = 1;              // builtin: serving threads
  uint64_t ws_fragment_bytes = 0;    // builtin: --ws-fragment-bytes (0: off)
  std::vector<std::string> command;  // command: argument vector, never passed to a shell
  std::string ready;                 // command/external: readiness probe "tcp://HOST:PORT"
  std::string address;               // command/external: where workers connect "HOST:PORT"
  std::string rawsocket_address;     // command/external: WAMP RawSocket; empty: at address
  std::string websocket_address;     // command/external: WAMP WebSocket; empty: at address
  std::string metrics;               // optional Prometheus endpoint of the system under test
  // How long the system may take to start (builtin, command) or to accept connections
  // (external); 0: the engine's startup deadline (EngineOptions::startup_timeout_ns).
  int64_t startup_timeout_ns = 0;
  std::string auth_config;  // builtin: --auth-config, resolved; empty: anonymous
  // builtin: every port of the bundled router speaks TLS, with a certificate made for the run
  // (a throwaway CA, given to the workers as their ca_file) or tls_cert/tls_key (resolved
  // against the scenario's folder).
  bool tls = false;
  std::string tls_cert;
  std::string tls_key;
  // [routers.NAME] of a comparison: programs that must be on PATH, else the variant is reported
  // not_configured (default: the command's program, unless it is a path: one with a '/' that is
  // missing fails the variant's start instead).
  std::vector<std::string> requires_programs;
  Location where;
  // Where the value of each key given is written ("command", "address", ...): a message about
  // one key points at it, not at the table.
  std::map<std::string, Location> key_where;
  Location at(const std::string& key) const {
    auto it = key_where.find(key);
    return it == key_where.end() ? where : it->second;
  }
};

enum class Protocol { kHttp1, kHttp2, kWampRpc, kWampPubSub, kWampTransfer };

// "http1", "http2", "wamp_rpc", "wamp_pubsub", "wamp_transfer": as scenario files and reports
// name it.
inline const char* to_string(Protocol protocol) {
  switch (protocol) {
    case Protocol::kHttp2:
      return "http2";
    case Protocol::kWampRpc:
      return "wamp_rpc";
    case Protocol::kWampPubSub:
      return "wamp_pubsub";
    case Protocol::kWampTransfer:
      return "wamp_transfer";
    case Protocol::kHttp1:
      break;
  }
  return "http1";
}

// HTTP/1.1 and HTTP/2 share the request keys ([[workloads]] method, target, ...).
inline bool is_http(Protocol protocol) {
  return protocol == Protocol::kHttp1 || protocol == Protocol::kHttp2;
}

// `tls = true` on a workload and its keys (docs/SCENARIOS.md, "TLS and HTTP/2").
struct TlsSettings {
  bool enabled = false;
  std::string version;      // "1.2" | "1.3"; empty: negotiate
  std::string ciphers;      // OpenSSL cipher list (TLS 1.2) or suites (TLS 1.3); empty: default
  std::string sni;          // empty: the address's host when it is a name, else none
  std::string ca_file;      // resolved against the scenario's folder; empty: the system's CAs
  std::string ca_pem;       // the text of ca_file, read at load time (the worker gets the text)
  bool insecure = false;    // no certificate verification (explicit only)
  bool resumption = false;  // reuse TLS sessions on reconnects
  std::vector<std::string> alpn;  // empty: h2 for http2, http/1.1 for http1
};

// HTTP/2 settings of a `protocol = "http2"` workload.
struct Http2Settings {
  uint32_t streams = 1;                  // concurrent streams per connection (h2load -m)
  uint32_t initial_window = (1u << 30);  // stream and connection flow-control window, bytes
  uint32_t max_frame_size = 16384;       // SETTINGS_MAX_FRAME_SIZE we accept
};

struct HttpRequest {
  std::string method = "GET";
  std::string target = "/bench/hello";
  uint64_t request_bytes = 0;                 // body size (POST/PUT)
  std::optional<uint32_t> expect_status;      // unset: 200
  std::optional<uint64_t> expect_body_bytes;  // unset: derived from the route, or any
  std::map<std::string, std::string> headers;
};

// How a WAMP workload's sessions authenticate (`auth`); method empty: anonymous.
struct WampAuth {
  std::string method;  // ticket | wampcra | wamp-scram | cryptosign
  std::string authid;
  std::string secret_file;  // resolved against the scenario's folder
  std::string secret;       // its text, read at load time (the worker gets the text)
};

// A WAMP workload (protocol wamp_rpc / wamp_pubsub); the load shape (connections, in_flight,
// rate) is the workload's.
struct WampRequest {
  std::string transport = "websocket";  // websocket | rawsocket
  std::string serializer = "json";      // json | msgpack | cbor
  std::string realm = "realm1";
  std::string procedure = "bench.echo";  // rpc
  std::string callee = "router";         // rpc: router (bench.echo) | worker
  std::string topic = "bench.topic";     // pubsub
  uint32_t publishers = 1;               // pubsub: sessions across all workers
  uint32_t subscribers = 1;              // pubsub: every event goes to each
  uint64_t request_bytes = 0;            // payload of every CALL / PUBLISH
  WampAuth auth;
  uint64_t fragment_bytes = 0;  // websocket: frame size of what the worker sends; 0: off
  // wamp_transfer: each operation is one session calling `procedure` (bench.transfer) for
  // transfer_bytes in progressive results of chunk_bytes (defaults 64 MiB and 4 MiB, set by
  // the loader; 0 for the other protocols).
  uint64_t transfer_bytes = 0;
  uint64_t chunk_bytes = 0;
  // wamp_rpc: every call on a session of its own (connect, join with auth, CALL, GOODBYE,
  // close), to benchmark session establishment; in_flight 1, closed loop.
  bool session_per_operation = false;
  // wamp_rpc with callee = "worker": callee sessions per worker, all registering `procedure`
  // with REGISTER.Options.invoke = `invoke` (single | roundrobin | random | first | last), and
  // how long each answers after its INVOCATION came (0: at once).
  uint32_t callee_sessions = 1;
  std::string invoke = "single";
  int64_t callee_delay_ns = 0;
  // wamp_rpc: CALL.Options.timeout (whole milliseconds; 0: none), and a CANCEL with
  // cancel_mode (killnowait | kill | skip) for every call unanswered after cancel_after
  // (0: never).
  int64_t call_timeout_ns = 0;
  int64_t cancel_after_ns = 0;
  std::string cancel_mode = "killnowait";
};

// [worker_impls.NAME]: a worker program speaking the worker protocol (docs/WORKER_PROTOCOL.md),
// or the bundled worker running a built-in adapter around an external tool.
struct WorkerImpl {
  std::vector<std::string> command;  // argument vector, never passed to a shell
  std::string adapter;               // "h2load" | "wrk" (then `command` is empty)
  // How long its workers may take to print READY and answer Describe (startup_timeout); 0: the
  // engine's startup deadline (EngineOptions::startup_timeout_ns).
  int64_t startup_timeout_ns = 0;
  Location where;
  Location command_where;  // where `command` (or `adapter`) is written
};

// The tools the bundled worker can wrap (`adapter = "..."`); each is also the program that
// must be on PATH.
inline const std::vector<std::string>& known_adapters() {
  static const std::vector<std::string> kAdapters = {"h2load", "wrk"};
  return kAdapters;
}

// What a workload does when one of its workers is lost mid-window (its process dies, its stream
// ends, it stops answering): `on_worker_loss` in [workers], [defaults] or a workload.
// kFail: the workload fails and the lost worker's partial window is never merged. kContinue: the
// remaining workers finish the workload and every repetition measured without the lost worker
// is flagged `degraded` (never a baseline, never judged by a gate).
enum class WorkerLoss { kFail, kContinue };

inline const char* to_string(WorkerLoss loss) {
  return loss == WorkerLoss::kContinue ? "continue" : "fail";
}

// [workers]: the remote workers a scenario asks for (workers already running elsewhere, e.g.
// the pods of a StatefulSet). The command line's --workers-at and --workers override `at` and
// `count` (docs/SCENARIOS.md, "Remote workers").
struct RemoteWorkers {
  // "dns:NAME:PORT" (every address NAME resolves to) or "HOST:PORT" entries; empty: the run
  // spawns its workers on this machine (unless --workers-at says otherwise).
  std::vector<std::string> at;
  // How many of them must answer Describe before the first workload (0: as many as the
  // workloads use).
  uint32_t count = 0;
  WorkerLoss on_worker_loss = WorkerLoss::kFail;  // for workloads that do not set their own
  Location where;                                 // the [workers] table
  Location at_where;                              // the value of `at`
};

// One workload with every default resolved.
struct Workload {
  std::string name;
  Location where;
  Protocol protocol = Protocol::kHttp1;

  // Phases (from [defaults] unless overridden).
  int64_t warmup_ns = 1'000'000'000;
  int64_t duration_ns = 3'000'000'000;
  uint32_t repetitions = 3;
  // Where `repetitions` is written (its value, in the workload or in [defaults]); no line when
  // neither sets it. `repetitions_refused`: the value written was refused (reported), so checks
  // of the count leave it alone.
  Location repetitions_where;
  bool repetitions_refused = false;
  uint32_t workers = 1;            // worker processes
  uint32_t threads = 1;            // threads per worker
  std::string worker = "builtin";  // worker implementation name
  // Where `worker` is written (its value, in the workload or in [defaults]); no line when
  // neither sets it.
  Location worker_where;
  int64_t timeout_ns = 60'000'000'000;  // hard limit for the whole workload
  // on_worker_loss of the workload or [defaults]; the loader fills in [workers]'s when neither
  // sets it.
  std::optional<WorkerLoss> on_worker_loss;
  // A start spread over this (workers' starts apart, or away from the shared instant) flags
  // the repetition `start_skew` (docs/MEASUREMENT.md "Clock offset and start skew").
  int64_t max_start_skew_ns = 1'000'000;
  // Failing is what the workload measures (every call timed out or cancelled on purpose): one
  // whose every operation failed stays ok (results/nothing_succeeded.h). Not part of the series
  // key: it changes how the result is judged, not what is measured.
  bool expect_failures = false;

  // Load shape.
  uint32_t connections = 1;  // across all workers and threads
  uint32_t in_flight = 1;    // outstanding requests per connection
  double rate = 0;           // open loop when > 0: requests/s in total
  // HTTP: every request on a connection of its own (connect, TLS handshake, request, close),
  // which measures handshakes/s; needs in_flight = 1 and streams = 1.
  bool new_connection_per_request = false;

  HttpRequest http;
  WampRequest wamp;     // protocol kWampRpc / kWampPubSub
  TlsSettings tls;      // every protocol: https and h2, wss and RawSocket over TLS
  Http2Settings http2;  // protocol kHttp2
  // Where `tls` is written (its key, in the workload or in [defaults]: `tls_in_defaults`); no
  // line when neither sets it. `tls_refused`: the value written was refused (reported), so
  // checks of it leave it alone.
  Location tls_where;
  bool tls_in_defaults = false;
  bool tls_refused = false;

  // Set on the workloads a `sweep` expanded into: the base workload's name, the parameter swept
  // ("request_bytes", "connections") and this workload's value of it.
  std::string sweep_of;
  std::string sweep_parameter;
  uint64_t sweep_value = 0;

  // The sessions the workload's workers open: wamp_pubsub's publishers and subscribers (its
  // `connections` does not apply), every other protocol's connections.
  uint32_t sessions() const {
    return protocol == Protocol::kWampPubSub ? wamp.publishers + wamp.subscribers : connections;
  }

  // The operations one connection can have outstanding at once: HTTP/2's `streams` (its
  // in_flight is 1: HTTP/1.1's pipelining depth does not apply), every other protocol's
  // in_flight.
  uint32_t outstanding_per_connection() const {
    return protocol == Protocol::kHttp2 ? http2.streams : in_flight;
  }

  // The operations the whole workload can have outstanding at one instant: connections x
  // outstanding_per_connection(); wamp_pubsub: its publishers' in_flight publications, each
  // delivered to every subscriber. A window's edges can cut that many operations that one side
  // counts and the other does not, so it is the most by which the router's count and the
  // workers' may differ (docs/MEASUREMENT.md "Cross-checks"); the engine's check and the
  // report's explanation both use it.
  uint64_t operations_in_flight() const {
    if (protocol == Protocol::kWampPubSub) {
      return uint64_t{wamp.publishers} * in_flight * wamp.subscribers;
    }
    return uint64_t{connections} * outstanding_per_connection();
  }
};

enum class GateSeverity { kCritical, kWarning };

// A paired gate's test (`test`, docs/GATES.md, "Paired gates"): the Wilcoxon signed-rank test
// with the Hodges-Lehmann effect (the default: a few wild pairs cannot decide it), or the
// paired t on the mean log ratio.
enum class PairedTest { kSignedRank, kT };

// A release gate (docs/GATES.md). Bounds are in base units: seconds for latency metrics, bytes,
// operations per second, a plain ratio for rates.
struct Gate {
  std::string workload;       // a name or a glob ("wamp_*")
  std::string variant = "*";  // a variant name or a glob; one verdict per variant
  std::string metric;         // "latency.p99", "throughput.rps", ...
  std::optional<double> max;  // absolute upper bound
  std::optional<double> min;  // absolute lower bound
  std::string baseline;       // relative gate: baseline name
  // Paired gate (a relative gate of a [compare] scenario): the variant of the same run it is
  // judged against, repetition by repetition (docs/GATES.md, "Paired gates"); excludes baseline.
  std::string against;
  PairedTest paired_test = PairedTest::kSignedRank;  // paired gates: `test`
  std::optional<double> max_regression;              // relative gate: 0.05 for "5%"
  double alpha = 0.01;
  // An underpowered relative gate (it could not detect twice its max_regression with this
  // noise) fails the run instead of passing or staying inconclusive (docs/GATES.md).
  bool fail_when_underpowered = false;
  // kind = "change" (docs/GATES.md, "Change gates"): judged against the series' own recent
  // history, failing a run that starts a change worse by at least min_change; no baseline.
  bool change = false;
  double min_change = 0.01;  // change gate: 0.01 for "1%"
  // confirm = 1 (change gates, docs/GATES.md, "Confirming rerun"): a failing verdict measures
  // the workload once more, at once in the same run, and the rerun decides.
  bool confirm = false;
  GateSeverity severity = GateSeverity::kCritical;
  Location where;
  // Why the loader refuses this gate, its messages each with its line ("line 14: gate metric
  // 'handshakes.rate' can never be measured ..."). Only a load with
  // LoadOptions::keep_refused_gates keeps a refused gate; it is then judged an error.
  std::string refused;
};

struct Scenario {
  std::string name;
  std::string description;
  std::string path;  // the file as given
  std::string text;  // the file's text, stored with every run
  // Stop at the first failed workload; the workloads after it are recorded as not run.
  // By default a failed workload does not stop the ones after it.
  bool fail_fast = false;
  RouterConfig router;
  std::vector<Workload> workloads;
  std::vector<Gate> gates;
  std::map<std::string, uint16_t> ports;  // ${port:NAME} allocations of this load, by NAME
  // [routers.NAME] and [compare] routers = [...]: when compare_routers is not empty, every
  // workload runs on each named router in turn (A B B A ...) and `router` is unused.
  std::map<std::string, RouterConfig> routers;
  std::vector<std::string> compare_routers;
  // [worker_impls.NAME] by NAME; workloads name one in `worker` (or "builtin").
  std::map<std::string, WorkerImpl> worker_impls;
  // [compare] workers = [...]: when not empty, every workload runs with each named worker
  // implementation in turn (A B B A ...) against `router`; each workload's `worker` is unused.
  std::vector<std::string> compare_workers;
  // [workers]: remote workers; empty `at` when the scenario has no such table.
  RemoteWorkers workers;
};

}  // namespace benchgate::scenario
