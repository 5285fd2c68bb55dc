// Domain metrics -> protobuf (see metrics_proto.h).
#include "router/control/metrics_proto.h"

#include <string>
#include <string_view>

#include "router/wamp/auth/handshake.h"

namespace benchgate::router::control {
namespace {

void add_counter(benchgate::v1::MetricsSnapshot& out, const char* name, uint64_t value) {
  benchgate::v1::Counter* counter = out.add_counters();
  counter->set_name(name);
  counter->set_value(value);
}

void add_labelled(benchgate::v1::MetricsSnapshot& out, const char* name, const char* label,
                  std::string_view value_label, uint64_t value) {
  benchgate::v1::Counter* counter = out.add_counters();
  counter->set_name(name);
  (*counter->mutable_labels())[label] = std::string(value_label);
  counter->set_value(value);
}

// Authentication and authorization: wamp_auth_welcomed {method} and wamp_auth_refused
// {method, reason} for pairs seen at least once, wamp_authorization_denied {action} always.
void add_auth(const metrics::WampCounters& wamp, benchgate::v1::MetricsSnapshot& out) {
  for (int m = 0; m < metrics::kAuthMethodSlots; ++m) {
    const std::string method(wamp::auth::method_slot_label(m));
    if (wamp.auth_welcomed[static_cast<size_t>(m)] != 0) {
      add_labelled(out, "wamp_auth_welcomed", "method", method,
                   wamp.auth_welcomed[static_cast<size_t>(m)]);
    }
    for (int r = 0; r < metrics::kAuthFailReasons; ++r) {
      const uint64_t value = wamp.auth_refused[static_cast<size_t>(m)][static_cast<size_t>(r)];
      if (value == 0) continue;
      benchgate::v1::Counter* counter = out.add_counters();
      counter->set_name("wamp_auth_refused");
      (*counter->mutable_labels())["method"] = method;
      (*counter->mutable_labels())["reason"] =
          std::string(wamp::auth::fail_reason_label(static_cast<wamp::auth::FailReason>(r)));
      counter->set_value(value);
    }
  }
  for (int a = 0; a < metrics::kAuthActions; ++a) {
    add_labelled(out, "wamp_authorization_denied", "action",
                 wamp::auth::action_name(static_cast<wamp::auth::Action>(a)),
                 wamp.authorization_denied[static_cast<size_t>(a)]);
  }
}

// WAMP counters: scalars and per-transport / per-direction / per-reason counters always (also
// at zero); wamp_messages {type, direction} only for pairs seen at least once.
void add_wamp(const metrics::Snapshot& snapshot, benchgate::v1::MetricsSnapshot& out) {
  using metrics::Direction;
  using metrics::DropReason;
  using metrics::WampTransport;
  const metrics::WampCounters& wamp = snapshot.wamp;
  add_counter(out, "wamp_calls_routed", wamp.calls_routed);
  add_counter(out, "wamp_events_delivered", wamp.events_delivered);
  add_counter(out, "wamp_protocol_errors", wamp.protocol_errors);
  add_counter(out, "wamp_calls_timed_out", wamp.calls_timed_out);
  add_counter(out, "wamp_calls_canceled", wamp.calls_canceled);
  add_counter(out, "wamp_transfer_bytes", wamp.transfer_bytes);
  add_counter(out, "wamp_session_setup_timeouts", wamp.session_setup_timeouts);
  for (auto limit :
       {metrics::SessionLimit::pending_calls, metrics::SessionLimit::registrations,
        metrics::SessionLimit::subscriptions, metrics::SessionLimit::router_pending_calls}) {
    add_labelled(out, "wamp_limit_refusals", "limit", metrics::session_limit_label(limit),
                 wamp.limit_refusals[static_cast<size_t>(limit)]);
  }
  for (auto direction : {Direction::in, Direction::out}) {
    add_labelled(out, "wamp_bytes", "direction", metrics::direction_label(direction),
                 wamp.bytes[static_cast<size_t>(direction)]);
    add_labelled(out, "wamp_websocket_frames", "direction", metrics::direction_label(direction),
                 wamp.websocket_frames[static_cast<size_t>(direction)]);
    add_labelled(out, "wamp_websocket_fragmented_messages", "direction",
                 metrics::direction_label(direction),
                 wamp.websocket_fragmented_messages[static_cast<size_t>(direction)]);
  }
  for (auto reason : {DropReason::slow_consumer, DropReason::too_large}) {
    add_labelled(out, "wamp_drops", "reason", metrics::drop_reason_label(reason),
                 wamp.drops[static_cast<size_t>(reason)]);
  }
  for (auto transport : {WampTransport::websocket, WampTransport::rawsocket}) {
    const auto t = static_cast<size_t>(transport);
    add_labelled(out, "wamp_connections", "transport", metrics::transport_label(transport),
                 wamp.connections_accepted[t]);
    add_labelled(out, "wamp_connections_rejected", "transport", metrics::transport_label(transport),
                 wamp.connections_rejected[t]);
    add_labelled(out, "wamp_messages_timed_out", "transport", metrics::transport_label(transport),
                 wamp.messages_timed_out[t]);
  }
  add_auth(wamp, out);
  for (int slot = 0; slot < wamp::kMessageSlots; ++slot) {
    for (auto direction : {Direction::in, Direction::out}) {
      const uint64_t value =
          wamp.messages[static_cast<size_t>(slot)][static_cast<size_t>(direction)];
      if (value == 0) continue;
      benchgate::v1::Counter* counter = out.add_counters();
      counter->set_name("wamp_messages");
      (*counter->mutable_labels())["type"] = std::string(wamp::message_slot_name(slot));
      (*counter->mutable_labels())["direction"] = std::string(metrics::direction_label(direction));
      counter->set_value(value);
    }
  }
  (*out.mutable_gauges())["wamp_sessions"] = snapshot.wamp_sessions;
  (*out.mutable_gauges())["wamp_connections_open_websocket"] =
      snapshot.wamp_connections_open[static_cast<size_t>(WampTransport::websocket)];
  (*out.mutable_gauges())["wamp_connections_open_rawsocket"] =
      snapshot.wamp_connections_open[static_cast<size_t>(WampTransport::rawsocket)];
}

// TLS counters by listener, every label combination (also at zero), only with TLS on.
void add_tls(const metrics::Snapshot& snapshot, benchgate::v1::MetricsSnapshot& out) {
  for (int l = 0; l < metrics::kTlsListeners; ++l) {
    const auto listener =
        std::string(metrics::tls_listener_label(static_cast<metrics::TlsListener>(l)));
    const metrics::TlsCounters& tls = snapshot.tls[static_cast<size_t>(l)];
    for (int v = 0; v < metrics::kTlsVersions; ++v) {
      for (int a = 0; a < metrics::kTlsAlpns; ++a) {
        benchgate::v1::Counter* counter = out.add_counters();
        counter->set_name("tls_handshakes");
        auto& labels = *counter->mutable_labels();
        labels["listener"] = listener;
        labels["version"] =
            std::string(metrics::tls_version_label(static_cast<metrics::TlsVersion>(v)));
        labels["alpn"] = std::string(metrics::tls_alpn_label(static_cast<metrics::TlsAlpn>(a)));
        counter->set_value(tls.handshakes[static_cast<size_t>(v)][static_cast<size_t>(a)]);
      }
      benchgate::v1::Counter* counter = out.add_counters();
      counter->set_name("tls_resumed");
      auto& labels = *counter->mutable_labels();
      labels["listener"] = listener;
      labels["version"] =
          std::string(metrics::tls_version_label(static_cast<metrics::TlsVersion>(v)));
      counter->set_value(tls.resumed[static_cast<size_t>(v)]);
    }
    for (int f = 0; f < metrics::kTlsFailures; ++f) {
      benchgate::v1::Counter* counter = out.add_counters();
      counter->set_name("tls_handshake_failures");
      auto& labels = *counter->mutable_labels();
      labels["listener"] = listener;
      labels["reason"] =
          std::string(metrics::tls_failure_label(static_cast<metrics::TlsFailure>(f)));
      counter->set_value(tls.failures[static_cast<size_t>(f)]);
    }
  }
}

}  // namespace

void to_proto(const metrics::Snapshot& snapshot, benchgate::v1::MetricsSnapshot& out) {
  out.set_taken_at_unix_ns(snapshot.taken_at_unix_ns);
  const metrics::HttpCounters& counters = snapshot.counters;
  add_counter(out, "connections_accepted", counters.connections_accepted);
  add_counter(out, "bytes_received", counters.bytes_received);
  add_counter(out, "bytes_sent", counters.bytes_sent);
  add_counter(out, "http_parse_errors", counters.parse_errors);
  add_counter(out, "connections_timed_out", counters.timed_out);
  const metrics::Http2Counters& h2 = counters.h2;
  add_counter(out, "h2_connections", h2.connections);
  add_counter(out, "h2_streams", h2.streams);
  add_counter(out, "h2_streams_refused", h2.streams_refused);
  add_counter(out, "h2_client_resets", h2.client_resets);
  add_counter(out, "h2_rapid_reset_closes", h2.rapid_reset_closes);
  add_counter(out, "h2_continuation_flood_closes", h2.continuation_flood_closes);
  add_counter(out, "h2_header_list_closes", h2.header_list_closes);
  add_counter(out, "h2_protocol_error_closes", h2.protocol_error_closes);
  add_counter(out, "h2_flow_control_resets", h2.flow_control_resets);
  add_counter(out, "h2_flow_control_closes", h2.flow_control_closes);
  for (int r = 0; r < http::kRouteCount; ++r) {
    const auto route = static_cast<http::Route>(r);
    for (size_t s = 0; s < metrics::kStatuses.size(); ++s) {
      const uint64_t value = counters.requests[static_cast<size_t>(r)][s];
      if (value == 0) continue;
      benchgate::v1::Counter* counter = out.add_counters();
      counter->set_name("http_requests");
      (*counter->mutable_labels())["route"] = std::string(http::route_label(route));
      (*counter->mutable_labels())["status"] = std::to_string(metrics::kStatuses[s]);
      counter->set_value(value);
    }
  }
  (*out.mutable_gauges())["connections_open"] = snapshot.connections_open;
  (*out.mutable_gauges())["read_buffers_held"] = snapshot.read_buffers_held;
  if (snapshot.budget_present) {
    for (int u = 0; u < memory::kBudgetUsers; ++u) {
      const auto user = static_cast<memory::BudgetUser>(u);
      add_labelled(out, "buffer_budget_refusals", "transport", memory::budget_user_label(user),
                   snapshot.budget_refusals[static_cast<size_t>(u)]);
    }
    (*out.mutable_gauges())["buffered_bytes"] = static_cast<int64_t>(snapshot.buffered_bytes);
    (*out.mutable_gauges())["buffered_bytes_limit"] =
        static_cast<int64_t>(snapshot.buffered_bytes_limit);
  }
  (*out.mutable_gauges())["inject_work_ns"] = snapshot.inject_work_ns;
  if (snapshot.wamp_present) add_wamp(snapshot, out);
  if (snapshot.tls_present) add_tls(snapshot, out);
  const std::vector<uint8_t> encoded = snapshot.handling.encode_compressed();
  out.mutable_handling()->set_hdr_v2_compressed(encoded.data(), encoded.size());
  out.set_cpu_user_seconds(static_cast<double>(snapshot.cpu.user_ns) / 1e9);
  out.set_cpu_system_seconds(static_cast<double>(snapshot.cpu.system_ns) / 1e9);
  out.set_rss_bytes(snapshot.rss_bytes);
}

}  // namespace benchgate::router::control
