#include "worker/engine/validate.h"

#include <cctype>
#include <cmath>
#include <string>

#include "common/net/host_port.h"
#include "common/util/shown_text.h"
#include "common/wamp/message_limits.h"
#include "common/workload/decimal_text.h"
#include "common/workload/workload_limits.h"

namespace benchgate::worker {
namespace {

using namespace workload_limits;  // NOLINT: the limits this file checks, defined once there

Error fail(const WorkloadSpec& spec, const std::string& what) {
  return Error{"workload '" + spec.name + "': " + what};
}

// Request line and header parts are copied into the request verbatim, so they must not be
// able to break the framing.
bool has_ctl_or_space(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) return true;
  }
  return false;
}

// A size limit in the worker's messages, from its constant: "256 MiB", "16 GiB".
std::string size_text(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 30) && bytes % (uint64_t{1} << 30) == 0) {
    return std::to_string(bytes >> 30) + " GiB";
  }
  return std::to_string(bytes >> 20) + " MiB";
}

bool has_line_break(std::string_view s) { return s.find_first_of("\r\n") != s.npos; }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  }
  return true;
}

}  // namespace

Expected<HostPort> split_address(std::string_view address) {
  // The rule every address benchgate reads is split by: "::1:80" (an unbracketed IPv6 host)
  // is refused, not read as host "::1", port 80, as the orchestrator refuses it.
  const net::HostPortSplit split = net::split_host_port(address, net::kDialMinPort);
  const std::string shown = "address '" + shown_text(address) + "'";
  switch (split.problem) {
    case net::HostPortProblem::kNone:
      return HostPort{split.host, split.port};
    case net::HostPortProblem::kBadPort:
      return Error{shown + " has an invalid port (1..65535)"};
    case net::HostPortProblem::kHalfBracketed:
    case net::HostPortProblem::kNotIpv6:
      return Error{shown + " has a malformed [IPv6] host: " + split.reason};
    default:
      return Error{shown + " is not HOST:PORT: " + split.reason};
  }
}

// RawSocket's 24-bit frame length bounds one message, with room for the message around the
// payload; JSON carries binary as base64.
using wamp_limits::kEnvelopeBytes;
using wamp_limits::kRawSocketMaxMessageBytes;
// "16 MiB - 1 bytes"
std::string raw_socket_max_text() {
  return size_text(kRawSocketMaxMessageBytes + 1) + " - 1 bytes";
}
// "60 s"
std::string seconds_text(int64_t ns) { return std::to_string(ns / 1'000'000'000) + " s"; }
constexpr uint64_t kMaxCallTimeoutMs = static_cast<uint64_t>(kMaxCallTimeoutNs / 1'000'000);

// rpc's shared registrations, call timeouts and cancellation (WampRequestSpec).
Expected<void> validate_wamp_shared(const WorkloadSpec& spec) {
  const WampRequestSpec& w = spec.wamp;
  const std::string& p = w.invoke;
  if (p != "single" && p != "roundrobin" && p != "random" && p != "first" && p != "last") {
    return fail(spec,
                "wamp.invoke '" + p + "' is not one of single, roundrobin, random, first, last");
  }
  if (w.callee_sessions < 1 || w.callee_sessions > kMaxCalleeSessions) {
    return fail(spec,
                "wamp.callee_sessions must be from 1 to " + std::to_string(kMaxCalleeSessions));
  }
  if (!w.worker_callee && (w.callee_sessions != 1 || p != "single" || w.callee_delay_ns != 0)) {
    return fail(spec, "wamp.callee_sessions, invoke and callee_delay need callee \"worker\"");
  }
  if (w.callee_sessions > 1 && p == "single") {
    return fail(spec,
                "wamp.callee_sessions > 1 needs a shared invoke policy (roundrobin, random, "
                "first, last): the router allows one single registration per procedure");
  }
  if (w.callee_delay_ns < 0 || w.callee_delay_ns > kMaxCalleeDelayNs) {
    return fail(spec, "wamp.callee_delay_ns must be from 0 to " + seconds_text(kMaxCalleeDelayNs));
  }
  if (w.call_timeout_ms > kMaxCallTimeoutMs) {
    return fail(spec, "wamp.call_timeout_ms must be at most " + std::to_string(kMaxCallTimeoutMs) +
                          " (" + seconds_text(kMaxCallTimeoutNs) + ")");
  }
  if (w.cancel_after_ns < 0 || w.cancel_after_ns > kMaxCalleeDelayNs) {
    return fail(spec, "wamp.cancel_after_ns must be from 0 to " + seconds_text(kMaxCalleeDelayNs));
  }
  const std::string& m = w.cancel_mode;
  if (m != "killnowait" && m != "kill" && m != "skip") {
    return fail(spec, "wamp.cancel_mode '" + m + "' is not one of killnowait, kill, skip");
  }
  if (w.session_per_operation && (w.call_timeout_ms > 0 || w.cancel_after_ns > 0)) {
    return fail(spec,
                "wamp.call_timeout_ms and cancel_after_ns do not apply to session_per_operation");
  }
  return {};
}

Expected<void> validate_wamp(const WorkloadSpec& spec) {
  const WampRequestSpec& w = spec.wamp;
  if (!w.invalid.empty()) return fail(spec, w.invalid);
  const bool pubsub = spec.protocol == "wamp_pubsub";
  const bool transfer = spec.protocol == "wamp_transfer";
  const WampRequestSpec::Kind kind = pubsub     ? WampRequestSpec::Kind::kPubSub
                                     : transfer ? WampRequestSpec::Kind::kTransfer
                                                : WampRequestSpec::Kind::kRpc;
  if (w.kind != kind) {
    return fail(spec, "wamp.kind must be " +
                          std::string(pubsub     ? "pubsub"
                                      : transfer ? "transfer"
                                                 : "rpc") +
                          " for protocol " + spec.protocol);
  }
  if (w.realm.empty()) return fail(spec, "wamp.realm must not be empty");
  if (!w.auth.method.empty()) {
    const auto& a = w.auth;
    if (a.method != "ticket" && a.method != "wampcra" && a.method != "wamp-scram" &&
        a.method != "cryptosign") {
      return fail(spec, "wamp.auth.method '" + a.method +
                            "' is not one of ticket, wampcra, wamp-scram, cryptosign");
    }
    if (a.authid.empty()) return fail(spec, "wamp.auth.authid must not be empty");
    if (a.secret.empty()) return fail(spec, "wamp.auth.secret must not be empty");
    if (a.method == "cryptosign") {
      bool hex = a.secret.size() == 64;
      for (const char c : a.secret) hex = hex && std::isxdigit(static_cast<unsigned char>(c));
      if (!hex) {
        return fail(spec,
                    "wamp.auth.secret of cryptosign must be an Ed25519 private key as 64 hex "
                    "digits");
      }
    }
  }
  if (w.request_bytes > kMaxWampPayloadBytes) {
    return fail(spec, "wamp.request_bytes must be at most " + size_text(kMaxWampPayloadBytes));
  }
  uint64_t encoded = w.request_bytes;
  if (w.serializer == WampRequestSpec::Serializer::kJson) encoded = (encoded + 2) / 3 * 4;
  if (w.transport == WampRequestSpec::Transport::kRawSocket &&
      encoded + kEnvelopeBytes > kRawSocketMaxMessageBytes) {
    return fail(spec, "wamp.request_bytes " + std::to_string(w.request_bytes) +
                          " does not fit one RawSocket message (" + raw_socket_max_text() +
                          ", base64 for json); "
                          "use the websocket transport for larger payloads");
  }
  if (w.fragment_bytes != 0) {
    if (w.transport != WampRequestSpec::Transport::kWebSocket) {
      return fail(spec, "wamp.fragment_bytes applies to the websocket transport only");
    }
    if (w.fragment_bytes < kMinFragmentBytes || w.fragment_bytes > kMaxFragmentBytes) {
      return fail(spec, "wamp.fragment_bytes must be 0 or from " +
                            std::to_string(kMinFragmentBytes) + " bytes to " +
                            size_text(kMaxFragmentBytes));
    }
  }
  if (transfer) {
    if (w.procedure.empty()) return fail(spec, "wamp.procedure must not be empty");
    if (spec.connections < 1) return fail(spec, "connections must be at least 1");
    if (w.transfer_bytes < 1 || w.transfer_bytes > kMaxTransferBytes) {
      return fail(spec,
                  "wamp.transfer_bytes must be from 1 byte to " + size_text(kMaxTransferBytes));
    }
    if (w.chunk_bytes < 1 || w.chunk_bytes > w.transfer_bytes) {
      return fail(spec, "wamp.chunk_bytes must be from 1 byte to transfer_bytes");
    }
    if (w.chunk_bytes > kMaxWampPayloadBytes)
      return fail(spec, "wamp.chunk_bytes must be at most " + size_text(kMaxWampPayloadBytes));
    uint64_t chunk = w.chunk_bytes;
    if (w.serializer == WampRequestSpec::Serializer::kJson) chunk = (chunk + 2) / 3 * 4;
    if (w.transport == WampRequestSpec::Transport::kRawSocket &&
        chunk + kEnvelopeBytes > kRawSocketMaxMessageBytes) {
      return fail(spec, "wamp.chunk_bytes " + std::to_string(w.chunk_bytes) +
                            " does not fit one RawSocket message (" + raw_socket_max_text() +
                            ", base64 for json)");
    }
    if (spec.rate > 0) return fail(spec, "wamp_transfer runs closed loop only (rate 0)");
    if (spec.in_flight != 1) return fail(spec, "wamp_transfer needs in_flight = 1");
  } else if (pubsub) {
    if (w.topic.empty()) return fail(spec, "wamp.topic must not be empty");
    if (w.publishers < 1) return fail(spec, "wamp.publishers must be at least 1");
    if (w.subscribers < 1) return fail(spec, "wamp.subscribers must be at least 1");
    if (spec.rate == 0 && !w.acknowledge) {
      return fail(spec,
                  "wamp.acknowledge must be true in the closed loop (PUBLISHED paces it); "
                  "set rate for unacknowledged publishing");
    }
  } else {
    if (w.procedure.empty()) return fail(spec, "wamp.procedure must not be empty");
    if (spec.connections < 1) return fail(spec, "connections must be at least 1");
    if (w.session_per_operation && (spec.rate > 0 || spec.in_flight != 1)) {
      return fail(spec, "wamp.session_per_operation needs in_flight = 1 and the closed loop");
    }
    if (auto shared = validate_wamp_shared(spec); !shared) return shared;
  }
  return {};
}

Expected<void> validate_workload(const WorkloadSpec& spec) {
  if (spec.protocol != "http1" && !spec.is_http2() && !spec.is_wamp()) {
    return fail(spec, "protocol '" + spec.protocol +
                          "' is not supported (this worker speaks http1, http2, wamp_rpc, "
                          "wamp_pubsub)");
  }
  if (spec.tls.enabled && !spec.tls.version.empty() && spec.tls.version != "1.2" &&
      spec.tls.version != "1.3") {
    return fail(spec, "tls.version '" + spec.tls.version + "' is not 1.2 or 1.3");
  }
  if (spec.tls.insecure && !spec.tls.ca_pem.empty()) {
    return fail(spec, "tls.insecure and tls.ca_pem contradict each other");
  }
  if (spec.tls.resumption && !spec.tls.enabled) {
    return fail(spec, "tls.resumption needs tls");
  }
  if (spec.new_connection_per_request) {
    if (spec.is_wamp()) {
      return fail(spec, "new_connection_per_request applies to http1 and http2 only");
    }
    if (spec.in_flight > 1 || (spec.is_http2() && spec.http2.streams > 1)) {
      return fail(spec,
                  "new_connection_per_request sends one request per connection: in_flight and "
                  "http2.streams must be 1");
    }
  }
  if (spec.is_http2()) {
    const Http2Spec& h2 = spec.http2;
    if (h2.streams < 1 || h2.streams > kMaxInFlight) {
      return fail(spec, "http2.streams must be 1.." + std::to_string(kMaxInFlight));
    }
    if (h2.initial_window < 1 || h2.initial_window > 0x7fffffffu) {
      return fail(spec, "http2.initial_window must be 1..2147483647");
    }
    if (h2.max_frame_size < 16384 || h2.max_frame_size > 16777215) {
      return fail(spec, "http2.max_frame_size must be 16384..16777215");
    }
  }
  if (auto address = split_address(spec.address); !address) return fail(spec, address.message());
  if (spec.connections < 1) return fail(spec, "connections must be at least 1");
  if (spec.threads < 1) return fail(spec, "threads must be at least 1");
  if (spec.in_flight < 1) return fail(spec, "in_flight must be at least 1");
  if (spec.in_flight > kMaxInFlight) {
    return fail(spec, "in_flight must be at most " + std::to_string(kMaxInFlight));
  }
  if (spec.threads > kMaxThreads) {
    return fail(spec, "threads must be at most " + std::to_string(kMaxThreads));
  }
  // A worker's sessions, a socket each: wamp_pubsub's publishers and subscribers, or its
  // connections and wamp_rpc's worker callee sessions (summed in 64 bits, where 32 can wrap).
  const bool pubsub = spec.is_wamp() && spec.protocol == "wamp_pubsub";
  const bool callees = spec.is_wamp() && spec.protocol == "wamp_rpc" && spec.wamp.worker_callee;
  const uint64_t sessions =
      pubsub ? uint64_t{spec.wamp.publishers} + spec.wamp.subscribers
             : uint64_t{spec.connections} + (callees ? spec.wamp.callee_sessions : 0);
  if (spec.connections > kMaxConnectionsPerWorker || sessions > kMaxConnectionsPerWorker) {
    return fail(spec, "connections must be at most " + std::to_string(kMaxConnectionsPerWorker) +
                          " per worker" + (callees ? " with the callee sessions" : "") + ", got " +
                          std::to_string(sessions) +
                          " (a file descriptor each, within Linux's default fs.nr_open of " +
                          std::to_string(kDefaultMaxDescriptors) +
                          " with room for the load threads' and the worker's own)");
  }
  if (!std::isfinite(spec.rate) || spec.rate < 0) {
    return fail(spec, "rate must be a finite number >= 0 (0 selects the closed loop)");
  }
  // The open loop's schedule: the rate of each connection (pubsub: publisher).
  const uint32_t scheduled = pubsub ? spec.wamp.publishers : spec.connections;
  if (spec.rate > 0 && scheduled > 0) {
    const double per_connection = spec.rate / scheduled;
    if (per_connection > kMaxRatePerConnection || per_connection < kMinRatePerConnection) {
      return fail(spec, "rate per connection must be from " + decimal_text(kMinRatePerConnection) +
                            " to " + decimal_text(kMaxRatePerConnection) + " requests/s, got " +
                            decimal_text(per_connection) + " (rate " + decimal_text(spec.rate) +
                            " over " + std::to_string(scheduled) +
                            (pubsub ? " publishers)" : " connections)"));
    }
  }
  if (spec.progress_interval_ns < 0) return fail(spec, "progress_interval_ns must be >= 0");
  if (spec.drain_timeout_ns < 0) return fail(spec, "drain_timeout_ns must be >= 0");
  if (spec.connect_timeout_ns < 0) return fail(spec, "connect_timeout_ns must be >= 0");
  if (spec.schedule_connections > 0 &&
      uint64_t{spec.schedule_first} + spec.connections > spec.schedule_connections) {
    return fail(spec, "schedule_first " + std::to_string(spec.schedule_first) + " + connections " +
                          std::to_string(spec.connections) + " exceeds schedule_connections " +
                          std::to_string(spec.schedule_connections));
  }
  if (spec.is_wamp()) return validate_wamp(spec);
  const HttpRequestSpec& http = spec.http;
  if (http.method.empty() || has_ctl_or_space(http.method)) {
    return fail(spec, "http.method '" + http.method + "' is not an HTTP method token");
  }
  if (http.target.empty() || has_ctl_or_space(http.target)) {
    return fail(spec, "http.target '" + http.target + "' must be a non-empty path without spaces");
  }
  if (has_ctl_or_space(http.host)) return fail(spec, "http.host must not contain spaces");
  if (http.expect_status < 100 || http.expect_status > 599) {
    return fail(spec, "http.expect_status must be 100..599");
  }
  if (http.expect_body_bytes < -1) return fail(spec, "http.expect_body_bytes must be >= -1");
  // Pipelined requests are written from one prebuilt buffer of in_flight copies (divided, not
  // multiplied: the product of two unchecked numbers can wrap around). in_flight is at least 1.
  if (http.request_body_bytes > kMaxPipelinedBodyBytes / spec.in_flight) {
    return fail(spec, "http.request_body_bytes x in_flight must be at most " +
                          size_text(kMaxPipelinedBodyBytes));
  }
  for (const auto& [name, value] : http.headers) {
    if (name.empty() || has_ctl_or_space(name) || name.find(':') != std::string::npos) {
      return fail(spec, "http.headers: '" + name + "' is not a header name");
    }
    // The worker owns the framing: the body length comes from request_body_bytes.
    if (iequals(name, "content-length") || iequals(name, "transfer-encoding")) {
      return fail(spec,
                  "http.headers: '" + name + "' is set by the worker from request_body_bytes");
    }
    if (has_line_break(value)) {
      return fail(spec, "http.headers: the value of '" + name + "' contains a line break");
    }
  }
  return {};
}

Expected<void> validate_window(const WindowCommand& window) {
  if (window.duration_ns <= 0) {
    return Error{"window " + std::to_string(window.index) + ": duration_ns must be > 0"};
  }
  if (window.start_at_unix_ns < 0) {
    return Error{"window " + std::to_string(window.index) + ": start_at_unix_ns must be >= 0"};
  }
  if (window.start_at_worker_ns < 0) {
    return Error{"window " + std::to_string(window.index) + ": start_at_worker_ns must be >= 0"};
  }
  return {};
}

}  // namespace benchgate::worker
