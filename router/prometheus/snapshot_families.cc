// See snapshot_families.h. Counter names end in _total and use base units (bytes, seconds),
// so `promtool check metrics` has nothing to say.
#include "router/prometheus/snapshot_families.h"

#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "router/wamp/auth/handshake.h"
#include "router/wamp/message_type.h"

namespace benchgate::router::prometheus_export {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

MetricFamily family(const char* name, const char* help, MetricType type) {
  MetricFamily f;
  f.name = name;
  f.help = help;
  f.type = type;
  return f;
}

MetricFamily single(const char* name, const char* help, MetricType type, double value) {
  MetricFamily f = family(name, help, type);
  ClientMetric m;
  if (type == MetricType::Counter) {
    m.counter.value = value;
  } else {
    m.gauge.value = value;
  }
  f.metric.push_back(std::move(m));
  return f;
}

// WAMP authentication and authorization (router/wamp/auth): sessions welcomed and refused
// by method (and reason), requests refused by the session's role by action.
void add_wamp_auth(const metrics::WampCounters& wamp, std::vector<MetricFamily>& out) {
  namespace wauth = wamp::auth;
  MetricFamily welcomed =
      family("benchgate_router_wamp_auth_welcomed_total",
             "WAMP sessions welcomed, by authentication method", MetricType::Counter);
  MetricFamily refused =
      family("benchgate_router_wamp_auth_refused_total",
             "WAMP sessions refused with ABORT, by method and reason (no_such_realm, "
             "no_auth_method, bad_credentials: a wrong credential or an authid the realm does "
             "not have, which are not told apart; malformed)",
             MetricType::Counter);
  for (int m = 0; m < metrics::kAuthMethodSlots; ++m) {
    const std::string method(wauth::method_slot_label(m));
    ClientMetric w;
    w.label = {{"method", method}};
    w.counter.value = static_cast<double>(wamp.auth_welcomed[static_cast<size_t>(m)]);
    welcomed.metric.push_back(std::move(w));
    for (int r = 0; r < metrics::kAuthFailReasons; ++r) {
      ClientMetric f;
      f.label = {
          {"method", method},
          {"reason", std::string(wauth::fail_reason_label(static_cast<wauth::FailReason>(r)))}};
      f.counter.value =
          static_cast<double>(wamp.auth_refused[static_cast<size_t>(m)][static_cast<size_t>(r)]);
      refused.metric.push_back(std::move(f));
    }
  }
  MetricFamily denied = family("benchgate_router_wamp_authorization_denied_total",
                               "WAMP requests refused by the session's role "
                               "(wamp.error.not_authorized), by action",
                               MetricType::Counter);
  for (int a = 0; a < metrics::kAuthActions; ++a) {
    ClientMetric d;
    d.label = {{"action", std::string(wauth::action_name(static_cast<wauth::Action>(a)))}};
    d.counter.value = static_cast<double>(wamp.authorization_denied[static_cast<size_t>(a)]);
    denied.metric.push_back(std::move(d));
  }
  out.push_back(std::move(welcomed));
  out.push_back(std::move(refused));
  out.push_back(std::move(denied));
}

// A counter family with one sample per label value: `label` -> `labels[i]`, `values[i]`.
template <size_t N>
MetricFamily labelled(const char* name, const char* help, const char* label,
                      const std::array<std::string_view, N>& labels,
                      const std::array<uint64_t, N>& values) {
  MetricFamily f = family(name, help, MetricType::Counter);
  for (size_t i = 0; i < N; ++i) {
    ClientMetric m;
    m.label = {{label, std::string(labels[i])}};
    m.counter.value = static_cast<double>(values[i]);
    f.metric.push_back(std::move(m));
  }
  return f;
}

// WAMP traffic: the counters and gauges RouterControl.GetMetrics reports (router/README.md,
// "Metrics (RouterControl.GetMetrics)"), read from the same snapshot, each counter
// benchgate_router_ + its GetMetrics name + _total with the same labels, and the same samples:
// every label value also at zero, but for wamp_messages, only the {type, direction} pairs seen.
void add_wamp_traffic(const metrics::Snapshot& snapshot, std::vector<MetricFamily>& out) {
  using metrics::Direction;
  const metrics::WampCounters& wamp = snapshot.wamp;
  const std::array<std::string_view, 2> directions = {metrics::direction_label(Direction::in),
                                                      metrics::direction_label(Direction::out)};
  const std::array<std::string_view, metrics::kWampTransports> transports = {
      metrics::transport_label(metrics::WampTransport::websocket),
      metrics::transport_label(metrics::WampTransport::rawsocket)};
  const std::array<std::string_view, metrics::kDropReasons> drop_reasons = {
      metrics::drop_reason_label(metrics::DropReason::slow_consumer),
      metrics::drop_reason_label(metrics::DropReason::too_large)};

  MetricFamily messages =
      family("benchgate_router_wamp_messages_total",
             "WAMP messages by type (INVALID: not decoded or not valid) and direction; only the "
             "pairs seen",
             MetricType::Counter);
  for (int slot = 0; slot < wamp::kMessageSlots; ++slot) {
    for (const Direction direction : {Direction::in, Direction::out}) {
      const uint64_t value =
          wamp.messages[static_cast<size_t>(slot)][static_cast<size_t>(direction)];
      if (value == 0) continue;
      ClientMetric m;
      m.label = {{"direction", std::string(metrics::direction_label(direction))},
                 {"type", std::string(wamp::message_slot_name(slot))}};
      m.counter.value = static_cast<double>(value);
      messages.metric.push_back(std::move(m));
    }
  }
  out.push_back(std::move(messages));
  out.push_back(labelled("benchgate_router_wamp_bytes_total",
                         "Bytes of serialized WAMP messages (without WebSocket or RawSocket "
                         "framing), by direction",
                         "direction", directions, wamp.bytes));
  out.push_back(single("benchgate_router_wamp_calls_routed_total",
                       "WAMP CALLs handed to a callee as INVOCATION, or answered by the router's "
                       "own procedures (bench.echo, bench.transfer, wamp.session.count)",
                       MetricType::Counter, static_cast<double>(wamp.calls_routed)));
  out.push_back(single("benchgate_router_wamp_events_delivered_total",
                       "WAMP EVENTs queued to subscribers, one per subscriber per publication",
                       MetricType::Counter, static_cast<double>(wamp.events_delivered)));
  out.push_back(labelled("benchgate_router_wamp_drops_total",
                         "WAMP sessions dropped as slow consumers (past --max-queued-bytes), and "
                         "messages not delivered because the receiving peer does not accept "
                         "their size, by reason",
                         "reason", drop_reasons, wamp.drops));
  out.push_back(labelled("benchgate_router_wamp_connections_total",
                         "WAMP transport connections accepted, by transport", "transport",
                         transports, wamp.connections_accepted));
  out.push_back(labelled("benchgate_router_wamp_connections_rejected_total",
                         "WAMP transport connections refused because --max-sessions were open, "
                         "by transport",
                         "transport", transports, wamp.connections_rejected));
  out.push_back(single("benchgate_router_wamp_protocol_errors_total",
                       "WAMP sessions aborted with wamp.error.protocol_violation",
                       MetricType::Counter, static_cast<double>(wamp.protocol_errors)));
  out.push_back(labelled("benchgate_router_wamp_websocket_frames_total",
                         "WebSocket data frames (continuation frames included) of WAMP "
                         "connections, by direction",
                         "direction", directions, wamp.websocket_frames));
  out.push_back(labelled("benchgate_router_wamp_websocket_fragmented_messages_total",
                         "WAMP messages sent or received over WebSocket in more than one frame, "
                         "by direction",
                         "direction", directions, wamp.websocket_fragmented_messages));
  out.push_back(single("benchgate_router_wamp_calls_timed_out_total",
                       "WAMP calls ended by their CALL.Options.timeout (wamp.error.timeout)",
                       MetricType::Counter, static_cast<double>(wamp.calls_timed_out)));
  out.push_back(single("benchgate_router_wamp_calls_canceled_total",
                       "WAMP calls ended by the caller's CANCEL", MetricType::Counter,
                       static_cast<double>(wamp.calls_canceled)));
  out.push_back(single("benchgate_router_wamp_transfer_bytes_total",
                       "Payload bytes bench.transfer sent in its progressive results",
                       MetricType::Counter, static_cast<double>(wamp.transfer_bytes)));
  out.push_back(single("benchgate_router_wamp_sessions", "WAMP sessions established now",
                       MetricType::Gauge, static_cast<double>(snapshot.wamp_sessions)));
  MetricFamily open =
      family("benchgate_router_wamp_open_connections",
             "WAMP transport connections open now, by transport", MetricType::Gauge);
  for (size_t t = 0; t < transports.size(); ++t) {
    ClientMetric m;
    m.label = {{"transport", std::string(transports[t])}};
    m.gauge.value = static_cast<double>(snapshot.wamp_connections_open[t]);
    open.metric.push_back(std::move(m));
  }
  out.push_back(std::move(open));
}

}  // namespace

std::vector<MetricFamily> to_families(const metrics::Snapshot& snapshot) {
  const metrics::HttpCounters& c = snapshot.counters;
  std::vector<MetricFamily> out;

  MetricFamily requests =
      family("benchgate_router_http_requests_total", "HTTP requests answered, by route and status",
             MetricType::Counter);
  for (int r = 0; r < http::kRouteCount; ++r) {
    const auto route = static_cast<http::Route>(r);
    for (size_t s = 0; s < metrics::kStatuses.size(); ++s) {
      // Every route with status 200 is always present, so rate() sees the first request.
      const uint64_t value = c.requests[static_cast<size_t>(r)][s];
      if (value == 0 && metrics::kStatuses[s] != 200) continue;
      ClientMetric m;
      m.label = {{"route", std::string(http::route_label(route))},
                 {"status", std::to_string(metrics::kStatuses[s])}};
      m.counter.value = static_cast<double>(value);
      requests.metric.push_back(std::move(m));
    }
  }
  out.push_back(std::move(requests));

  out.push_back(single("benchgate_router_http_connections_accepted_total",
                       "HTTP connections accepted", MetricType::Counter,
                       static_cast<double>(c.connections_accepted)));
  out.push_back(single("benchgate_router_http_open_connections", "HTTP connections open now",
                       MetricType::Gauge, static_cast<double>(snapshot.connections_open)));
  out.push_back(single("benchgate_router_http_read_buffers_held",
                       "HTTP/1.1 connections holding their read buffer between requests "
                       "(--read-buffer-hold)",
                       MetricType::Gauge, static_cast<double>(snapshot.read_buffers_held)));
  out.push_back(single("benchgate_router_inject_work_seconds",
                       "Busy work per HTTP request and WAMP call (--inject-work-ns, a "
                       "calibration aid; 0: none)",
                       MetricType::Gauge, static_cast<double>(snapshot.inject_work_ns) / 1e9));
  out.push_back(single("benchgate_router_http_received_bytes_total",
                       "Bytes read from HTTP connections", MetricType::Counter,
                       static_cast<double>(c.bytes_received)));
  out.push_back(single("benchgate_router_http_sent_bytes_total",
                       "Bytes written to HTTP connections", MetricType::Counter,
                       static_cast<double>(c.bytes_sent)));
  out.push_back(single("benchgate_router_http_parse_errors_total",
                       "Requests rejected by the parser (malformed or too large)",
                       MetricType::Counter, static_cast<double>(c.parse_errors)));
  out.push_back(single("benchgate_router_http_timeouts_total",
                       "Connections closed by the idle or header timeout", MetricType::Counter,
                       static_cast<double>(c.timed_out)));
  const metrics::Http2Counters& h2 = c.h2;
  out.push_back(single("benchgate_router_http2_connections_total",
                       "HTTP/2 connections (h2c prior knowledge)", MetricType::Counter,
                       static_cast<double>(h2.connections)));
  out.push_back(single("benchgate_router_http2_streams_total", "HTTP/2 request streams opened",
                       MetricType::Counter, static_cast<double>(h2.streams)));
  out.push_back(single("benchgate_router_http2_streams_refused_total",
                       "HTTP/2 streams over SETTINGS_MAX_CONCURRENT_STREAMS refused with "
                       "REFUSED_STREAM",
                       MetricType::Counter, static_cast<double>(h2.streams_refused)));
  out.push_back(single("benchgate_router_http2_client_resets_total",
                       "RST_STREAM frames received from HTTP/2 clients", MetricType::Counter,
                       static_cast<double>(h2.client_resets)));
  out.push_back(single("benchgate_router_http2_flow_control_resets_total",
                       "HTTP/2 streams reset with FLOW_CONTROL_ERROR (a client broke the "
                       "stream's flow-control window)",
                       MetricType::Counter, static_cast<double>(h2.flow_control_resets)));
  MetricFamily closes =
      family("benchgate_router_http2_defence_closes_total",
             "HTTP/2 connections ended with GOAWAY by a defence, by reason", MetricType::Counter);
  for (const auto& [reason, value] :
       {std::pair<const char*, uint64_t>{"rapid_reset", h2.rapid_reset_closes},
        {"continuation_flood", h2.continuation_flood_closes},
        {"header_list", h2.header_list_closes},
        {"flow_control", h2.flow_control_closes},
        {"protocol_error", h2.protocol_error_closes}}) {
    ClientMetric m;
    m.label = {{"reason", reason}};
    m.counter.value = static_cast<double>(value);
    closes.metric.push_back(std::move(m));
  }
  out.push_back(std::move(closes));
  if (snapshot.budget_present) {
    MetricFamily refusals = family(
        "benchgate_router_buffer_budget_refusals_total",
        "Messages refused because the buffered-bytes budget (--max-buffered-bytes) was spent, by "
        "transport",
        MetricType::Counter);
    for (int u = 0; u < memory::kBudgetUsers; ++u) {
      ClientMetric m;
      m.label = {{"transport",
                  std::string(memory::budget_user_label(static_cast<memory::BudgetUser>(u)))}};
      m.counter.value = static_cast<double>(snapshot.budget_refusals[static_cast<size_t>(u)]);
      refusals.metric.push_back(std::move(m));
    }
    out.push_back(std::move(refusals));
    out.push_back(single("benchgate_router_buffered_bytes",
                         "Bytes of message buffers held within the budget now", MetricType::Gauge,
                         static_cast<double>(snapshot.buffered_bytes)));
    out.push_back(single("benchgate_router_buffered_bytes_limit",
                         "The buffered-bytes budget (--max-buffered-bytes)", MetricType::Gauge,
                         static_cast<double>(snapshot.buffered_bytes_limit)));
  }
  if (snapshot.wamp_present) {
    add_wamp_traffic(snapshot, out);
    add_wamp_auth(snapshot.wamp, out);
    MetricFamily timeouts =
        family("benchgate_router_wamp_messages_timed_out_total",
               "WAMP sessions aborted because a message being received was not complete within "
               "--message-timeout of its first bytes, by transport",
               MetricType::Counter);
    for (int t = 0; t < metrics::kWampTransports; ++t) {
      ClientMetric m;
      m.label = {{"transport",
                  std::string(metrics::transport_label(static_cast<metrics::WampTransport>(t)))}};
      m.counter.value =
          static_cast<double>(snapshot.wamp.messages_timed_out[static_cast<size_t>(t)]);
      timeouts.metric.push_back(std::move(m));
    }
    out.push_back(std::move(timeouts));
    out.push_back(single("benchgate_router_wamp_session_setup_timeouts_total",
                         "WAMP connections closed because no session was established within "
                         "--session-setup-timeout",
                         MetricType::Counter,
                         static_cast<double>(snapshot.wamp.session_setup_timeouts)));
    MetricFamily refusals = family("benchgate_router_wamp_limit_refusals_total",
                                   "WAMP messages refused with an ERROR because the session was "
                                   "at a per-session limit (--max-*-per-session) or the router "
                                   "at --max-pending-calls, by limit",
                                   MetricType::Counter);
    for (int l = 0; l < metrics::kSessionLimits; ++l) {
      ClientMetric m;
      m.label = {{"limit", std::string(metrics::session_limit_label(
                               static_cast<metrics::SessionLimit>(l)))}};
      m.counter.value = static_cast<double>(snapshot.wamp.limit_refusals[static_cast<size_t>(l)]);
      refusals.metric.push_back(std::move(m));
    }
    out.push_back(std::move(refusals));
  }
  if (snapshot.tls_present) {
    MetricFamily handshakes = family(
        "benchgate_router_tls_handshakes_total",
        "TLS handshakes completed, by listener, negotiated version and ALPN", MetricType::Counter);
    MetricFamily resumed =
        family("benchgate_router_tls_resumed_total",
               "TLS handshakes completed that resumed a session the client offered (abbreviated "
               "handshakes), by listener and negotiated version",
               MetricType::Counter);
    MetricFamily failures = family("benchgate_router_tls_handshake_failures_total",
                                   "TLS handshakes that failed or timed out, by listener and "
                                   "reason (--tls-handshake-timeout: reason timeout)",
                                   MetricType::Counter);
    for (int l = 0; l < metrics::kTlsListeners; ++l) {
      const auto listener =
          std::string(metrics::tls_listener_label(static_cast<metrics::TlsListener>(l)));
      const metrics::TlsCounters& tls = snapshot.tls[static_cast<size_t>(l)];
      for (int v = 0; v < metrics::kTlsVersions; ++v) {
        for (int a = 0; a < metrics::kTlsAlpns; ++a) {
          ClientMetric m;
          m.label = {
              {"listener", listener},
              {"version",
               std::string(metrics::tls_version_label(static_cast<metrics::TlsVersion>(v)))},
              {"alpn", std::string(metrics::tls_alpn_label(static_cast<metrics::TlsAlpn>(a)))}};
          m.counter.value =
              static_cast<double>(tls.handshakes[static_cast<size_t>(v)][static_cast<size_t>(a)]);
          handshakes.metric.push_back(std::move(m));
        }
        ClientMetric m;
        m.label = {{"listener", listener},
                   {"version",
                    std::string(metrics::tls_version_label(static_cast<metrics::TlsVersion>(v)))}};
        m.counter.value = static_cast<double>(tls.resumed[static_cast<size_t>(v)]);
        resumed.metric.push_back(std::move(m));
      }
      for (int f = 0; f < metrics::kTlsFailures; ++f) {
        ClientMetric m;
        m.label = {{"listener", listener},
                   {"reason",
                    std::string(metrics::tls_failure_label(static_cast<metrics::TlsFailure>(f)))}};
        m.counter.value = static_cast<double>(tls.failures[static_cast<size_t>(f)]);
        failures.metric.push_back(std::move(m));
      }
    }
    out.push_back(std::move(handshakes));
    out.push_back(std::move(resumed));
    out.push_back(std::move(failures));
  }
  out.push_back(single("process_cpu_seconds_total", "User and system CPU time of the router",
                       MetricType::Counter,
                       static_cast<double>(snapshot.cpu.user_ns + snapshot.cpu.system_ns) / 1e9));
  out.push_back(single("process_resident_memory_bytes", "Resident memory of the router",
                       MetricType::Gauge, static_cast<double>(snapshot.rss_bytes)));
  return out;
}

}  // namespace benchgate::router::prometheus_export
