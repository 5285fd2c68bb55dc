// The router binary: parses flags, then hands over to run_router().
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "common/command_line/help_formatter.h"
#include "common/command_line/version.h"
#include "common/router/router_limits.h"
#include "router/app/config.h"
#include "router/app/router_app.h"

int main(int argc, char** argv) {
  // A client that resets a TLS connection must cost that connection only: OpenSSL writes on the
  // socket's descriptor with write(2), which raises SIGPIPE after the reset, and a router started
  // from a shell has SIGPIPE's default disposition (death), as nginx's would but for its own
  // SIG_IGN. Plain sockets send with MSG_NOSIGNAL.
  std::signal(SIGPIPE, SIG_IGN);
  using benchgate::router::app::kHttpIoValues;
  using benchgate::router::app::kTlsMinVersions;
  using benchgate::router::app::RawConfig;
  RawConfig raw;
  CLI::App cli{
      "benchgate router: the bundled system under test (WAMP router, HTTP/1.1 and h2c "
      "bench routes, RouterControl gRPC)"};
  // What the values the router takes as text are, for --help (help_formatter.h).
  benchgate::command_line::use_readable_help(
      cli, {{"--http", "HOST:PORT"},
            {"--control", "HOST:PORT|unix:PATH"},
            {"--metrics-listen", "HOST:PORT"},
            {"--websocket", "HOST:PORT"},
            {"--rawsocket", "HOST:PORT"},
            {"--max-header-bytes", "SIZE"},
            {"--max-body-bytes", "SIZE"},
            {"--max-buffered-bytes", "SIZE"},
            {"--max-message-bytes", "SIZE"},
            {"--max-queued-bytes", "SIZE"},
            {"--h2-window", "SIZE"},
            {"--h2-max-header-list-bytes", "SIZE"},
            {"--ws-fragment-bytes", "SIZE"},
            {"--idle-timeout", "DURATION"},
            {"--header-timeout", "DURATION"},
            {"--body-timeout", "DURATION"},
            {"--read-buffer-hold", "DURATION"},
            {"--message-timeout", "DURATION"},
            {"--session-setup-timeout", "DURATION"},
            {"--tls-handshake-timeout", "DURATION"},
            {"--http-io", benchgate::command_line::value_set(kHttpIoValues)},
            {"--auth-config", "FILE"},
            {"--tls-cert", "FILE"},
            {"--tls-key", "FILE"},
            {"--tls-min-version", benchgate::command_line::value_set(kTlsMinVersions)},
            {"--tls-ciphers", "LIST"},
            {"--tls-ciphersuites", "LIST"}});
  benchgate::command_line::add_version_flag(cli);
  cli.add_option(
         "--http", raw.http,
         "HTTP listen address HOST:PORT (port 0: pick one; an IPv6 host in brackets, [::1]:0)")
      ->capture_default_str();
  cli.add_option("--control", raw.control,
                 "RouterControl gRPC address HOST:PORT (port 0: pick one) or unix:PATH (a Unix "
                 "socket made owner-only; an empty PATH is refused)")
      ->capture_default_str();
  cli.add_option("--threads", raw.threads,
                 "serving threads (one event loop each), " +
                     std::to_string(benchgate::router_limits::kMinThreads) + " to " +
                     std::to_string(benchgate::router_limits::kMaxThreads))
      ->capture_default_str();
  cli.add_option("--max-header-bytes", raw.max_header_bytes,
                 "request line + header limit, larger -> 431 (e.g. 8192, 16KiB)")
      ->capture_default_str();
  cli.add_option("--max-body-bytes", raw.max_body_bytes,
                 "request body and /bench/bytes/{n} limit (larger body -> 413)")
      ->capture_default_str();
  cli.add_option("--idle-timeout", raw.idle_timeout,
                 "close a connection idle this long (e.g. 60s, 500ms)")
      ->capture_default_str();
  cli.add_option("--header-timeout", raw.header_timeout,
                 "a request header must be complete this long after its first byte")
      ->capture_default_str();
  cli.add_option("--body-timeout", raw.body_timeout,
                 "a request body must be complete this long after its header (else close)")
      ->capture_default_str();
  cli.add_option(
         "--read-buffer-hold", raw.read_buffer_hold,
         "--http-io asio only (refused with epoll): a connection keeps its read buffer this "
         "long after a read and reads ahead (no epoll_ctl per request); 0s: gives it "
         "back after every request")
      ->capture_default_str();
  cli.add_option("--http-io", raw.http_io,
                 "cleartext HTTP/1.1: epoll (the serving thread's own edge-triggered epoll set: "
                 "no epoll_ctl and no empty read per request, nothing pending for an idle "
                 "connection; --read-buffer-hold is refused) or asio (a wait through Asio "
                 "per request)")
      ->envname("BENCHGATE_ROUTER_HTTP_IO")
      ->capture_default_str();
  cli.add_option("--max-buffered-bytes", raw.max_buffered_bytes,
                 "all connections together: bytes of HTTP bodies and WAMP messages being read "
                 "or queued (those over 64 KiB); past it 503 / ABORT + close / drop")
      ->capture_default_str();
  cli.add_option("--metrics-listen", raw.metrics_listen,
                 "serve Prometheus metrics at http://HOST:PORT/metrics (port 0: pick one)");
  cli.add_option("--websocket", raw.websocket,
                 "WAMP over WebSocket listen address HOST:PORT (port 0: pick one)")
      ->capture_default_str();
  cli.add_option("--rawsocket", raw.rawsocket,
                 "WAMP over RawSocket listen address HOST:PORT (port 0: pick one)")
      ->capture_default_str();
  cli.add_option("--max-message-bytes", raw.max_message_bytes,
                 "largest serialized WAMP message in or out (RawSocket: at most 16 MiB - 1)")
      ->capture_default_str();
  cli.add_option("--max-sessions", raw.max_sessions,
                 "open WAMP connections over both transports; more are refused")
      ->capture_default_str();
  cli.add_option("--max-queued-bytes", raw.max_queued_bytes,
                 "outbound bytes queued per WAMP connection (what the queued messages' buffers "
                 "hold, at least 1 KiB for a routed message); past it the session is dropped")
      ->capture_default_str();
  cli.add_option("--max-pending-calls-per-session", raw.max_pending_calls_per_session,
                 "WAMP calls one caller session may have pending (routed, not answered yet; "
                 "bench.transfers under way); past it a CALL gets ERROR "
                 "benchgate.error.too_many_pending_calls (1 to 1000000)")
      ->capture_default_str();
  cli.add_option("--max-pending-calls", raw.max_pending_calls,
                 "WAMP calls pending in the whole router, all callers together (one thread "
                 "serves every WAMP session), counted as per session; past it a CALL gets ERROR "
                 "benchgate.error.router_too_many_pending_calls. At the default, routed calls' "
                 "nodes take up to about 128 MiB (128 bytes each; 192 MiB if each has a timeout), "
                 "besides the calls' hash table (about 11 MiB once 2^20 were pending), the "
                 "CANCEL index (8 bytes times the power of two at or above the most calls ever "
                 "pending at once: 8 MiB at 2^20, never shrunk) and bench.transfers (about 56 "
                 "bytes each in their caller's list) (1 to 100000000)")
      ->capture_default_str();
  cli.add_option("--max-registrations-per-session", raw.max_registrations_per_session,
                 "WAMP procedures one session may have registered; past it REGISTER gets ERROR "
                 "benchgate.error.too_many_registrations (1 to 1000000)")
      ->capture_default_str();
  cli.add_option("--max-subscriptions-per-session", raw.max_subscriptions_per_session,
                 "WAMP topics one session may be subscribed to; past it SUBSCRIBE gets ERROR "
                 "benchgate.error.too_many_subscriptions (1 to 1000000)")
      ->capture_default_str();
  cli.add_option("--message-timeout", raw.message_timeout,
                 "a WAMP message (RawSocket frame, WebSocket message) must be complete this "
                 "long after its first bytes were read (else ABORT and close)")
      ->capture_default_str();
  cli.add_option("--session-setup-timeout", raw.session_setup_timeout,
                 "a WAMP connection's session must be established (WELCOME sent) this long "
                 "after its RawSocket or WebSocket handshake began (after TLS), HELLO and "
                 "authentication included, and again after a GOODBYE; else it is closed")
      ->capture_default_str();
  cli.add_option("--h2-max-concurrent-streams", raw.h2_max_concurrent_streams,
                 "HTTP/2: SETTINGS_MAX_CONCURRENT_STREAMS; streams over it are refused "
                 "(RST_STREAM REFUSED_STREAM)")
      ->capture_default_str();
  cli.add_option("--h2-window", raw.h2_window,
                 "HTTP/2: each stream's receive window (SETTINGS_INITIAL_WINDOW_SIZE); the "
                 "connection's is this times the stream limit, at most 2^31-1")
      ->capture_default_str();
  cli.add_option("--h2-max-header-list-bytes", raw.h2_max_header_list_bytes,
                 "HTTP/2: SETTINGS_MAX_HEADER_LIST_SIZE; a larger header block or decoded list "
                 "(HPACK bomb) -> GOAWAY ENHANCE_YOUR_CALM")
      ->capture_default_str();
  cli.add_option("--h2-max-continuations", raw.h2_max_continuations,
                 "HTTP/2: CONTINUATION frames per header block; more -> GOAWAY "
                 "ENHANCE_YOUR_CALM (CONTINUATION flood)")
      ->capture_default_str();
  cli.add_option("--h2-reset-burst", raw.h2_reset_burst,
                 "HTTP/2 rapid reset (CVE-2023-44487): RST_STREAMs a client may send at once")
      ->capture_default_str();
  cli.add_option("--h2-reset-rate", raw.h2_reset_rate,
                 "HTTP/2 rapid reset: RST_STREAMs per second a client may send in the long run; "
                 "over the budget -> GOAWAY ENHANCE_YOUR_CALM")
      ->capture_default_str();
  cli.add_option("--ws-fragment-bytes", raw.ws_fragment_bytes,
                 "send every WebSocket message larger than this as frames of this size (a "
                 "first frame and continuation frames); 0: one frame per message")
      ->capture_default_str();
  cli.add_option("--inject-work-ns", raw.inject_work_ns,
                 "calibration aid: spin this many ns of CPU on every HTTP request and WAMP "
                 "call before answering it, to slow the router down by a known amount "
                 "(bench/gate_calibration.sh); shown as the inject_work_ns gauge")
      ->capture_default_str();
  cli.add_option("--auth-config", raw.auth_config,
                 "TOML file of realms, principals (ticket, wampcra, wamp-scram, cryptosign) and "
                 "roles with permissions on URI prefixes; without it every session joins "
                 "anonymously and may do everything (router/README.md)");
  cli.add_option("--tls-cert", raw.tls_cert,
                 "PEM certificate chain (leaf first): every listener speaks TLS only -- h2 and "
                 "HTTP/1.1 over TLS by ALPN on --http, wss on --websocket, RawSocket over TLS on "
                 "--rawsocket (needs --tls-key)");
  cli.add_option("--tls-key", raw.tls_key, "PEM private key of --tls-cert");
  cli.add_option("--tls-min-version", raw.tls_min_version,
                 "lowest TLS version accepted (the highest is 1.3)")
      ->capture_default_str();
  cli.add_option("--tls-ciphers", raw.tls_ciphers,
                 "TLS 1.2 cipher list, OpenSSL syntax (default: OpenSSL's)");
  cli.add_option("--tls-ciphersuites", raw.tls_ciphersuites,
                 "TLS 1.3 cipher suites, OpenSSL syntax (default: OpenSSL's three, "
                 "TLS_AES_128_GCM_SHA256 first)");
  cli.add_option("--tls-handshake-timeout", raw.tls_handshake_timeout,
                 "a TLS handshake must finish this long after the accept, else the connection "
                 "is closed and counted (tls_handshake_failures{reason=timeout})")
      ->capture_default_str();
  cli.add_option("--tls-session-tickets", raw.tls_session_tickets,
                 "TLS 1.3 session tickets sent after each full or resumed handshake, 0 to 8: "
                 "a client resumes with one and gets a new one each time (OpenSSL's default, "
                 "and nginx's, is 2; each costs the server work per connection); 0: no TLS 1.3 "
                 "resumption")
      ->capture_default_str();
  try {
    cli.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return cli.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return cli.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "router: " << e.what() << " (see --help)\n";
    return 2;
  }

  raw.read_buffer_hold_given = cli.count("--read-buffer-hold") > 0;
  auto config = benchgate::router::app::make_config(raw);
  if (!config) {
    // A --http-io value that came from the environment names the variable it came from.
    bool flag_given = false;
    for (int i = 1; i < argc; ++i) {
      if (std::string_view(argv[i]).starts_with("--http-io")) flag_given = true;
    }
    const bool from_env = std::getenv("BENCHGATE_ROUTER_HTTP_IO") != nullptr && !flag_given &&
                          config.message().find("--http-io") != std::string::npos;
    std::cerr << "router: " << config.message()
              << (from_env ? " (from $BENCHGATE_ROUTER_HTTP_IO)" : "") << "\n";
    return 2;
  }
  for (const std::string& warning : benchgate::router::app::startup_warnings(*config)) {
    std::cerr << "router: " << warning << "\n";
  }
  return benchgate::router::app::run_router(*config);
}
