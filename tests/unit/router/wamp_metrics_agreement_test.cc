// The router's /metrics and RouterControl.GetMetrics after a bounded WAMP load over RawSocket
// (RPC, pub/sub, a slow consumer dropped, a protocol error) on 127.0.0.1, wired as the router
// wires them (router/app/router_app.cc): every WAMP counter and gauge GetMetrics reports is on
// /metrics with the same figure, under benchgate_router_ + its name + _total.
#include <arpa/inet.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "router/control/control_server.h"
#include "router/control/control_service.h"
#include "router/prometheus/metrics_endpoint.h"
#include "wamp_test_client.h"

namespace benchgate::router {
namespace {

using testing::RawSocketTestClient;
using wamp::Json;

// A sample's key: its name and its labels sorted by name, `name{a="x",b="y"}`.
std::string key_of(const std::string& name,
                   std::vector<std::pair<std::string, std::string>> labels) {
  std::sort(labels.begin(), labels.end());
  std::string key = name;
  if (labels.empty()) return key;
  key += "{";
  for (size_t i = 0; i < labels.size(); ++i) {
    key += (i == 0 ? "" : ",") + labels[i].first + "=\"" + labels[i].second + "\"";
  }
  return key + "}";
}

// The samples of a Prometheus text page (label values without escapes), by key.
std::map<std::string, double> samples_of(const std::string& page) {
  std::map<std::string, double> out;
  size_t start = 0;
  while (start < page.size()) {
    size_t end = page.find('\n', start);
    if (end == std::string::npos) end = page.size();
    const std::string line = page.substr(start, end - start);
    start = end + 1;
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.rfind(' ');
    const std::string series = line.substr(0, space);
    const size_t brace = series.find('{');
    std::vector<std::pair<std::string, std::string>> labels;
    if (brace != std::string::npos) {
      size_t at = brace + 1;
      while (at < series.size() && series[at] != '}') {
        const size_t equals = series.find("=\"", at);
        const size_t quote = series.find('"', equals + 2);
        labels.emplace_back(series.substr(at, equals - at),
                            series.substr(equals + 2, quote - equals - 2));
        at = quote + 1;
        if (at < series.size() && series[at] == ',') ++at;
      }
    }
    out[key_of(series.substr(0, brace), labels)] = std::stod(line.substr(space + 1));
  }
  return out;
}

// GET /metrics from 127.0.0.1:`port`: the whole answer (Connection: close), or what came within
// 20 s (a bound on a hang, no timing asserted).
std::string scrape(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const std::string request = "GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
  std::string answer;
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(request.size())) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    char buffer[4096];
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd wait{fd, POLLIN, 0};
      if (::poll(&wait, 1, 100) <= 0) continue;
      const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
      if (got <= 0) break;
      answer.append(buffer, static_cast<size_t>(got));
    }
  }
  if (fd >= 0) ::close(fd);
  const size_t body = answer.find("\r\n\r\n");
  return body == std::string::npos ? std::string() : answer.substr(body + 4);
}

class WampMetricsAgreementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto http = http::HttpServer::start(http::ServerOptions{});
    ASSERT_TRUE(http) << http.message();
    http_ = std::move(*http);
    wamp::WampOptions options;
    options.max_queued_bytes = 64 * 1024;  // the flooded subscriber below is dropped
    auto wamp_server = wamp::WampServer::start(options);
    ASSERT_TRUE(wamp_server) << wamp_server.message();
    wamp_ = std::move(*wamp_server);
    service_ = std::make_unique<control::ControlService>(
        control::RouterFacts{"benchgate-router", "9.9.9", {}, 1}, *http_, [] {});
    service_->set_wamp(wamp_.get());
    auto control = control::ControlServer::start("127.0.0.1:0", *service_);
    ASSERT_TRUE(control) << control.message();
    control_ = std::move(*control);
    stub_ = benchgate::v1::RouterControl::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(control_->port()), grpc::InsecureChannelCredentials()));
    // As router_app.cc takes the snapshot /metrics serves.
    auto endpoint = prometheus_export::MetricsEndpoint::start("127.0.0.1:0", [this] {
      metrics::Snapshot snapshot = http_->snapshot();
      wamp_->add_metrics(snapshot);
      return snapshot;
    });
    ASSERT_TRUE(endpoint) << endpoint.message();
    metrics_ = std::move(*endpoint);
  }

  // GetMetrics' WAMP counters and gauges, keyed as /metrics names them.
  std::map<std::string, double> get_metrics() {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    benchgate::v1::MetricsSnapshot snapshot;
    const grpc::Status status = stub_->GetMetrics(&context, {}, &snapshot);
    EXPECT_TRUE(status.ok()) << status.error_message();
    std::map<std::string, double> out;
    for (const auto& counter : snapshot.counters()) {
      if (!counter.name().starts_with("wamp_")) continue;
      std::vector<std::pair<std::string, std::string>> labels(counter.labels().begin(),
                                                              counter.labels().end());
      out[key_of("benchgate_router_" + counter.name() + "_total", labels)] =
          static_cast<double>(counter.value());
    }
    out["benchgate_router_wamp_sessions"] =
        static_cast<double>(snapshot.gauges().at("wamp_sessions"));
    for (const char* transport : {"websocket", "rawsocket"}) {
      out[key_of("benchgate_router_wamp_open_connections", {{"transport", transport}})] =
          static_cast<double>(
              snapshot.gauges().at(std::string("wamp_connections_open_") + transport));
    }
    return out;
  }

  uint16_t port() const { return wamp_->rawsocket_port(); }

  std::unique_ptr<http::HttpServer> http_;
  std::unique_ptr<wamp::WampServer> wamp_;
  std::unique_ptr<control::ControlService> service_;
  std::unique_ptr<control::ControlServer> control_;
  std::unique_ptr<benchgate::v1::RouterControl::Stub> stub_;
  // Last, so that it stops first: no scrape takes a snapshot of a server that is going.
  std::unique_ptr<prometheus_export::MetricsEndpoint> metrics_;
};

// Before, /metrics had no WAMP traffic at all: only the authentication, authorization, message
// and setup timeout and limit refusal families.
TEST_F(WampMetricsAgreementTest, MetricsServesEveryWampFigureOfGetMetricsAsItCountsIt) {
  constexpr int kEchoes = 10;
  constexpr int kRouted = 3;
  constexpr int kPublications = 4;
  RawSocketTestClient caller(port(), wamp::Serializer::kMsgpack);
  RawSocketTestClient callee(port(), wamp::Serializer::kCbor);
  RawSocketTestClient subscriber(port(), wamp::Serializer::kJson);
  RawSocketTestClient publisher(port(), wamp::Serializer::kMsgpack);
  ASSERT_NE(caller.join(), 0u);
  ASSERT_NE(callee.join(), 0u);
  ASSERT_NE(subscriber.join(), 0u);
  ASSERT_NE(publisher.join(), 0u);
  for (int i = 1; i <= kEchoes; ++i) {
    caller.send(Json::array({48, i, Json::object(), "bench.echo", Json::array({i})}));
    ASSERT_EQ(caller.read(), Json::array({50, i, Json::object(), Json::array({i})}));
  }
  callee.send(Json::array({64, 1, Json::object(), "test.add"}));
  ASSERT_EQ(callee.read()[0], 65);
  for (int i = 1; i <= kRouted; ++i) {
    caller.send(Json::array({48, 100 + i, Json::object(), "test.add", Json::array({i})}));
    const Json invocation = callee.read();
    ASSERT_EQ(invocation[0], 68) << invocation;
    callee.send(Json::array({70, invocation[1], Json::object(), Json::array({i + 1})}));
    ASSERT_EQ(caller.read(), Json::array({50, 100 + i, Json::object(), Json::array({i + 1})}));
  }
  subscriber.send(Json::array({32, 1, Json::object(), "test.topic"}));
  ASSERT_EQ(subscriber.read()[0], 33);
  for (int i = 1; i <= kPublications; ++i) {
    publisher.send(Json::array({16, i, {{"acknowledge", true}}, "test.topic", Json::array({"e"})}));
    ASSERT_EQ(publisher.read()[0], 17);
    ASSERT_EQ(subscriber.read()[0], 36);
  }
  // A subscriber that does not read, flooded past --max-queued-bytes: dropped as a slow
  // consumer (bounded: far more than socket buffers and the queue limit hold, then a sync
  // point).
  {
    RawSocketTestClient slow(port(), wamp::Serializer::kMsgpack, 15, /*receive_buffer=*/4096);
    ASSERT_NE(slow.join(), 0u);
    slow.send(Json::array({32, 1, Json::object(), "test.flood"}));
    ASSERT_EQ(slow.read()[0], 33);
    const Json args = Json::array({Json::binary(std::vector<uint8_t>(16 * 1024, 9))});
    for (int i = 0; i < 2000; ++i) {
      publisher.send(Json::array({16, 100 + i, Json::object(), "test.flood", args}));
    }
    publisher.send(Json::array({48, 1, Json::object(), "bench.echo"}));
    ASSERT_EQ(publisher.read(), Json::array({50, 1, Json::object()}));
  }
  // A protocol error: an unknown message type, ABORTed.
  {
    RawSocketTestClient offender(port(), wamp::Serializer::kJson);
    ASSERT_NE(offender.join(), 0u);
    offender.send_frame(wamp::FrameType::kMessage, {'[', '9', '9', '9', ']'});
    ASSERT_EQ(offender.read()[0], 3);
    EXPECT_TRUE(offender.closed_by_router());
  }
  const auto settled = testing::wait_for_wamp(*wamp_, [](const metrics::Snapshot& s) {
    return s.wamp_sessions == 4 && s.wamp_connections_open[1] == 4 &&
           s.wamp.drops[static_cast<size_t>(metrics::DropReason::slow_consumer)] == 1 &&
           s.wamp.protocol_errors == 1;
  });
  ASSERT_EQ(settled.wamp_sessions, 4);
  ASSERT_EQ(settled.wamp_connections_open[1], 4);

  // No traffic flows now: both read the same counters, GetMetrics before and after the scrape.
  const std::map<std::string, double> before = get_metrics();
  const std::map<std::string, double> page = samples_of(scrape(metrics_->port()));
  const std::map<std::string, double> after = get_metrics();
  ASSERT_EQ(before, after) << "the load had not settled";

  // Exact figures of the load, on /metrics.
  const auto at = [&page](const std::string& key) {
    const auto found = page.find(key);
    return found == page.end() ? -1.0 : found->second;
  };
  EXPECT_EQ(at("benchgate_router_wamp_calls_routed_total"), kEchoes + kRouted + 1);
  EXPECT_EQ(at(R"(benchgate_router_wamp_messages_total{direction="in",type="CALL"})"),
            kEchoes + kRouted + 1);
  EXPECT_EQ(at(R"(benchgate_router_wamp_messages_total{direction="out",type="INVOCATION"})"),
            kRouted);
  EXPECT_EQ(at(R"(benchgate_router_wamp_messages_total{direction="in",type="YIELD"})"), kRouted);
  EXPECT_EQ(at(R"(benchgate_router_wamp_messages_total{direction="in",type="HELLO"})"), 6);
  EXPECT_EQ(at(R"(benchgate_router_wamp_messages_total{direction="in",type="INVALID"})"), 1);
  EXPECT_EQ(at(R"(benchgate_router_wamp_messages_total{direction="out",type="PUBLISHED"})"),
            kPublications);
  EXPECT_EQ(at(R"(benchgate_router_wamp_messages_total{direction="in",type="PUBLISH"})"),
            kPublications + 2000);
  EXPECT_EQ(at(R"(benchgate_router_wamp_messages_total{direction="out",type="WELCOME"})"), 6);
  EXPECT_EQ(at(R"(benchgate_router_wamp_messages_total{direction="in",type="WELCOME"})"), -1)
      << "a pair never seen is absent, as in GetMetrics";
  EXPECT_GE(at("benchgate_router_wamp_events_delivered_total"), kPublications + 1);
  EXPECT_EQ(at(R"(benchgate_router_wamp_drops_total{reason="slow_consumer"})"), 1);
  EXPECT_EQ(at(R"(benchgate_router_wamp_drops_total{reason="too_large"})"), 0);
  EXPECT_EQ(at(R"(benchgate_router_wamp_connections_total{transport="rawsocket"})"), 6);
  EXPECT_EQ(at(R"(benchgate_router_wamp_connections_total{transport="websocket"})"), 0);
  EXPECT_EQ(at(R"(benchgate_router_wamp_connections_rejected_total{transport="rawsocket"})"), 0);
  EXPECT_EQ(at("benchgate_router_wamp_protocol_errors_total"), 1);
  EXPECT_EQ(at(R"(benchgate_router_wamp_websocket_frames_total{direction="in"})"), 0);
  EXPECT_EQ(at("benchgate_router_wamp_calls_timed_out_total"), 0);
  EXPECT_EQ(at("benchgate_router_wamp_calls_canceled_total"), 0);
  EXPECT_EQ(at("benchgate_router_wamp_transfer_bytes_total"), 0);
  EXPECT_GT(at(R"(benchgate_router_wamp_bytes_total{direction="in"})"), 2000 * 16 * 1024);
  EXPECT_EQ(at("benchgate_router_wamp_sessions"), 4);
  EXPECT_EQ(at(R"(benchgate_router_wamp_open_connections{transport="rawsocket"})"), 4);
  EXPECT_EQ(at(R"(benchgate_router_wamp_open_connections{transport="websocket"})"), 0);

  // Every figure of GetMetrics, on /metrics as it is there.
  for (const auto& [key, value] : before) EXPECT_EQ(at(key), value) << key;
  // And no WAMP sample of /metrics that GetMetrics lacks, but the authentication pairs, which
  // GetMetrics sends only once seen and /metrics always (at zero here).
  for (const auto& [key, value] : page) {
    if (!key.starts_with("benchgate_router_wamp_") || before.contains(key)) continue;
    EXPECT_TRUE(key.starts_with("benchgate_router_wamp_auth_")) << key;
    EXPECT_EQ(value, 0) << key;
  }
}

}  // namespace
}  // namespace benchgate::router
