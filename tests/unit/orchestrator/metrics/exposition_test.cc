// The addresses of orchestrator/metrics/exposition.h, read by the one HOST:PORT parser
// (common/net/host_port.h). By hand before: --pushgateway took any digits as a port (0, 99999:
// only the push after the run failed, as a warning) and a host such as "::1" or "a b";
// --metrics-listen "::1:0" reached CivetWeb (which served /metrics then), which said only that
// it could not bind.
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
                " or [::]:PORT for every interface)");
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

// Whether `fd` is still open at the other end: nothing to read and no end of stream.
bool still_open(int fd) {
  char byte;
  return ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) < 0 && errno == EAGAIN;
}

// Connections that send half a request and nothing more (a port scan, a browser's speculative
// connection, any local user) held one of CivetWeb's threads each until its request timeout:
// with 32 threads, 32 of them kept every scrape waiting 5 s, and a client that held 200 kept
// it waiting until all but 31 had been dropped. Served by one thread that waits for every
// connection at once, 200 of them leave a scrape answered while each of them is still open
// (the old code answered it only after dropping them, some 30 s later).
TEST(Exposition, IdleConnectionsDoNotKeepAScrapeWaiting) {
  auto registry = std::make_shared<prometheus::Registry>();
  prometheus::BuildGauge().Name("benchgate_test_gauge").Help("a gauge").Register(*registry).Add({});
  auto endpoint = MetricsEndpoint::start("127.0.0.1:0", registry);
  ASSERT_TRUE(endpoint) << endpoint.message();
  constexpr int kIdle = 200;
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
      answer_until(scrape, std::chrono::steady_clock::now() + std::chrono::seconds(60));
  int open = 0;
  for (const int fd : idle) open += still_open(fd) ? 1 : 0;
  ::close(scrape);
  for (const int fd : idle) ::close(fd);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 200")) << answer;
  EXPECT_NE(answer.find("benchgate_test_gauge 0"), std::string::npos) << answer;
  EXPECT_EQ(open, kIdle) << "idle connections the server had dropped before it answered";
}

// Debian's CivetWeb had no IPv6: "[::1]:0" was refused ("the CivetWeb library it is served with
// was built without IPv6"). It is listened on and answered over IPv6 now, where this machine
// has an IPv6 loopback.
TEST(Exposition, AnIpv6MetricsAddressIsServed) {
  const int probe = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in6 loopback{};
  loopback.sin6_family = AF_INET6;
  loopback.sin6_addr = in6addr_loopback;
  const bool has_ipv6 =
      probe >= 0 && ::bind(probe, reinterpret_cast<sockaddr*>(&loopback), sizeof loopback) == 0;
  if (probe >= 0) ::close(probe);
  if (!has_ipv6) GTEST_SKIP() << "no IPv6 loopback on this machine";
  auto registry = std::make_shared<prometheus::Registry>();
  prometheus::BuildGauge().Name("benchgate_test_gauge").Help("a gauge").Register(*registry).Add({});
  auto endpoint = MetricsEndpoint::start("[::1]:0", registry);
  ASSERT_TRUE(endpoint) << endpoint.message();
  EXPECT_EQ((*endpoint)->address(), "[::1]:" + std::to_string((*endpoint)->port()));
  EXPECT_EQ((*endpoint)->url(), "http://[::1]:" + std::to_string((*endpoint)->port()) + "/metrics");
  const int fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  loopback.sin6_port = htons((*endpoint)->port());
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&loopback), sizeof loopback), 0)
      << std::strerror(errno);
  const std::string request = "GET /metrics HTTP/1.1\r\nHost: [::1]\r\nConnection: close\r\n\r\n";
  ASSERT_EQ(::send(fd, request.data(), request.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(request.size()));
  const std::string answer =
      answer_until(fd, std::chrono::steady_clock::now() + std::chrono::seconds(30));
  ::close(fd);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 200 OK\r\n")) << answer;
  EXPECT_NE(answer.find("benchgate_test_gauge 0"), std::string::npos) << answer;
}

}  // namespace
}  // namespace benchgate::metrics
