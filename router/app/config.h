// The router's command-line settings: the text as given (RawConfig, filled by CLI11 in
// main.cc) and the validated, typed form the rest of the router sees (RouterConfig).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/expected.h"
#include "router/http/server_options.h"
#include "router/wamp/options.h"

namespace benchgate::router::app {

// What --http-io and --tls-min-version take: make_config() checks against these, --help
// (main.cc) lists them.
inline constexpr std::array<std::string_view, 2> kHttpIoValues{"asio", "epoll"};
inline constexpr std::array<std::string_view, 2> kTlsMinVersions{"1.2", "1.3"};

struct RawConfig {
  std::string http = "127.0.0.1:0";
  std::string control = "127.0.0.1:0";
  int threads = 1;
  std::string max_header_bytes = "8192";
  std::string max_body_bytes = "64MiB";
  std::string idle_timeout = "60s";
  std::string header_timeout = "10s";
  std::string body_timeout = "60s";
  std::string read_buffer_hold = "5ms";  // 0s: every connection gives its buffer back at once
  // Set when the flag was given: it applies to --http-io asio only, and given with epoll it is
  // refused rather than silently ignored.
  bool read_buffer_hold_given = false;
  std::string http_io = "epoll";  // epoll | asio (http::ServerOptions::Io)
  // Shared by HTTP bodies, WebSocket messages and RawSocket frames being read.
  std::string max_buffered_bytes = "512MiB";
  std::string metrics_listen;  // empty: no /metrics endpoint
  // WAMP router (router/wamp/).
  std::string websocket = "127.0.0.1:0";
  std::string rawsocket = "127.0.0.1:0";
  // wamp_limits::kRouterDefaultMaxMessageBytes (common/wamp/message_limits.h), as --help
  // shows it; config_test checks that they agree.
  std::string max_message_bytes = "65MiB";
  int64_t max_sessions = 10000;
  std::string max_queued_bytes = "128MiB";
  // What one WAMP session may hold on the router (wamp::WampOptions).
  int64_t max_pending_calls_per_session = 4096;
  int64_t max_registrations_per_session = 1000;
  int64_t max_subscriptions_per_session = 1000;
  int64_t max_pending_calls = 1 << 20;  // all WAMP callers together
  std::string message_timeout = "60s";  // a WAMP message from its first byte to its last
  // A WAMP connection from the start of its opening handshake to WELCOME.
  std::string session_setup_timeout = "10s";
  // HTTP/2 on the HTTP port (router/http2/options.h).
  int64_t h2_max_concurrent_streams = 100;
  std::string h2_window = "16MiB";
  std::string h2_max_header_list_bytes = "64KiB";
  int64_t h2_max_continuations = 4;
  int64_t h2_reset_burst = 200;
  int64_t h2_reset_rate = 100;
  int64_t inject_work_ns = 0;           // calibration aid: busy work per request and per WAMP call
  std::string auth_config;              // --auth-config FILE (router/wamp/auth); empty: anonymous
  std::string ws_fragment_bytes = "0";  // 0: one frame per WebSocket message
  // TLS on every listener (router/tls/): both files, or neither.
  std::string tls_cert;
  std::string tls_key;
  std::string tls_min_version = "1.2";
  std::string tls_ciphers;       // TLS 1.2, OpenSSL syntax; empty: OpenSSL's default
  std::string tls_ciphersuites;  // TLS 1.3, OpenSSL syntax; empty: OpenSSL's default
  std::string tls_handshake_timeout = "10s";
  int tls_session_tickets = 1;
};

struct RouterConfig {
  http::ServerOptions http;
  std::string http_host;     // as given, for the READY line and Health
  std::string control;       // "HOST:PORT" or "unix:PATH", as gRPC takes it
  std::string control_host;  // as given; empty for a Unix socket
  wamp::WampOptions wamp;
  std::string websocket_host;  // as given, for the READY line and Health
  std::string rawsocket_host;
  std::string metrics;       // "HOST:PORT" for Prometheus' /metrics; empty: none
  std::string metrics_host;  // as given
  bool tls = false;          // every listener speaks TLS (--tls-cert)

  bool control_is_unix() const { return control_host.empty(); }
};

// Validates and converts, and loads the TLS certificate and key into the listeners' server
// contexts; the error is one line naming the flag (and the file, with what OpenSSL said).
Expected<RouterConfig> make_config(const RawConfig& raw);

// What main.cc prints on stderr before serving, each a line without the "router: " prefix: a
// --control reachable from other machines, as serve warns of its listeners, because
// RouterControl (Shutdown, Reset) has no authentication (README "Security" says keep it on
// loopback). The other listeners are not warned of: --http, --ws and --rawsocket are the data
// plane, there to be reached, and --metrics-listen serves read-only counters.
std::vector<std::string> startup_warnings(const RouterConfig& config);

}  // namespace benchgate::router::app
