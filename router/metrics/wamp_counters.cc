// Labels and summing of WAMP counters (see wamp_counters.h).
#include "router/metrics/wamp_counters.h"

#include "router/wamp/auth/handshake.h"

namespace benchgate::router::metrics {

// The handshake's labels index these arrays (router/wamp/session.cc counts by them).
static_assert(kAuthMethodSlots == wamp::auth::kMethodSlots);
static_assert(kAuthFailReasons == wamp::auth::kFailReasons);

std::string_view transport_label(WampTransport transport) {
  return transport == WampTransport::websocket ? "websocket" : "rawsocket";
}

std::string_view direction_label(Direction direction) {
  return direction == Direction::in ? "in" : "out";
}

std::string_view drop_reason_label(DropReason reason) {
  return reason == DropReason::slow_consumer ? "slow_consumer" : "too_large";
}

std::string_view session_limit_label(SessionLimit limit) {
  switch (limit) {
    case SessionLimit::pending_calls:
      return "pending_calls";
    case SessionLimit::registrations:
      return "registrations";
    case SessionLimit::subscriptions:
      return "subscriptions";
    case SessionLimit::router_pending_calls:
      return "router_pending_calls";
  }
  return "pending_calls";
}

void WampCounters::add(const WampCounters& other) {
  for (size_t s = 0; s < messages.size(); ++s) {
    for (size_t d = 0; d < 2; ++d) messages[s][d] += other.messages[s][d];
  }
  for (size_t d = 0; d < 2; ++d) bytes[d] += other.bytes[d];
  calls_routed += other.calls_routed;
  events_delivered += other.events_delivered;
  for (size_t r = 0; r < drops.size(); ++r) drops[r] += other.drops[r];
  for (size_t t = 0; t < connections_accepted.size(); ++t) {
    connections_accepted[t] += other.connections_accepted[t];
    connections_rejected[t] += other.connections_rejected[t];
    messages_timed_out[t] += other.messages_timed_out[t];
  }
  protocol_errors += other.protocol_errors;
  for (size_t m = 0; m < auth_welcomed.size(); ++m) {
    auth_welcomed[m] += other.auth_welcomed[m];
    for (size_t r = 0; r < auth_refused[m].size(); ++r)
      auth_refused[m][r] += other.auth_refused[m][r];
  }
  for (size_t a = 0; a < authorization_denied.size(); ++a) {
    authorization_denied[a] += other.authorization_denied[a];
  }
  calls_timed_out += other.calls_timed_out;
  calls_canceled += other.calls_canceled;
  transfer_bytes += other.transfer_bytes;
  for (size_t l = 0; l < limit_refusals.size(); ++l) limit_refusals[l] += other.limit_refusals[l];
  session_setup_timeouts += other.session_setup_timeouts;
  for (size_t d = 0; d < 2; ++d) {
    websocket_frames[d] += other.websocket_frames[d];
    websocket_fragmented_messages[d] += other.websocket_fragmented_messages[d];
  }
}

}  // namespace benchgate::router::metrics
