// The scrape of a [router] metrics endpoint against a canned HTTP server on 127.0.0.1: the
// counters of a 200 answer, and every way it fails as an error naming the URL, never as a
// reading of 0.
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>

#include "orchestrator/sut/external_system.h"
#include "orchestrator/sut/metrics_scrape.h"
#include "tests/unit/orchestrator/loopback_test_support.h"

namespace benchgate::sut {
namespace {

using namespace std::chrono_literals;

// How a CannedHttpServer writes its answer.
enum class Pace { kAtOnce, kTrickle };

// Answers every connection with `answer` (nothing at all when empty, holding the connection
// until it is destroyed) after reading the request's head; keeps the last request head and
// counts the connections. kTrickle writes the answer a byte every 100 ms and then goes on
// writing a header line that never ends, until the client leaves or the server is destroyed.
class CannedHttpServer {
 public:
  explicit CannedHttpServer(std::string answer, Pace pace = Pace::kAtOnce)
      : answer_(std::move(answer)), pace_(pace) {
    EXPECT_TRUE(listener_.bound());
    thread_ = std::thread([this] { serve(); });
  }
  ~CannedHttpServer() {
    stopping_ = true;
    ::shutdown(listener_.fd(), SHUT_RDWR);  // wakes the accept()
    thread_.join();
  }
  std::string url(const std::string& path = "/metrics") const {
    return "http://127.0.0.1:" + std::to_string(listener_.port()) + path;
  }
  std::string last_request() const { return request_; }
  int connections() const { return connections_; }

 private:
  void serve() {
    while (!stopping_) {
      const int client = ::accept(listener_.fd(), nullptr, nullptr);
      if (client < 0) return;
      ++connections_;
      std::string head;
      char buffer[4096];
      while (head.find("\r\n\r\n") == std::string::npos) {
        const ssize_t n = ::read(client, buffer, sizeof buffer);
        if (n <= 0) break;
        head.append(buffer, static_cast<size_t>(n));
      }
      request_ = head;
      if (answer_.empty()) {
        while (!stopping_) std::this_thread::sleep_for(5ms);  // never answers
      } else if (pace_ == Pace::kTrickle) {
        for (size_t i = 0; !stopping_; ++i) {
          const char byte = i < answer_.size() ? answer_[i] : 'x';
          if (::send(client, &byte, 1, MSG_NOSIGNAL) != 1) break;  // the client left
          std::this_thread::sleep_for(100ms);
        }
      } else {
        (void)!::write(client, answer_.data(), answer_.size());
      }
      ::close(client);
    }
  }

  std::string answer_;
  Pace pace_;
  std::atomic<int> connections_{0};
  test_support::LoopbackListener listener_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  std::string request_;
};

std::string ok(const std::string& body) {
  return "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

TEST(MetricsScrape, AScrapeReadsTheCountersOfA200Answer) {
  CannedHttpServer server(ok("# TYPE served_total counter\nserved_total{path=\"/a\"} 41\n"));
  auto read = scrape_counters(server.url("/metrics?x=1"));
  ASSERT_TRUE(read) << read.error().headline();
  EXPECT_EQ(read->counters, (std::map<std::string, uint64_t>{{"served_total{path=/a}", 41}}));
  EXPECT_EQ(server.last_request().rfind("GET /metrics?x=1 HTTP/1.1\r\n", 0), 0u)
      << server.last_request();
}

TEST(MetricsScrape, ARefusedConnectionIsAnErrorNamingTheUrl) {
  const std::string url =
      "http://127.0.0.1:" + std::to_string(test_support::closed_loopback_port()) + "/metrics";
  auto read = scrape_counters(url);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().headline(), "scraping the system under test's metrics at " + url +
                                         ": connecting: connection refused");
}

TEST(MetricsScrape, AnAnswerOtherThan200IsAnError) {
  CannedHttpServer server("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
  auto read = scrape_counters(server.url());
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().headline(),
            "scraping the system under test's metrics at " + server.url() + ": HTTP 404 Not Found");
}

TEST(MetricsScrape, ABadExpositionIsAnErrorNamingItsLine) {
  CannedHttpServer server(ok("# TYPE c counter\nc 1\nc{ 2\n"));
  auto read = scrape_counters(server.url());
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().headline(), "scraping the system under test's metrics at " + server.url() +
                                         ": line 3: expected a label name or '}'");
}

TEST(MetricsScrape, AServerThatNeverAnswersCostsTheTimeoutNotAHang) {
  CannedHttpServer server("");
  auto read = scrape_counters(server.url(), 200ms);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().headline(),
            "scraping the system under test's metrics at " + server.url() +
                ": no complete answer within 200ms (stopped while reading the answer)");
}

TEST(MetricsScrape, AServerThatTricklesItsAnswerCostsTheOneTimeoutForTheWholeExchange) {
  // Every read gets a byte, so a timeout per read would never fire: the scrape's one deadline
  // bounds connect, request and the whole answer.
  CannedHttpServer server("HTTP/1.1 200 OK\r\nX-Slow: ", Pace::kTrickle);
  auto read = scrape_counters(server.url(), 500ms);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().headline(),
            "scraping the system under test's metrics at " + server.url() +
                ": no complete answer within 500ms (stopped while reading the answer)");
}

TEST(MetricsScrape, APathThatWouldWriteHeadersIsRefusedBeforeConnecting) {
  CannedHttpServer server(ok("# TYPE c counter\nc 1\n"));
  const std::string url =
      server.url("/metrics HTTP/1.1\r\nX-Injected: 1\r\n\r\nGET /admin HTTP/1.1\r\nA: b");
  auto read = scrape_counters(url);
  ASSERT_FALSE(read);
  const std::string error = read.error().headline();
  const std::string blank = "character " + std::to_string(url.find(' ') + 1) +
                            " (byte 0x20) must be percent-encoded as %20";
  EXPECT_NE(error.find(blank), std::string::npos) << error;
  EXPECT_EQ(error.find_first_of("\r\n"), std::string::npos) << error;  // quoted escaped
  EXPECT_EQ(server.connections(), 0);
}

TEST(MetricsScrape, AnErrorStatusIsNamedByItsStandardReasonNotTheServers) {
  CannedHttpServer server("HTTP/1.1 403 Secret Words\r\nContent-Length: 0\r\n\r\n");
  auto read = scrape_counters(server.url());
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().headline(),
            "scraping the system under test's metrics at " + server.url() + ": HTTP 403 Forbidden");
}

TEST(MetricsScrape, AnExternalSystemWithMetricsSnapshotsItsCountersButNoRequests) {
  CannedHttpServer server(ok("# TYPE served_total counter\nserved_total 7\n"));
  scenario::RouterConfig config;
  config.impl = scenario::RouterImpl::kExternal;
  config.address = "127.0.0.1:1";
  config.metrics = server.url();
  ExternalSystem system(config, SutContext{});
  auto snapshot = system.snapshot();
  ASSERT_TRUE(snapshot) << snapshot.error().headline();
  ASSERT_TRUE(snapshot->has_value());
  const MetricsSnapshot& got = **snapshot;
  EXPECT_TRUE(got.has_counters);
  EXPECT_FALSE(got.has_requests);
  EXPECT_FALSE(got.has_resources);  // nothing of an external system's process is read
  EXPECT_EQ(got.counters, (std::map<std::string, uint64_t>{{"served_total", 7}}));
}

TEST(MetricsScrape, AnExternalSystemWithoutMetricsHasNoReading) {
  scenario::RouterConfig config;
  config.impl = scenario::RouterImpl::kExternal;
  config.address = "127.0.0.1:1";
  ExternalSystem system(config, SutContext{});
  auto snapshot = system.snapshot();
  ASSERT_TRUE(snapshot);
  EXPECT_FALSE(snapshot->has_value());
}

}  // namespace
}  // namespace benchgate::sut
