// Validation of the router's flags (see config.h).
#include "router/app/config.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include <boost/asio/ip/address.hpp>

#include "common/net/owner_only_socket.h"
#include "common/router/router_limits.h"
#include "common/security/token.h"
#include "common/units/units.h"
#include "router/app/host_port.h"
#include "router/tls/server_context.h"
#include "router/wamp/auth/auth_config.h"

namespace benchgate::router::app {
namespace {

// The values in `values` as a message names them: "asio or epoll".
std::string either_of(std::span<const std::string_view> values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += i + 1 == values.size() ? " or " : ", ";
    out += values[i];
  }
  return out;
}

Error flag_error(const char* flag, const std::string& message) {
  return Error{std::string(flag) + ": " + message};
}

// A listen address: literal IP addresses only, plus "localhost" (resolving names is not the
// router's business).
Expected<boost::asio::ip::tcp::endpoint> listen_endpoint(const char* flag, const std::string& text,
                                                         std::string& host_out) {
  auto parsed = parse_host_port(text);
  if (!parsed) return flag_error(flag, parsed.message());
  const std::string ip = parsed->host == "localhost" ? "127.0.0.1" : parsed->host;
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(ip, ec);
  if (ec) return flag_error(flag, "'" + parsed->host + "' is not an IP address");
  host_out = parsed->host;
  return boost::asio::ip::tcp::endpoint{address, parsed->port};
}

}  // namespace

Expected<RouterConfig> make_config(const RawConfig& raw) {
  RouterConfig config;

  auto http = parse_host_port(raw.http);
  if (!http) return flag_error("--http", http.message());
  // Literal addresses only, plus "localhost": resolving names is not the router's business.
  const std::string http_ip = http->host == "localhost" ? "127.0.0.1" : http->host;
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(http_ip, ec);
  if (ec) return flag_error("--http", "'" + http->host + "' is not an IP address");
  config.http.endpoint = {address, http->port};
  config.http_host = http->host;

  if (raw.control.starts_with("unix:")) {
    // No PATH: gRPC would bind an abstract socket, which any local user may connect to; a
    // unix:PATH is made owner-only (common/net/owner_only_socket.h).
    if (auto missing = benchgate::net::unix_address_without_path(raw.control)) {
      return flag_error("--control", *missing);
    }
    // gRPC's own form for a Unix domain socket; it is also what READY and Health report.
    config.control = raw.control;
  } else {
    auto control = parse_host_port(raw.control);
    if (!control) return flag_error("--control", control.message());
    config.control_host = control->host;
    config.control = format_host_port(control->host, control->port);
  }

  if (!raw.metrics_listen.empty()) {
    auto metrics = parse_host_port(raw.metrics_listen);
    if (!metrics) return flag_error("--metrics-listen", metrics.message());
    config.metrics_host = metrics->host;
    config.metrics = format_host_port(metrics->host, metrics->port);
  }

  if (raw.threads < static_cast<int>(router_limits::kMinThreads) ||
      raw.threads > static_cast<int>(router_limits::kMaxThreads)) {
    return flag_error("--threads", "must be from " + std::to_string(router_limits::kMinThreads) +
                                       " to " + std::to_string(router_limits::kMaxThreads));
  }
  config.http.threads = raw.threads;

  auto header_bytes = parse_size_bytes(raw.max_header_bytes);
  if (!header_bytes) return flag_error("--max-header-bytes", header_bytes.message());
  if (*header_bytes < 64 || *header_bytes > std::numeric_limits<uint32_t>::max()) {
    return flag_error("--max-header-bytes", "must be from 64 bytes to 4 GiB");
  }
  config.http.max_header_bytes = static_cast<uint32_t>(*header_bytes);

  auto body_bytes = parse_size_bytes(raw.max_body_bytes);
  if (!body_bytes) return flag_error("--max-body-bytes", body_bytes.message());
  config.http.max_body_bytes = *body_bytes;

  auto idle = parse_duration_ns(raw.idle_timeout);
  if (!idle) return flag_error("--idle-timeout", idle.message());
  if (*idle <= 0) return flag_error("--idle-timeout", "must be positive");
  config.http.idle_timeout_ns = *idle;

  auto header = parse_duration_ns(raw.header_timeout);
  if (!header) return flag_error("--header-timeout", header.message());
  if (*header <= 0) return flag_error("--header-timeout", "must be positive");
  config.http.header_timeout_ns = *header;

  auto body = parse_duration_ns(raw.body_timeout);
  if (!body) return flag_error("--body-timeout", body.message());
  if (*body <= 0) return flag_error("--body-timeout", "must be positive");
  config.http.body_timeout_ns = *body;

  auto hold = parse_duration_ns(raw.read_buffer_hold);
  if (!hold) return flag_error("--read-buffer-hold", hold.message());
  if (*hold > 60'000'000'000) return flag_error("--read-buffer-hold", "must be at most 60s");
  config.http.read_buffer_hold_ns = *hold;

  if (raw.http_io == "asio") {
    config.http.http_io = http::ServerOptions::Io::kAsio;
  } else if (raw.http_io == "epoll") {
    config.http.http_io = http::ServerOptions::Io::kEpoll;
    if (raw.read_buffer_hold_given) {
      return flag_error("--read-buffer-hold",
                        "applies to --http-io asio only (with epoll, the default, a connection "
                        "keeps no read buffer between requests)");
    }
  } else {
    return flag_error("--http-io",
                      "must be " + either_of(kHttpIoValues) + ", not \"" + raw.http_io + "\"");
  }

  auto websocket = listen_endpoint("--websocket", raw.websocket, config.websocket_host);
  if (!websocket) return websocket.error();
  config.wamp.websocket = *websocket;
  auto rawsocket = listen_endpoint("--rawsocket", raw.rawsocket, config.rawsocket_host);
  if (!rawsocket) return rawsocket.error();
  config.wamp.rawsocket = *rawsocket;

  auto message_bytes = parse_size_bytes(raw.max_message_bytes);
  if (!message_bytes) return flag_error("--max-message-bytes", message_bytes.message());
  if (*message_bytes < 512 || *message_bytes > (uint64_t{1} << 30)) {
    return flag_error("--max-message-bytes", "must be from 512 bytes to 1 GiB");
  }
  config.wamp.max_message_bytes = *message_bytes;

  if (raw.max_sessions < 1 || raw.max_sessions > 1'000'000) {
    return flag_error("--max-sessions", "must be from 1 to 1000000");
  }
  config.wamp.max_sessions = static_cast<uint32_t>(raw.max_sessions);

  auto queued = parse_size_bytes(raw.max_queued_bytes);
  if (!queued) return flag_error("--max-queued-bytes", queued.message());
  if (*queued < 1024) return flag_error("--max-queued-bytes", "must be at least 1 KiB");
  config.wamp.max_queued_bytes = *queued;

  const std::pair<const char*, int64_t> per_session[] = {
      {"--max-pending-calls-per-session", raw.max_pending_calls_per_session},
      {"--max-registrations-per-session", raw.max_registrations_per_session},
      {"--max-subscriptions-per-session", raw.max_subscriptions_per_session}};
  for (const auto& [flag, value] : per_session) {
    if (value < 1 || value > 1'000'000) return flag_error(flag, "must be from 1 to 1000000");
  }
  config.wamp.max_pending_calls_per_session =
      static_cast<uint32_t>(raw.max_pending_calls_per_session);
  config.wamp.max_registrations_per_session =
      static_cast<uint32_t>(raw.max_registrations_per_session);
  config.wamp.max_subscriptions_per_session =
      static_cast<uint32_t>(raw.max_subscriptions_per_session);
  if (raw.max_pending_calls < 1 || raw.max_pending_calls > 100'000'000) {
    return flag_error("--max-pending-calls", "must be from 1 to 100000000");
  }
  config.wamp.max_pending_calls = static_cast<uint32_t>(raw.max_pending_calls);

  auto message_timeout = parse_duration_ns(raw.message_timeout);
  if (!message_timeout) return flag_error("--message-timeout", message_timeout.message());
  if (*message_timeout <= 0) return flag_error("--message-timeout", "must be positive");
  config.wamp.message_timeout_ns = *message_timeout;

  auto setup_timeout = parse_duration_ns(raw.session_setup_timeout);
  if (!setup_timeout) return flag_error("--session-setup-timeout", setup_timeout.message());
  if (*setup_timeout <= 0) return flag_error("--session-setup-timeout", "must be positive");
  config.wamp.session_setup_timeout_ns = *setup_timeout;

  auto buffered = parse_size_bytes(raw.max_buffered_bytes);
  if (!buffered) return flag_error("--max-buffered-bytes", buffered.message());
  // One message of the largest size must fit, or it could never be read.
  const uint64_t largest = std::max(config.http.max_body_bytes, config.wamp.max_message_bytes);
  if (*buffered < largest) {
    return flag_error("--max-buffered-bytes",
                      raw.max_buffered_bytes +
                          " is less than the largest message the router "
                          "accepts (" +
                          std::to_string(largest) +
                          " bytes, the larger of --max-body-bytes and --max-message-bytes)");
  }
  auto budget = std::make_shared<memory::BufferBudget>(*buffered);
  config.http.buffer_budget = budget;
  config.wamp.buffer_budget = budget;

  if (raw.h2_max_concurrent_streams < 1 || raw.h2_max_concurrent_streams > 1'000'000) {
    return flag_error("--h2-max-concurrent-streams", "must be from 1 to 1000000");
  }
  config.http.http2.max_concurrent_streams = static_cast<uint32_t>(raw.h2_max_concurrent_streams);
  auto window = parse_size_bytes(raw.h2_window);
  if (!window) return flag_error("--h2-window", window.message());
  if (*window < 65535 || *window > 0x7fffffffu) {
    return flag_error("--h2-window", "must be from 65535 bytes to 2147483647 (2^31-1)");
  }
  config.http.http2.initial_window_bytes = static_cast<uint32_t>(*window);
  auto header_list = parse_size_bytes(raw.h2_max_header_list_bytes);
  if (!header_list) return flag_error("--h2-max-header-list-bytes", header_list.message());
  if (*header_list < 1024 || *header_list > (uint64_t{16} << 20)) {
    return flag_error("--h2-max-header-list-bytes", "must be from 1 KiB to 16 MiB");
  }
  config.http.http2.max_header_list_bytes = static_cast<uint32_t>(*header_list);
  if (raw.h2_max_continuations < 0 || raw.h2_max_continuations > 1000) {
    return flag_error("--h2-max-continuations", "must be from 0 to 1000");
  }
  config.http.http2.max_continuations = static_cast<uint32_t>(raw.h2_max_continuations);
  if (raw.h2_reset_burst < 1 || raw.h2_reset_burst > 1'000'000) {
    return flag_error("--h2-reset-burst", "must be from 1 to 1000000");
  }
  config.http.http2.reset_burst = static_cast<uint32_t>(raw.h2_reset_burst);
  if (raw.h2_reset_rate < 0 || raw.h2_reset_rate > 1'000'000) {
    return flag_error("--h2-reset-rate", "must be from 0 to 1000000 per second");
  }
  config.http.http2.reset_rate_per_s = static_cast<uint32_t>(raw.h2_reset_rate);

  if (raw.inject_work_ns < 0 || raw.inject_work_ns > 1'000'000'000) {
    return flag_error("--inject-work-ns", "must be from 0 to 1000000000 (1 s)");
  }
  config.http.inject_work_ns = raw.inject_work_ns;
  config.wamp.inject_work_ns = raw.inject_work_ns;

  if (!raw.auth_config.empty()) {
    auto auth = wamp::auth::load_auth_config(raw.auth_config);
    if (!auth) return flag_error("--auth-config", auth.message());
    config.wamp.auth = *auth;
  }
  auto fragment = parse_size_bytes(raw.ws_fragment_bytes);
  if (!fragment) return flag_error("--ws-fragment-bytes", fragment.message());
  if (*fragment != 0 && (*fragment < router_limits::kMinWsFragmentBytes ||
                         *fragment > config.wamp.max_message_bytes)) {
    return flag_error(
        "--ws-fragment-bytes",
        "must be 0 (off) or from " + std::to_string(router_limits::kMinWsFragmentBytes) +
            " bytes to --max-message-bytes (" + std::to_string(config.wamp.max_message_bytes) +
            "), got " + raw.ws_fragment_bytes);
  }
  config.wamp.ws_fragment_bytes = *fragment;
  if (raw.tls_cert.empty() != raw.tls_key.empty()) {
    return raw.tls_cert.empty() ? flag_error("--tls-key", "needs --tls-cert")
                                : flag_error("--tls-cert", "needs --tls-key");
  }
  const bool tls_flags = raw.tls_min_version != "1.2" || !raw.tls_ciphers.empty() ||
                         !raw.tls_ciphersuites.empty() || raw.tls_handshake_timeout != "10s" ||
                         raw.tls_session_tickets != 1;
  if (raw.tls_cert.empty() && tls_flags) {
    return flag_error("--tls-cert", "the --tls-* settings need --tls-cert and --tls-key");
  }
  if (!raw.tls_cert.empty()) {
    tls::TlsOptions tls;
    tls.cert_file = raw.tls_cert;
    tls.key_file = raw.tls_key;
    tls.min_version = tls::parse_tls_version(raw.tls_min_version);
    if (tls.min_version == 0) {
      return flag_error("--tls-min-version", "'" + raw.tls_min_version +
                                                 "' is not a TLS version (" +
                                                 either_of(kTlsMinVersions) + ")");
    }
    tls.ciphers = raw.tls_ciphers;
    tls.ciphersuites = raw.tls_ciphersuites;
    auto timeout = parse_duration_ns(raw.tls_handshake_timeout);
    if (!timeout) return flag_error("--tls-handshake-timeout", timeout.message());
    if (*timeout <= 0) return flag_error("--tls-handshake-timeout", "must be positive");
    tls.handshake_timeout_ns = *timeout;
    if (raw.tls_session_tickets < 0 || raw.tls_session_tickets > 8) {
      return flag_error("--tls-session-tickets",
                        std::to_string(raw.tls_session_tickets) + " is not between 0 and 8");
    }
    tls.session_tickets = raw.tls_session_tickets;
    // h2 and HTTP/1.1 by ALPN on the HTTP port, h2 first: a client offering both gets HTTP/2
    // (router/http/session.cc hands a handshake that chose h2 to the HTTP/2 server).
    auto http_context = tls::make_server_context(tls, {"h2", "http/1.1"});
    if (!http_context) return http_context.error();
    auto websocket_context = tls::make_server_context(tls, {"http/1.1"});
    if (!websocket_context) return websocket_context.error();
    auto rawsocket_context = tls::make_server_context(tls, {});
    if (!rawsocket_context) return rawsocket_context.error();
    config.tls = true;
    config.http.tls_context = *http_context;
    config.http.tls_handshake_timeout_ns = tls.handshake_timeout_ns;
    config.wamp.websocket_tls = *websocket_context;
    config.wamp.rawsocket_tls = *rawsocket_context;
    config.wamp.tls_handshake_timeout_ns = tls.handshake_timeout_ns;
  }

  return config;
}

std::vector<std::string> startup_warnings(const RouterConfig& config) {
  std::vector<std::string> warnings;
  if (!config.control_is_unix() && !security::is_loopback_host(config.control_host)) {
    warnings.push_back("warning: --control " + config.control +
                       " is reachable from other machines, and RouterControl (Shutdown, Reset) "
                       "has no authentication (README \"Security\")");
  }
  return warnings;
}

}  // namespace benchgate::router::app
