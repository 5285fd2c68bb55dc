// The workload one worker runs, as plain domain types. The gRPC layer (worker/service/)
// translates benchgate.v1.WorkloadSpec and Window into these; nothing below sees protobuf.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/wamp/serializers.h"

namespace benchgate::worker {

// The one HTTP/1.1 request every connection repeats, and how its response is checked.
struct HttpRequestSpec {
  std::string method = "GET";
  std::string target = "/";
  std::string host;  // empty: the address
  uint64_t request_body_bytes = 0;
  uint32_t expect_status = 200;
  int64_t expect_body_bytes = -1;  // -1: any length
  bool expect_echo = false;
  std::vector<std::pair<std::string, std::string>> headers;
};

// A WAMP v2 workload (worker/wamp/). Defaults are applied by the gRPC layer.
struct WampRequestSpec {
  enum class Kind : uint8_t { kRpc, kPubSub, kTransfer };
  enum class Transport : uint8_t { kWebSocket, kRawSocket };
  using Serializer = ::benchgate::wamp::Serializer;  // common/wamp: the router's ids too
  Kind kind = Kind::kRpc;
  Transport transport = Transport::kWebSocket;
  Serializer serializer = Serializer::kJson;
  std::string realm = "realm1";
  std::string procedure = "bench.echo";
  bool worker_callee = false;  // false: the router answers (bench.echo)
  std::string topic = "bench.topic";
  uint32_t publishers = 0;
  uint32_t subscribers = 0;
  uint64_t request_bytes = 0;
  bool acknowledge = false;
  // WAMP authentication (workload key `auth`); method empty: anonymous. `secret` is the ticket,
  // the WAMP-CRA secret, the WAMP-SCRAM password or the cryptosign private key (64 hex digits),
  // the text of the scenario's secret_file, which the orchestrator reads.
  struct Auth {
    std::string method;  // "ticket" | "wampcra" | "wamp-scram" | "cryptosign"
    std::string authid;
    std::string secret;
  } auth;
  // kTransfer: one CALL of `procedure` (bench.transfer) per session lifecycle.
  uint64_t transfer_bytes = 0;
  uint64_t chunk_bytes = 0;
  // kRpc: every call on a session of its own (connect, join, CALL, GOODBYE, close), so that
  // session establishment (authentication) is what is measured; in_flight 1, closed loop.
  bool session_per_operation = false;
  uint64_t fragment_bytes = 0;  // websocket: frame size of what the worker sends; 0: off
  // kRpc with worker_callee: callee sessions that all REGISTER `procedure` with `invoke`
  // (REGISTER.Options.invoke: "single", "roundrobin", "random", "first", "last"); each counts
  // the invocations it got (WindowResult.callee_invocations). callee_delay_ns > 0: every
  // invocation is answered that long after it arrived (an INTERRUPT drops the answer).
  uint32_t callee_sessions = 1;
  std::string invoke = "single";
  int64_t callee_delay_ns = 0;
  // kRpc: CALL.Options.timeout in milliseconds (0: none); ERROR wamp.error.timeout counts as
  // call_timeout. cancel_after_ns > 0: a CANCEL (Options.mode = cancel_mode: "killnowait",
  // "kill" or "skip") for every call not answered that long after it was sent; ERROR
  // wamp.error.canceled for such a call counts as canceled.
  uint64_t call_timeout_ms = 0;
  int64_t cancel_after_ns = 0;
  std::string cancel_mode = "killnowait";
  // Set when the spec named an unknown transport/serializer/kind/callee, for validation.
  std::string invalid;
};

// TLS to the system under test (http1, http2); the worker reports what the peer chose.
struct TlsSpec {
  bool enabled = false;
  std::string version;  // "1.2" | "1.3"; empty: negotiate
  std::string ciphers;  // empty: OpenSSL's defaults
  std::string sni;      // empty: none (verification against the address's host)
  std::string ca_pem;   // empty: the system's CAs
  bool insecure = false;
  bool resumption = false;        // offer the previous connection's session on each reconnect
  std::vector<std::string> alpn;  // empty: h2 (http2) or http/1.1 (http1)
};

// protocol "http2": the settings of every connection.
struct Http2Spec {
  uint32_t streams = 1;
  uint32_t initial_window = 1u << 30;
  uint32_t max_frame_size = 16384;
};

// How a cleartext HTTP/1.1 connection waits for its answers (worker --http1-io):
//  kAsio:  an Asio wait per read (async_wait, which re-arms the socket with epoll_ctl);
//  kEpoll: the load thread's own edge-triggered epoll set (common/net/readiness_poller.h),
//          one registration per socket, reads until a short read;
//  kUring: the load thread's io_uring (common/net/completion_ring.h), one multishot receive
//          per socket and the sends of a batch of completions submitted together.
enum class Http1Io : uint8_t { kAsio, kEpoll, kUring };

struct WorkloadSpec {
  std::string name;
  std::string protocol = "http1";
  std::string address;  // "HOST:PORT"
  uint32_t connections = 1;
  uint32_t threads = 1;
  uint32_t in_flight = 1;
  double rate = 0;                   // requests/s in total; 0: closed loop
  int64_t progress_interval_ns = 0;  // 0: no progress events
  int64_t drain_timeout_ns = 0;      // 0: kDefaultDrainTimeoutNs
  int64_t connect_timeout_ns = 0;    // 0: kDefaultConnectTimeoutNs
  // Open loop: this worker's connections among all of the workload's (OpenLoopSchedule);
  // total 0: this worker alone.
  uint32_t schedule_first = 0;
  uint32_t schedule_connections = 0;
  HttpRequestSpec http;
  WampRequestSpec wamp;  // protocol "wamp_rpc" / "wamp_pubsub"
  TlsSpec tls;
  Http2Spec http2;  // protocol "http2"
  // http1, http2: every request on a connection of its own (in_flight 1, one stream).
  bool new_connection_per_request = false;
  // http1 cleartext: how a connection learns that its socket is readable. Not part of the
  // scenario: the worker's --http1-io flag sets it for every workload it runs.
  Http1Io http1_io = Http1Io::kEpoll;

  bool open_loop() const { return rate > 0; }
  bool is_http2() const { return protocol == "http2"; }
  bool is_wamp() const {
    return protocol == "wamp_rpc" || protocol == "wamp_pubsub" || protocol == "wamp_transfer";
  }
};

// Defaults for timeouts the orchestrator left at 0 (proto3's "unset").
inline constexpr int64_t kDefaultDrainTimeoutNs = 5'000'000'000;
inline constexpr int64_t kDefaultConnectTimeoutNs = 10'000'000'000;

// One measurement window (warm-up or measured).
struct WindowCommand {
  uint32_t index = 0;
  bool measured = false;
  int64_t start_at_unix_ns = 0;  // 0 or past: start at once
  int64_t duration_ns = 0;
  // The start instant on this host's CLOCK_MONOTONIC (steady_now_ns); when > 0 it is used
  // instead of start_at_unix_ns, so a wall-clock step cannot move the window.
  int64_t start_at_worker_ns = 0;
};

}  // namespace benchgate::worker
