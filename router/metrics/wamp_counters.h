// The WAMP router's counters as plain integers. The WAMP serving thread owns the only
// instance and is its only writer; the control plane reads and resets it by posting to that
// thread (see router/wamp/wamp_server.h).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "router/metrics/tls_counters.h"
#include "router/wamp/message_type.h"

namespace benchgate::router::metrics {

enum class WampTransport : uint8_t { websocket = 0, rawsocket = 1 };
inline constexpr int kWampTransports = 2;
std::string_view transport_label(WampTransport transport);  // "websocket", "rawsocket"

enum class Direction : uint8_t { in = 0, out = 1 };
std::string_view direction_label(Direction direction);  // "in", "out"

// Why a message or a session was dropped (the label of wamp_drops).
enum class DropReason : uint8_t {
  // A session whose queued outbound bytes would pass --max-queued-bytes: it is disconnected.
  slow_consumer = 0,
  // A message larger than the receiving peer accepts (RawSocket handshake): not delivered.
  too_large = 1,
};
inline constexpr int kDropReasons = 2;
std::string_view drop_reason_label(DropReason reason);  // "slow_consumer", "too_large"

// Authentication and authorization (router/wamp/auth/handshake.h): sessions by method slot
// (ticket, wampcra, scram, cryptosign, anonymous), refusals by reason (no_such_realm,
// no_auth_method, bad_credentials, malformed: FailReason says what each covers; an unknown
// authid is a bad_credentials), requests by action (call, register, publish, subscribe).
// wamp_counters.cc checks the first two against the handshake's.
inline constexpr int kAuthMethodSlots = 5;
inline constexpr int kAuthFailReasons = 4;
inline constexpr int kAuthActions = 4;

// A per-session limit a request was refused for (the label of wamp_limit_refusals): the calls a
// caller has pending (--max-pending-calls-per-session), the procedures a session has registered
// (--max-registrations-per-session), the topics it has subscribed to
// (--max-subscriptions-per-session); and one limit of the whole router, the calls all callers
// together have pending (--max-pending-calls).
enum class SessionLimit : uint8_t {
  pending_calls = 0,
  registrations = 1,
  subscriptions = 2,
  router_pending_calls = 3,
};
inline constexpr int kSessionLimits = 4;
// "pending_calls", "registrations", "subscriptions", "router_pending_calls"
std::string_view session_limit_label(SessionLimit limit);

struct WampCounters {
  // Messages by type slot (router/wamp/message_type.h) and direction.
  std::array<std::array<uint64_t, 2>, wamp::kMessageSlots> messages{};
  // Serialized WAMP message bytes by direction (without WebSocket / RawSocket framing).
  std::array<uint64_t, 2> bytes{};
  // CALLs handed to a callee (INVOCATION sent) or answered by the built-in bench.echo.
  uint64_t calls_routed = 0;
  // EVENTs queued to subscribers (one per subscriber per publication).
  uint64_t events_delivered = 0;
  std::array<uint64_t, kDropReasons> drops{};
  // Transport connections accepted, and refused because --max-sessions were open.
  std::array<uint64_t, kWampTransports> connections_accepted{};
  std::array<uint64_t, kWampTransports> connections_rejected{};
  // Sessions aborted because a message being received was not complete within
  // --message-timeout (benchgate.error.message_timeout), by transport.
  std::array<uint64_t, kWampTransports> messages_timed_out{};
  // Sessions aborted with wamp.error.protocol_violation (malformed, unknown type, oversize).
  uint64_t protocol_errors = 0;
  // Sessions welcomed, and sessions refused with ABORT, by authentication method (and reason).
  std::array<uint64_t, kAuthMethodSlots> auth_welcomed{};
  std::array<std::array<uint64_t, kAuthFailReasons>, kAuthMethodSlots> auth_refused{};
  // Requests refused by the session's role: ERROR wamp.error.not_authorized, by action.
  std::array<uint64_t, kAuthActions> authorization_denied{};
  // WebSocket data frames (text, binary, continuation) by direction, and the messages among
  // them made of more than one frame (router/wamp/websocket_frames.h).
  std::array<uint64_t, 2> websocket_frames{};
  std::array<uint64_t, 2> websocket_fragmented_messages{};
  // Calls the dealer ended before their callee answered: CALL.Options.timeout passed
  // (ERROR wamp.error.timeout), or CANCEL (ERROR wamp.error.canceled, or the callee's ERROR
  // after an INTERRUPT in mode kill).
  uint64_t calls_timed_out = 0;
  uint64_t calls_canceled = 0;
  // Payload bytes bench.transfer sent (the chunks of its progressive results).
  uint64_t transfer_bytes = 0;
  // Requests refused with an ERROR because the session was at one of its limits, by limit.
  std::array<uint64_t, kSessionLimits> limit_refusals{};
  // Connections closed because no session was established within --session-setup-timeout
  // (router/wamp/setup_deadlines.h), whether ABORTed first or closed without a message.
  uint64_t session_setup_timeouts = 0;

  void count_message(int slot, Direction direction, uint64_t size) {
    ++messages[static_cast<size_t>(slot)][static_cast<size_t>(direction)];
    bytes[static_cast<size_t>(direction)] += size;
  }
  void add(const WampCounters& other);
};

// Everything the WAMP thread measures: counters and gauges (reset leaves gauges alone).
struct WampStats {
  WampCounters counters;
  // Established WAMP sessions (WELCOME sent, not yet closed).
  int64_t sessions = 0;
  // Open transport connections by transport.
  std::array<int64_t, kWampTransports> connections_open{};
  // TLS handshakes by transport (listeners with a certificate only).
  std::array<TlsCounters, kWampTransports> tls{};

  void reset() {
    counters = WampCounters{};
    tls = {};
  }
};

}  // namespace benchgate::router::metrics
