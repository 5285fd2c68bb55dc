// The router's /metrics families from a snapshot.
#include "router/prometheus/snapshot_families.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

namespace benchgate::router::prometheus_export {
namespace {

TEST(RouterFamiliesTest, SnapshotBecomesCountersGaugesAndProcessFamilies) {
  metrics::Snapshot snapshot;
  snapshot.counters.connections_accepted = 3;
  snapshot.counters.count_request(http::Route::kHello, 200);
  snapshot.counters.count_request(http::Route::kHello, 200);
  snapshot.connections_open = 2;
  snapshot.read_buffers_held = 1;
  snapshot.cpu.user_ns = 1'500'000'000;
  snapshot.rss_bytes = 1024;
  prometheus::TextSerializer serializer;
  const std::string text = serializer.Serialize(to_families(snapshot));
  EXPECT_NE(text.find("# TYPE benchgate_router_http_requests_total counter"), std::string::npos);
  EXPECT_NE(text.find("benchgate_router_http_connections_accepted_total 3\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("benchgate_router_http_open_connections 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("benchgate_router_http_read_buffers_held 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("process_cpu_seconds_total 1.5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("process_resident_memory_bytes 1024\n"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(status="200"} 2)"), std::string::npos) << text;
}

TEST(RouterFamiliesTest, Http2CountersAndDefenceClosesByReason) {
  metrics::Snapshot snapshot;
  snapshot.counters.h2.connections = 4;
  snapshot.counters.h2.streams_refused = 5;
  snapshot.counters.h2.rapid_reset_closes = 1;
  snapshot.counters.h2.header_list_closes = 2;
  snapshot.counters.h2.flow_control_resets = 6;
  snapshot.counters.h2.flow_control_closes = 3;
  prometheus::TextSerializer serializer;
  const std::string text = serializer.Serialize(to_families(snapshot));
  EXPECT_NE(text.find("benchgate_router_http2_connections_total 4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("benchgate_router_http2_streams_refused_total 5\n"), std::string::npos);
  EXPECT_NE(text.find(R"(benchgate_router_http2_defence_closes_total{reason="rapid_reset"} 1)"),
            std::string::npos);
  EXPECT_NE(text.find(R"(benchgate_router_http2_defence_closes_total{reason="header_list"} 2)"),
            std::string::npos);
  EXPECT_NE(
      text.find(R"(benchgate_router_http2_defence_closes_total{reason="continuation_flood"} 0)"),
      std::string::npos);
  EXPECT_NE(text.find("benchgate_router_http2_flow_control_resets_total 6\n"), std::string::npos);
  EXPECT_NE(text.find(R"(benchgate_router_http2_defence_closes_total{reason="flow_control"} 3)"),
            std::string::npos);
}

TEST(RouterFamiliesTest, WampMessageTimeoutsByTransportOnlyWithTheWampRouter) {
  metrics::Snapshot snapshot;
  prometheus::TextSerializer serializer;
  EXPECT_EQ(serializer.Serialize(to_families(snapshot)).find("messages_timed_out"),
            std::string::npos);
  snapshot.wamp_present = true;
  snapshot.wamp.messages_timed_out[static_cast<size_t>(metrics::WampTransport::rawsocket)] = 2;
  const std::string text = serializer.Serialize(to_families(snapshot));
  EXPECT_NE(text.find(R"(benchgate_router_wamp_messages_timed_out_total{transport="rawsocket"} 2)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(benchgate_router_wamp_messages_timed_out_total{transport="websocket"} 0)"),
            std::string::npos);
}

TEST(RouterFamiliesTest, WampSetupTimeoutsAndLimitRefusalsOnlyWithTheWampRouter) {
  metrics::Snapshot snapshot;
  prometheus::TextSerializer serializer;
  const std::string without = serializer.Serialize(to_families(snapshot));
  EXPECT_EQ(without.find("session_setup_timeouts"), std::string::npos);
  EXPECT_EQ(without.find("limit_refusals"), std::string::npos);
  snapshot.wamp_present = true;
  snapshot.wamp.session_setup_timeouts = 4;
  snapshot.wamp.limit_refusals[static_cast<size_t>(metrics::SessionLimit::registrations)] = 3;
  const std::string text = serializer.Serialize(to_families(snapshot));
  EXPECT_NE(text.find("benchgate_router_wamp_session_setup_timeouts_total 4\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(benchgate_router_wamp_limit_refusals_total{limit="registrations"} 3)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(benchgate_router_wamp_limit_refusals_total{limit="pending_calls"} 0)"),
            std::string::npos);
  EXPECT_NE(text.find(R"(benchgate_router_wamp_limit_refusals_total{limit="subscriptions"} 0)"),
            std::string::npos);
  EXPECT_NE(
      text.find(R"(benchgate_router_wamp_limit_refusals_total{limit="router_pending_calls"} 0)"),
      std::string::npos);
}

}  // namespace
}  // namespace benchgate::router::prometheus_export
