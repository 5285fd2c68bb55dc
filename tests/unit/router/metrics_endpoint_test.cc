// The router's /metrics (router/prometheus/metrics_endpoint.h) on 127.0.0.1: what it serves,
// and that connections held open leave a scrape answered.
#include "router/prometheus/metrics_endpoint.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

namespace benchgate::router::prometheus_export {
namespace {

metrics::Snapshot a_snapshot() {
  metrics::Snapshot snapshot;
  snapshot.counters.connections_accepted = 7;
  return snapshot;
}

// A connection to 127.0.0.1:`port` that sent `request` (its first bytes only, for an idle one).
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

// What `fd` receives until the server closes it or `seconds` pass (a bound on a hang, no
// timing asserted).
std::string answer_within(int fd, int seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  std::string answer;
  char buffer[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd wait{fd, POLLIN, 0};
    if (::poll(&wait, 1, 100) <= 0) continue;
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

const std::string kScrape = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";

TEST(RouterMetricsEndpoint, ServesTheSnapshotsFamiliesAndNoneOfItsOwn) {
  auto endpoint = MetricsEndpoint::start("127.0.0.1:0", a_snapshot);
  ASSERT_TRUE(endpoint) << endpoint.message();
  const int fd = connect_and_send((*endpoint)->port(), kScrape);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  const std::string answer = answer_within(fd, 30);
  ::close(fd);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 200 OK\r\n")) << answer;
  EXPECT_NE(answer.find("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"),
            std::string::npos);
  EXPECT_NE(answer.find("\nbenchgate_router_http_connections_accepted_total 7\n"),
            std::string::npos)
      << answer;
  // prometheus-cpp's Exposer added exposer_transferred_bytes_total, exposer_scrapes_total and
  // exposer_request_latencies; the router serves only its own families now.
  EXPECT_EQ(answer.find("exposer_"), std::string::npos) << answer;
}

TEST(RouterMetricsEndpoint, APortInUseIsOneLineNamingTheFlagAndTheReason) {
  auto first = MetricsEndpoint::start("127.0.0.1:0", a_snapshot);
  ASSERT_TRUE(first) << first.message();
  const std::string taken = "127.0.0.1:" + std::to_string((*first)->port());
  auto second = MetricsEndpoint::start(taken, a_snapshot);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.message(),
            "--metrics-listen " + taken + ": cannot listen: address already in use");
}

// prometheus-cpp's Exposer served the router's /metrics with CivetWeb's default 2 threads,
// each held by a connection until it sent a whole request or CivetWeb's 30 s timeout passed:
// 2 connections that sent half a request (a port scan, any local user) kept every scrape
// waiting. On benchgate's HTTP listener (one thread waiting for every connection at once), 200
// of them leave a scrape answered while each of them is still open.
TEST(RouterMetricsEndpoint, IdleConnectionsDoNotKeepAScrapeWaiting) {
  auto endpoint = MetricsEndpoint::start("127.0.0.1:0", a_snapshot);
  ASSERT_TRUE(endpoint) << endpoint.message();
  constexpr int kIdle = 200;
  std::vector<int> idle;
  for (int i = 0; i < kIdle; ++i) {
    const int fd = connect_and_send((*endpoint)->port(), "GET /metrics HTTP/1.1\r\n");
    ASSERT_GE(fd, 0) << std::strerror(errno);
    idle.push_back(fd);
  }
  const int scrape = connect_and_send((*endpoint)->port(), kScrape);
  ASSERT_GE(scrape, 0) << std::strerror(errno);
  // Under CivetWeb's 30 s timeout, which would have dropped idle connections to make way.
  const std::string answer = answer_within(scrape, 20);
  int open = 0;
  for (const int fd : idle) open += still_open(fd) ? 1 : 0;
  ::close(scrape);
  for (const int fd : idle) ::close(fd);
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 200 OK\r\n")) << answer;
  EXPECT_NE(answer.find("\nbenchgate_router_http_connections_accepted_total 7\n"),
            std::string::npos)
      << answer;
  EXPECT_EQ(open, kIdle) << "idle connections the server had dropped before it answered";
}

}  // namespace
}  // namespace benchgate::router::prometheus_export
