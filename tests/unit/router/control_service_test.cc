// RouterControl over a real gRPC channel on loopback: health, the documented counter names,
// the handling histogram, reset and shutdown.
#include "router/control/control_service.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <gtest/gtest.h>

#include <atomic>
#include <map>

#include "common/histogram/hdr_histogram.h"
#include "http_test_client.h"
#include "router/control/control_server.h"
#include "router/control/metrics_proto.h"

namespace benchgate::router::control {
namespace {

using testing::HttpTestClient;

class ControlServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto http = http::HttpServer::start(http::ServerOptions{});
    ASSERT_TRUE(http) << http.message();
    http_ = std::move(*http);
    service_ = std::make_unique<ControlService>(
        RouterFacts{"benchgate-router", "9.9.9", {{"http", "127.0.0.1:1"}}, 1}, *http_,
        [this] { ++shutdown_requests_; });
    auto control = ControlServer::start("127.0.0.1:0", *service_);
    ASSERT_TRUE(control) << control.message();
    control_ = std::move(*control);
    const std::string address = "127.0.0.1:" + std::to_string(control_->port());
    service_->set_endpoint("control", address);
    stub_ = benchgate::v1::RouterControl::NewStub(
        grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  }

  std::unique_ptr<grpc::ClientContext> context() {
    auto ctx = std::make_unique<grpc::ClientContext>();
    ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    return ctx;
  }

  std::map<std::string, uint64_t> counters(const benchgate::v1::MetricsSnapshot& snapshot) {
    std::map<std::string, uint64_t> out;
    for (const auto& counter : snapshot.counters()) {
      std::string key = counter.name();
      if (counter.labels().count("route") != 0) {
        key += "{" + counter.labels().at("route") + "," + counter.labels().at("status") + "}";
      }
      out[key] = counter.value();
    }
    return out;
  }

  std::unique_ptr<http::HttpServer> http_;
  std::unique_ptr<ControlService> service_;
  std::unique_ptr<ControlServer> control_;
  std::unique_ptr<benchgate::v1::RouterControl::Stub> stub_;
  std::atomic<int> shutdown_requests_{0};
};

TEST_F(ControlServiceTest, HealthNamesTheRouterItsEndpointsAndThreads) {
  benchgate::v1::HealthResponse response;
  ASSERT_TRUE(stub_->Health(context().get(), {}, &response).ok());
  EXPECT_EQ(response.name(), "benchgate-router");
  EXPECT_EQ(response.version(), "9.9.9");
  EXPECT_EQ(response.endpoints().at("http"), "127.0.0.1:1");
  EXPECT_EQ(response.endpoints().at("control"), "127.0.0.1:" + std::to_string(control_->port()));
  EXPECT_EQ(response.threads(), 1u);
}

TEST_F(ControlServiceTest, GetMetricsReportsTheDocumentedCountersAndHistogram) {
  HttpTestClient client(http_->endpoint().port());
  client.send("GET /bench/hello HTTP/1.1\r\nHost: t\r\n\r\nGET /x HTTP/1.1\r\nHost: t\r\n\r\n");
  ASSERT_TRUE(client.read());
  ASSERT_TRUE(client.read());
  client.close();
  testing::quiesced_snapshot(*http_, 1);

  benchgate::v1::MetricsSnapshot snapshot;
  ASSERT_TRUE(stub_->GetMetrics(context().get(), {}, &snapshot).ok());
  const auto values = counters(snapshot);
  EXPECT_EQ(values.at("connections_accepted"), 1u);
  EXPECT_EQ(values.at("http_requests{/bench/hello,200}"), 1u);
  EXPECT_EQ(values.at("http_requests{other,404}"), 1u);
  EXPECT_EQ(values.at("bytes_received"), client.bytes_sent());
  EXPECT_EQ(values.at("bytes_sent"), client.bytes_received());
  EXPECT_EQ(values.at("http_parse_errors"), 0u);
  EXPECT_EQ(values.at("connections_timed_out"), 0u);
  // HTTP/2's counters are there at zero too.
  for (const char* name :
       {"h2_connections", "h2_streams", "h2_streams_refused", "h2_client_resets",
        "h2_rapid_reset_closes", "h2_continuation_flood_closes", "h2_header_list_closes",
        "h2_protocol_error_closes", "h2_flow_control_resets", "h2_flow_control_closes"}) {
    EXPECT_EQ(values.at(name), 0u) << name;
  }
  EXPECT_EQ(values.size(), 17u);
  EXPECT_EQ(snapshot.gauges().at("connections_open"), 0);
  EXPECT_EQ(snapshot.gauges().at("read_buffers_held"), 0);
  EXPECT_EQ(snapshot.gauges().at("inject_work_ns"), 0);
  EXPECT_GT(snapshot.taken_at_unix_ns(), 0);
  EXPECT_GT(snapshot.rss_bytes(), 0u);

  const std::string& encoded = snapshot.handling().hdr_v2_compressed();
  auto histogram = HdrHistogram::decode(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(encoded.data()), encoded.size()));
  ASSERT_TRUE(histogram) << histogram.message();
  EXPECT_EQ(histogram->total_count(), 2);
}

TEST(MetricsProto, TheBufferBudgetIsReportedWhenTheRouterHasOne) {
  metrics::Snapshot snapshot;
  benchgate::v1::MetricsSnapshot without;
  to_proto(snapshot, without);
  EXPECT_EQ(without.gauges().count("buffered_bytes"), 0u);

  snapshot.budget_present = true;
  snapshot.buffered_bytes = 3 << 20;
  snapshot.buffered_bytes_limit = 512u << 20;
  snapshot.budget_refusals = {1, 2, 3};
  benchgate::v1::MetricsSnapshot with;
  to_proto(snapshot, with);
  EXPECT_EQ(with.gauges().at("buffered_bytes"), 3 << 20);
  EXPECT_EQ(with.gauges().at("buffered_bytes_limit"), int64_t{512} << 20);
  std::map<std::string, uint64_t> refusals;
  for (const auto& counter : with.counters()) {
    if (counter.name() == "buffer_budget_refusals") {
      refusals[counter.labels().at("transport")] = counter.value();
    }
  }
  EXPECT_EQ(refusals,
            (std::map<std::string, uint64_t>{{"http", 1}, {"websocket", 2}, {"rawsocket", 3}}));
}

// router --inject-work-ns: the snapshot says how much work is injected, and every request's
// handling time holds at least that much (the work spins on the same monotonic clock).
TEST(InjectWork, TheSnapshotShowsItAndEveryRequestCarriesIt) {
  http::ServerOptions options;
  options.inject_work_ns = 2'000'000;  // 2 ms
  auto http = http::HttpServer::start(options);
  ASSERT_TRUE(http) << http.message();
  HttpTestClient client((*http)->endpoint().port());
  for (int i = 0; i < 3; ++i) {
    client.send("GET /bench/hello HTTP/1.1\r\nHost: t\r\n\r\n");
    ASSERT_TRUE(client.read());
  }
  client.close();
  const metrics::Snapshot snapshot = testing::quiesced_snapshot(**http, 1);
  EXPECT_EQ(snapshot.inject_work_ns, 2'000'000);
  EXPECT_EQ(snapshot.handling.total_count(), 3);
  EXPECT_GE(snapshot.handling.min(), 2'000'000 * 999 / 1000);  // histogram bucket rounding
  benchgate::v1::MetricsSnapshot proto;
  to_proto(snapshot, proto);
  EXPECT_EQ(proto.gauges().at("inject_work_ns"), 2'000'000);
}

TEST_F(ControlServiceTest, ResetZeroesTheCounters) {
  HttpTestClient client(http_->endpoint().port());
  client.send("GET /bench/hello HTTP/1.1\r\nHost: t\r\n\r\n");
  ASSERT_TRUE(client.read());
  benchgate::v1::ResetResponse reset;
  ASSERT_TRUE(stub_->Reset(context().get(), {}, &reset).ok());
  benchgate::v1::MetricsSnapshot snapshot;
  ASSERT_TRUE(stub_->GetMetrics(context().get(), {}, &snapshot).ok());
  const auto values = counters(snapshot);
  EXPECT_EQ(values.count("http_requests{/bench/hello,200}"), 0u);
  EXPECT_EQ(values.at("connections_accepted"), 0u);
  EXPECT_EQ(snapshot.gauges().at("connections_open"), 1);
}

TEST_F(ControlServiceTest, ShutdownRepliesAndAsksTheProcessToStop) {
  benchgate::v1::ShutdownResponse response;
  ASSERT_TRUE(stub_->Shutdown(context().get(), {}, &response).ok());
  EXPECT_EQ(shutdown_requests_.load(), 1);
}

}  // namespace
}  // namespace benchgate::router::control
