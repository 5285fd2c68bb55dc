// The addresses of orchestrator/metrics/exposition.h, read by the one HOST:PORT parser
// (common/net/host_port.h). By hand before: --pushgateway took any digits as a port (0, 99999:
// only the push after the run failed, as a warning) and a host such as "::1" or "a b";
// --metrics-listen "::1:0" reached civetweb, which said only that it could not bind.
#include "orchestrator/metrics/exposition.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "orchestrator/metrics/civetweb_listen.h"

namespace benchgate::metrics {
namespace {

TEST(Exposition, APushgatewayUrlIsHttpHostPortWithAPortOf1To65535) {
  for (const char* good : {"http://127.0.0.1:9091", "http://pushgateway.monitoring:9091/",
                           "https://[::1]:9091", "http://gw_1:65535"}) {
    EXPECT_TRUE(validate_gateway_url(good)) << good;
  }
  EXPECT_EQ(validate_gateway_url("http://127.0.0.1:0").message(),
            "--pushgateway 'http://127.0.0.1:0': expected http://HOST:PORT: its port '0' is not a "
            "number from 1 to 65535");
  EXPECT_EQ(validate_gateway_url("http://h:99999").message(),
            "--pushgateway 'http://h:99999': expected http://HOST:PORT: its port '99999' is not a "
            "number from 1 to 65535");
  EXPECT_EQ(validate_gateway_url("http://::1:9091").message(),
            "--pushgateway 'http://::1:9091': expected http://HOST:PORT: an IPv6 host is written "
            "in brackets, as in \"[::1]:7700\"");
  EXPECT_EQ(validate_gateway_url("http://a b:9091").message(),
            "--pushgateway 'http://a b:9091': expected http://HOST:PORT: its host has a character "
            "no host name has (' ')");
  EXPECT_EQ(validate_gateway_url("http://:9091").message(),
            "--pushgateway 'http://:9091': expected http://HOST:PORT: its HOST is empty");
  EXPECT_EQ(validate_gateway_url("ftp://h:1").message(),
            "--pushgateway 'ftp://h:1': expected http://HOST:PORT");
}

TEST(Exposition, AMetricsListenAddressThatIsNotHostPortIsNamedWithItsReason) {
  auto registry = std::make_shared<prometheus::Registry>();
  EXPECT_EQ(MetricsEndpoint::start("::1:0", registry).message(),
            "--metrics-listen ::1:0: cannot listen: an IPv6 host is written in brackets, as in "
            "\"[::1]:7700\"");
  EXPECT_EQ(MetricsEndpoint::start(":0", registry).message(),
            "--metrics-listen :0: cannot listen: its HOST is empty" +
                std::string(" (give 127.0.0.1:PORT for this machine only, 0.0.0.0:PORT") +
                (benchgate::metrics::http_listener_takes_ipv6() ? " or [::]:PORT" : "") +
                " for every interface)");
  EXPECT_EQ(MetricsEndpoint::start("unix:/nonexistent/metrics.sock", registry).message(),
            "--metrics-listen unix:/nonexistent/metrics.sock: cannot listen: a Unix socket is not "
            "taken here, only HOST:PORT");
}

TEST(Exposition, TheMetricsAddressNamesTheBoundPort) {
  auto endpoint = MetricsEndpoint::start("127.0.0.1:0", std::make_shared<prometheus::Registry>());
  ASSERT_TRUE(endpoint) << endpoint.message();
  EXPECT_NE((*endpoint)->port(), 0);
  EXPECT_EQ((*endpoint)->address(), "127.0.0.1:" + std::to_string((*endpoint)->port()));
  EXPECT_EQ((*endpoint)->url(), "http://" + (*endpoint)->address() + "/metrics");
}

// A connection to the endpoint that sent `request` (its first bytes only, for an idle one).
int connect_and_send(uint16_t port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
          static_cast<ssize_t>(request.size())) {
    if (fd >= 0) ::close(fd);
    return -1;
  }
  return fd;
}

// What `fd` receives until the server closes it or `deadline` passes.
std::string answer_until(int fd, std::chrono::steady_clock::time_point deadline) {
  std::string answer;
  char buffer[4096];
  for (auto now = std::chrono::steady_clock::now(); now < deadline;
       now = std::chrono::steady_clock::now()) {
    pollfd wait{fd, POLLIN, 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    if (::poll(&wait, 1, static_cast<int>(left.count()) + 1) <= 0) continue;
    const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
    if (got <= 0) break;
    answer.append(buffer, static_cast<size_t>(got));
  }
  return answer;
}

// Connections that send half a request and nothing more (a port scan, a browser's speculative
// connection, any local user) held civetweb's 2 threads for its 30 s request timeout each: two
// of them and a scrape waited 30 s (a Prometheus scraping every second lost 58 of 90 scrapes).
// Eight of them now leave a scrape answered at once; the 10 s allowed here is a third of what
// the old code kept it waiting, so the old code fails this test.
TEST(Exposition, IdleConnectionsDoNotKeepAScrapeWaiting) {
  auto registry = std::make_shared<prometheus::Registry>();
  prometheus::BuildGauge().Name("benchgate_test_gauge").Help("a gauge").Register(*registry).Add({});
  auto endpoint = MetricsEndpoint::start("127.0.0.1:0", registry);
  ASSERT_TRUE(endpoint) << endpoint.message();
  constexpr int kIdle = 8;  // the old code's threads were 2
  static_assert(kIdle < kHttpThreads);
  std::vector<int> idle;
  for (int i = 0; i < kIdle; ++i) {
    const int fd = connect_and_send((*endpoint)->port(), "GET / HTTP/1.1\r\n");
    ASSERT_GE(fd, 0) << std::strerror(errno);
    idle.push_back(fd);
  }
  const int scrape = connect_and_send(
      (*endpoint)->port(), "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  ASSERT_GE(scrape, 0) << std::strerror(errno);
  const std::string answer =
      answer_until(scrape, std::chrono::steady_clock::now() + std::chrono::seconds(10));
  ::close(scrape);
  for (const int fd : idle) ::close(fd);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 200")) << answer;
  EXPECT_NE(answer.find("benchgate_test_gauge 0"), std::string::npos) << answer;
}

// Debian's CivetWeb has no IPv6: "[::1]:0" passed the checks and civetweb said only "the address
// could not be bound". It is refused naming why, or listened on where civetweb has IPv6.
TEST(Exposition, AnIpv6MetricsAddressIsRefusedWhereCivetWebHasNoIpv6) {
  auto endpoint = MetricsEndpoint::start("[::1]:0", std::make_shared<prometheus::Registry>());
  if (http_listener_takes_ipv6()) {
    ASSERT_TRUE(endpoint) << endpoint.message();
    EXPECT_EQ((*endpoint)->address(), "[::1]:" + std::to_string((*endpoint)->port()));
  } else {
    EXPECT_EQ(endpoint.message(),
              "--metrics-listen [::1]:0: cannot listen: an IPv6 host is not taken here: the "
              "CivetWeb library it is served with was built without IPv6; use an IPv4 address "
              "such as 127.0.0.1");
  }
}

}  // namespace
}  // namespace benchgate::metrics
