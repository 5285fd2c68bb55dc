// Validation of the router's flags into typed settings.
#include "router/app/config.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/router/router_limits.h"
#include "common/wamp/message_limits.h"
#include "router/app/host_port.h"

namespace benchgate::router::app {
namespace {

TEST(RouterConfig, DefaultsAreLoopbackPortZeroAndDocumentedLimits) {
  auto config = make_config(RawConfig{});
  ASSERT_TRUE(config) << config.message();
  EXPECT_EQ(config->http.endpoint.address().to_string(), "127.0.0.1");
  EXPECT_EQ(config->http.endpoint.port(), 0);
  EXPECT_EQ(config->control, "127.0.0.1:0");
  EXPECT_EQ(config->http.threads, 1);
  EXPECT_EQ(config->http.max_header_bytes, 8192u);
  EXPECT_EQ(config->http.max_body_bytes, 64ull << 20);
  EXPECT_EQ(config->http.idle_timeout_ns, 60'000'000'000);
  EXPECT_EQ(config->http.read_buffer_hold_ns, 5'000'000);
  // The flag's default text and ServerOptions' default are written twice; they must agree.
  EXPECT_EQ(http::ServerOptions{}.read_buffer_hold_ns, config->http.read_buffer_hold_ns);
}

// RouterControl has no authentication: a --control beyond loopback started silently.
TEST(RouterConfig, AControlAddressBeyondLoopbackIsWarnedOfNamingIt) {
  RawConfig raw;
  raw.control = "0.0.0.0:0";
  auto config = make_config(raw);
  ASSERT_TRUE(config) << config.message();
  EXPECT_EQ(startup_warnings(*config),
            (std::vector<std::string>{
                "warning: --control 0.0.0.0:0 is reachable from other machines, and "
                "RouterControl (Shutdown, Reset) has no authentication (README \"Security\")"}));
  raw.control = "[::]:7000";
  config = make_config(raw);
  ASSERT_TRUE(config) << config.message();
  ASSERT_EQ(startup_warnings(*config).size(), 1u);
  EXPECT_NE(startup_warnings(*config)[0].find("--control [::]:7000 is reachable"),
            std::string::npos)
      << startup_warnings(*config)[0];
  // Loopback and a Unix socket (made owner-only) are not; nor are the data plane's listeners
  // and /metrics, which are there to be reached.
  for (const char* quiet : {"127.0.0.1:0", "[::1]:0", "localhost:0", "unix:router.sock"}) {
    RawConfig loopback;
    loopback.control = quiet;
    loopback.http = "0.0.0.0:0";
    loopback.metrics_listen = "0.0.0.0:0";
    config = make_config(loopback);
    ASSERT_TRUE(config) << quiet << ": " << config.message();
    EXPECT_TRUE(startup_warnings(*config).empty()) << quiet;
  }
}

TEST(RouterConfig, ReadBufferHoldMayBeZeroAndIsBoundedNamingTheFlag) {
  RawConfig raw;
  raw.read_buffer_hold = "0s";
  auto config = make_config(raw);
  ASSERT_TRUE(config) << config.message();
  EXPECT_EQ(config->http.read_buffer_hold_ns, 0);
  raw.read_buffer_hold = "250us";
  config = make_config(raw);
  ASSERT_TRUE(config) << config.message();
  EXPECT_EQ(config->http.read_buffer_hold_ns, 250'000);
  for (const char* bad : {"-1ms", "5", "61s"}) {
    raw.read_buffer_hold = bad;
    config = make_config(raw);
    ASSERT_FALSE(config) << bad;
    EXPECT_NE(config.message().find("--read-buffer-hold"), std::string::npos) << config.message();
  }
}

// --read-buffer-hold governs only --http-io asio's read buffer; given with epoll it would have
// no effect, so it is refused, naming both flags, rather than accepted and ignored.
TEST(RouterConfig, ReadBufferHoldGivenWithEpollIsRefusedAndWithAsioAccepted) {
  RawConfig raw;
  raw.read_buffer_hold = "20ms";
  raw.read_buffer_hold_given = true;
  auto config = make_config(raw);
  ASSERT_FALSE(config);
  EXPECT_NE(config.message().find("--read-buffer-hold: applies to --http-io asio only"),
            std::string::npos)
      << config.message();
  raw.http_io = "asio";
  config = make_config(raw);
  ASSERT_TRUE(config) << config.message();
  EXPECT_EQ(config->http.read_buffer_hold_ns, 20'000'000);
}

TEST(RouterConfig, HttpIoIsEpollByDefaultOrAsioAndABadValueNamesTheFlag) {
  RawConfig raw;
  auto config = make_config(raw);
  ASSERT_TRUE(config) << config.message();
  EXPECT_EQ(config->http.http_io, http::ServerOptions::Io::kEpoll);
  EXPECT_EQ(http::ServerOptions{}.http_io, config->http.http_io);
  raw.http_io = "asio";
  config = make_config(raw);
  ASSERT_TRUE(config) << config.message();
  EXPECT_EQ(config->http.http_io, http::ServerOptions::Io::kAsio);
  for (const char* bad : {"", "EPOLL", "io_uring"}) {
    raw.http_io = bad;
    config = make_config(raw);
    ASSERT_FALSE(config) << bad;
    EXPECT_NE(config.message().find("--http-io"), std::string::npos) << config.message();
    EXPECT_NE(config.message().find("\"" + std::string(bad) + "\""), std::string::npos)
        << config.message();
  }
}

TEST(RouterConfig, DefaultMessageLimitIsTheOneTheScenarioLoaderChecksAgainst) {
  // The flag's default text and the shared constant are written twice; they must agree.
  auto config = make_config(RawConfig{});
  ASSERT_TRUE(config) << config.message();
  EXPECT_EQ(config->wamp.max_message_bytes, wamp_limits::kRouterDefaultMaxMessageBytes);
  EXPECT_EQ(wamp::WampOptions{}.max_message_bytes, wamp_limits::kRouterDefaultMaxMessageBytes);
}

TEST(RouterConfig, DurationsAndSizesTakeUnits) {
  RawConfig raw;
  raw.idle_timeout = "500ms";
  raw.max_body_bytes = "1KiB";
  auto config = make_config(raw);
  ASSERT_TRUE(config) << config.message();
  EXPECT_EQ(config->http.idle_timeout_ns, 500'000'000);
  EXPECT_EQ(config->http.max_body_bytes, 1024u);
}

TEST(RouterConfig, ErrorsNameTheFlag) {
  RawConfig raw;
  raw.threads = 0;
  auto config = make_config(raw);
  ASSERT_FALSE(config);
  EXPECT_NE(config.message().find("--threads"), std::string::npos);
  raw = RawConfig{};
  raw.http = "example.com:80";
  config = make_config(raw);
  ASSERT_FALSE(config);
  EXPECT_NE(config.message().find("--http"), std::string::npos);
}

// An auth config that cannot be read says why, as the operating system does (--tls-cert too).
TEST(RouterConfig, AnAuthConfigThatCannotBeReadNamesTheReason) {
  RawConfig raw;
  raw.auth_config = "no-such-folder/no-such-auth.toml";
  auto config = make_config(raw);
  ASSERT_FALSE(config);
  EXPECT_NE(config.message().find("--auth-config"), std::string::npos) << config.message();
  EXPECT_NE(config.message().find(
                "no-such-folder/no-such-auth.toml: cannot read the auth config (no such file or "
                "directory)"),
            std::string::npos)
      << config.message();
}

// The limit the scenario loader holds [router] threads to (common/router/router_limits.h).
TEST(RouterConfig, ThreadsAreTakenUpToTheSharedLimit) {
  RawConfig raw;
  raw.threads = static_cast<int>(router_limits::kMaxThreads);
  auto config = make_config(raw);
  ASSERT_TRUE(config) << config.message();
  EXPECT_EQ(config->http.threads, static_cast<int>(router_limits::kMaxThreads));
  raw.threads = static_cast<int>(router_limits::kMaxThreads) + 1;
  config = make_config(raw);
  ASSERT_FALSE(config);
  EXPECT_EQ(config.message(), "--threads: must be from 1 to 1024");
}

TEST(RouterConfig, OneBufferBudgetIsSharedByHttpAndWamp) {
  auto config = make_config(RawConfig{});
  ASSERT_TRUE(config) << config.message();
  ASSERT_NE(config->http.buffer_budget, nullptr);
  EXPECT_EQ(config->http.buffer_budget, config->wamp.buffer_budget);
  EXPECT_EQ(config->http.buffer_budget->limit(), 512ull << 20);
  EXPECT_EQ(config->http.body_timeout_ns, 60'000'000'000);
}

TEST(RouterConfig, BufferBudgetBelowTheLargestMessageIsRefusedNamingTheFlag) {
  RawConfig raw;
  raw.max_buffered_bytes = "16MiB";  // --max-message-bytes is 65 MiB by default
  auto config = make_config(raw);
  ASSERT_FALSE(config);
  EXPECT_EQ(config.message(),
            "--max-buffered-bytes: 16MiB is less than the largest message the router accepts "
            "(68157440 bytes, the larger of --max-body-bytes and --max-message-bytes)");
  raw.max_body_bytes = "1MiB";
  raw.max_message_bytes = "1MiB";
  EXPECT_TRUE(make_config(raw));
  raw.body_timeout = "0s";
  config = make_config(raw);
  ASSERT_FALSE(config);
  EXPECT_NE(config.message().find("--body-timeout"), std::string::npos);
}

TEST(RouterConfig, TheMessageTimeoutIs60sByDefaultAndMustBePositive) {
  auto config = make_config(RawConfig{});
  ASSERT_TRUE(config);
  EXPECT_EQ(config->wamp.message_timeout_ns, 60'000'000'000);
  RawConfig raw;
  raw.message_timeout = "1500ms";
  config = make_config(raw);
  ASSERT_TRUE(config);
  EXPECT_EQ(config->wamp.message_timeout_ns, 1'500'000'000);
  raw.message_timeout = "0s";
  config = make_config(raw);
  ASSERT_FALSE(config);
  EXPECT_EQ(config.message(), "--message-timeout: must be positive");
  raw.message_timeout = "soon";
  EXPECT_FALSE(make_config(raw));
}

TEST(RouterConfig, TheSessionSetupTimeoutIs10sByDefaultAndMustBePositive) {
  auto config = make_config(RawConfig{});
  ASSERT_TRUE(config);
  EXPECT_EQ(config->wamp.session_setup_timeout_ns, 10'000'000'000);
  RawConfig raw;
  raw.session_setup_timeout = "250ms";
  config = make_config(raw);
  ASSERT_TRUE(config);
  EXPECT_EQ(config->wamp.session_setup_timeout_ns, 250'000'000);
  raw.session_setup_timeout = "0s";
  config = make_config(raw);
  ASSERT_FALSE(config);
  EXPECT_EQ(config.message(), "--session-setup-timeout: must be positive");
  raw.session_setup_timeout = "soon";
  EXPECT_FALSE(make_config(raw));
}

TEST(RouterConfig, PerSessionWampLimitsHaveDefaultsAndMustBeFrom1To1000000) {
  auto config = make_config(RawConfig{});
  ASSERT_TRUE(config);
  EXPECT_EQ(config->wamp.max_pending_calls_per_session, 4096u);
  EXPECT_EQ(config->wamp.max_registrations_per_session, 1000u);
  EXPECT_EQ(config->wamp.max_subscriptions_per_session, 1000u);
  RawConfig raw;
  raw.max_pending_calls_per_session = 1;
  raw.max_registrations_per_session = 7;
  raw.max_subscriptions_per_session = 1'000'000;
  config = make_config(raw);
  ASSERT_TRUE(config);
  EXPECT_EQ(config->wamp.max_pending_calls_per_session, 1u);
  EXPECT_EQ(config->wamp.max_registrations_per_session, 7u);
  EXPECT_EQ(config->wamp.max_subscriptions_per_session, 1'000'000u);
  raw.max_pending_calls_per_session = 0;
  config = make_config(raw);
  ASSERT_FALSE(config);
  EXPECT_EQ(config.message(), "--max-pending-calls-per-session: must be from 1 to 1000000");
  raw.max_pending_calls_per_session = 1;
  raw.max_registrations_per_session = -1;
  config = make_config(raw);
  ASSERT_FALSE(config);
  EXPECT_EQ(config.message(), "--max-registrations-per-session: must be from 1 to 1000000");
  raw.max_registrations_per_session = 1;
  raw.max_subscriptions_per_session = 1'000'001;
  config = make_config(raw);
  ASSERT_FALSE(config);
  EXPECT_EQ(config.message(), "--max-subscriptions-per-session: must be from 1 to 1000000");
}

TEST(RouterConfig, TheRouterWidePendingCallLimitHasADefaultAndMustBeFrom1To100000000) {
  auto config = make_config(RawConfig{});
  ASSERT_TRUE(config);
  EXPECT_EQ(config->wamp.max_pending_calls, 1u << 20);
  RawConfig raw;
  raw.max_pending_calls = 100'000'000;
  config = make_config(raw);
  ASSERT_TRUE(config);
  EXPECT_EQ(config->wamp.max_pending_calls, 100'000'000u);
  for (const int64_t bad : {int64_t{0}, int64_t{-1}, int64_t{100'000'001}}) {
    raw.max_pending_calls = bad;
    config = make_config(raw);
    ASSERT_FALSE(config) << bad;
    EXPECT_EQ(config.message(), "--max-pending-calls: must be from 1 to 100000000");
  }
}

TEST(RouterConfig, InjectWorkIsOffByDefaultAndBounded) {
  auto config = make_config(RawConfig{});
  ASSERT_TRUE(config);
  EXPECT_EQ(config->http.inject_work_ns, 0);
  RawConfig raw;
  raw.inject_work_ns = 2500;
  config = make_config(raw);
  ASSERT_TRUE(config) << config.message();
  EXPECT_EQ(config->http.inject_work_ns, 2500);
  EXPECT_EQ(config->wamp.inject_work_ns, 2500);
  for (int64_t bad : {int64_t{-1}, int64_t{2'000'000'000}}) {
    raw.inject_work_ns = bad;
    config = make_config(raw);
    ASSERT_FALSE(config) << bad;
    EXPECT_NE(config.message().find("--inject-work-ns"), std::string::npos) << config.message();
  }
}

TEST(RouterConfig, WebSocketFragmentationIsOffByDefaultAndBoundedByTheMessageSize) {
  auto config = make_config(RawConfig{});
  ASSERT_TRUE(config);
  EXPECT_EQ(config->wamp.ws_fragment_bytes, 0u);
  RawConfig raw;
  raw.ws_fragment_bytes = "4KiB";
  config = make_config(raw);
  ASSERT_TRUE(config) << config.message();
  EXPECT_EQ(config->wamp.ws_fragment_bytes, 4096u);
  for (const char* bad : {"8", "66MiB", "four"}) {
    raw.ws_fragment_bytes = bad;
    config = make_config(raw);
    ASSERT_FALSE(config) << bad;
    EXPECT_NE(config.message().find("--ws-fragment-bytes"), std::string::npos) << config.message();
  }
}

TEST(RouterConfig, ControlMayBeAUnixSocket) {
  RawConfig raw;
  raw.control = "unix:/tmp/router.sock";
  auto config = make_config(raw);
  ASSERT_TRUE(config) << config.message();
  EXPECT_TRUE(config->control_is_unix());
  EXPECT_EQ(config->control, "unix:/tmp/router.sock");
}

// "unix:" alone listened on an abstract socket (ss -xl: "@..."), which has no file mode: any
// local user could connect to the control endpoint the owner-only socket keeps to its owner.
TEST(RouterConfig, AUnixControlAddressWithoutAPathIsRefused) {
  for (const char* empty : {"unix:", "unix://"}) {
    RawConfig raw;
    raw.control = empty;
    auto config = make_config(raw);
    ASSERT_FALSE(config) << empty;
    EXPECT_EQ(config.message(),
              std::string("--control: '") + empty + "' names no PATH after unix:");
  }
}

TEST(HostPort, ParsesAndFormatsIpv4AndIpv6) {
  auto v4 = parse_host_port("127.0.0.1:8080");
  ASSERT_TRUE(v4);
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, 8080);
  auto v6 = parse_host_port("[::1]:0");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(format_host_port(v6->host, 9), "[::1]:9");
  EXPECT_FALSE(parse_host_port("127.0.0.1"));
  EXPECT_FALSE(parse_host_port("127.0.0.1:65536"));
  EXPECT_FALSE(parse_host_port(":80"));
}

// The rule every benchgate address is split by (common/net/host_port.h). Before, "::1:0" was
// read as [::1]:0 and "a b:0" or "[x]:0" went on to fail as "not an IP address" (or, for
// --control and --metrics-listen, in gRPC's or the listener's words).
TEST(HostPort, AnIpv6HostIsBracketedAndAHostHasTheCharactersOfAnAddress) {
  EXPECT_EQ(parse_host_port("::1:0").message(),
            "'::1:0' is not HOST:PORT: an IPv6 host is written in brackets, as in "
            "\"[::1]:7700\"");
  EXPECT_EQ(parse_host_port("a b:0").message(),
            "'a b:0' is not HOST:PORT: its host has a character no host name has (' ')");
  EXPECT_EQ(parse_host_port("[x]:0").message(),
            "'[x]:0' is not HOST:PORT: 'x' in brackets is not an IPv6 address");
  EXPECT_EQ(parse_host_port("127.0.0.1:+80").message(),
            "'127.0.0.1:+80' is not HOST:PORT: port must be a number from 0 to 65535");
  EXPECT_EQ(parse_host_port("127.0.0.1").message(),
            "'127.0.0.1' is not HOST:PORT: missing ':PORT'");
  EXPECT_EQ(parse_host_port(":80").message(), "':80' is not HOST:PORT: empty host");
  RawConfig raw;
  raw.http = "::1:0";
  const auto config = make_config(raw);
  ASSERT_FALSE(config);
  EXPECT_EQ(config.message(),
            "--http: '::1:0' is not HOST:PORT: an IPv6 host is written in brackets, as in "
            "\"[::1]:7700\"");
  raw.http = "[::1]:0";
  EXPECT_TRUE(make_config(raw)) << make_config(raw).message();
}

}  // namespace
}  // namespace benchgate::router::app

namespace benchgate::router::app {
namespace {

TEST(RouterConfig, Http2LimitsHaveSaneDefaultsAndBadValuesNameTheirFlag) {
  auto config = make_config(RawConfig{});
  ASSERT_TRUE(config);
  const http2::Http2Options& h2 = config->http.http2;
  EXPECT_EQ(h2.max_concurrent_streams, 100u);
  EXPECT_EQ(h2.initial_window_bytes, 16u << 20);
  EXPECT_EQ(h2.max_header_list_bytes, 64u << 10);
  EXPECT_EQ(h2.max_continuations, 4u);
  EXPECT_EQ(h2.reset_burst, 200u);
  EXPECT_EQ(h2.reset_rate_per_s, 100u);

  RawConfig raw;
  raw.h2_window = "1GiB";
  raw.h2_max_header_list_bytes = "16KiB";
  config = make_config(raw);
  ASSERT_TRUE(config) << config.message();
  EXPECT_EQ(config->http.http2.initial_window_bytes, 1u << 30);
  EXPECT_EQ(config->http.http2.max_header_list_bytes, 16u << 10);

  const auto refused = [](RawConfig bad, const char* flag) {
    auto result = make_config(bad);
    ASSERT_FALSE(result) << flag;
    EXPECT_NE(result.message().find(flag), std::string::npos) << result.message();
  };
  RawConfig bad;
  bad.h2_max_concurrent_streams = 0;
  refused(bad, "--h2-max-concurrent-streams");
  bad = RawConfig{};
  bad.h2_window = "4GiB";  // over 2^31-1
  refused(bad, "--h2-window");
  bad = RawConfig{};
  bad.h2_window = "lots";
  refused(bad, "--h2-window");
  bad = RawConfig{};
  bad.h2_max_header_list_bytes = "100";
  refused(bad, "--h2-max-header-list-bytes");
  bad = RawConfig{};
  bad.h2_max_continuations = -1;
  refused(bad, "--h2-max-continuations");
  bad = RawConfig{};
  bad.h2_reset_burst = 0;
  refused(bad, "--h2-reset-burst");
  bad = RawConfig{};
  bad.h2_reset_rate = -5;
  refused(bad, "--h2-reset-rate");
}

}  // namespace
}  // namespace benchgate::router::app
