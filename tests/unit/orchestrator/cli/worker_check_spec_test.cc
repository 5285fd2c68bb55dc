// worker-check --protocol: the flags it takes and refuses, the spec it sends for each protocol
// (as `run` sends one with the loader's defaults), and the rule that an HTTP result counts none
// of WAMP's error kinds (orchestrator/cli/worker_check_spec.h).
#include "orchestrator/cli/worker_check_spec.h"

#include <gtest/gtest.h>

#include <string>

namespace benchgate::cli {
namespace {

using scenario::Protocol;

TEST(WorkerCheckSpec, ByDefaultItIsHttp1WithNoWampSettings) {
  auto parsed = parse_check_protocol("http1", "", "");
  ASSERT_TRUE(parsed) << parsed.message();
  EXPECT_EQ(parsed->protocol, Protocol::kHttp1);
  const auto spec = check_spec(*parsed, "127.0.0.1:8080");
  EXPECT_EQ(spec.protocol(), "http1");
  EXPECT_EQ(spec.address(), "127.0.0.1:8080");
  EXPECT_EQ(spec.connections(), 2u);
  EXPECT_EQ(spec.http().target(), "/bench/hello");
  EXPECT_FALSE(spec.has_http2());
  EXPECT_FALSE(spec.has_wamp());
}

TEST(WorkerCheckSpec, Http2SendsTheRequestAndOneStreamPerConnection) {
  auto parsed = parse_check_protocol("http2", "", "");
  ASSERT_TRUE(parsed) << parsed.message();
  const auto spec = check_spec(*parsed, "127.0.0.1:8080");
  EXPECT_EQ(spec.protocol(), "http2");
  EXPECT_EQ(spec.http().method(), "GET");
  EXPECT_EQ(spec.http().expect_status(), 200u);
  EXPECT_EQ(spec.http2().streams(), 1u);
}

TEST(WorkerCheckSpec, WampDefaultsToWebSocketAndJsonAndCallsTheRoutersEcho) {
  auto parsed = parse_check_protocol("wamp_rpc", "", "");
  ASSERT_TRUE(parsed) << parsed.message();
  const auto spec = check_spec(*parsed, "127.0.0.1:9000");
  EXPECT_EQ(spec.protocol(), "wamp_rpc");
  EXPECT_FALSE(spec.has_http());
  EXPECT_EQ(spec.wamp().kind(), "rpc");
  EXPECT_EQ(spec.wamp().transport(), "websocket");
  EXPECT_EQ(spec.wamp().serializer(), "json");
  EXPECT_EQ(spec.wamp().realm(), "realm1");
  EXPECT_EQ(spec.wamp().procedure(), "bench.echo");
  EXPECT_EQ(spec.wamp().callee(), "router");
  EXPECT_EQ(spec.connections(), 2u);
}

// Its sessions are the publishers and subscribers, which Ready counts: 1 and 1, the 2 asked.
TEST(WorkerCheckSpec, PubSubIsOnePublisherAndOneSubscriberAcknowledged) {
  auto parsed = parse_check_protocol("wamp_pubsub", "rawsocket", "msgpack");
  ASSERT_TRUE(parsed) << parsed.message();
  const auto spec = check_spec(*parsed, "127.0.0.1:9001");
  EXPECT_EQ(spec.wamp().kind(), "pubsub");
  EXPECT_EQ(spec.wamp().transport(), "rawsocket");
  EXPECT_EQ(spec.wamp().serializer(), "msgpack");
  EXPECT_EQ(spec.wamp().publishers(), 1u);
  EXPECT_EQ(spec.wamp().subscribers(), 1u);
  EXPECT_TRUE(spec.wamp().acknowledge());
  EXPECT_EQ(spec.connections(), 2u);
}

TEST(WorkerCheckSpec, TransferIsSmallAndOfSeveralChunks) {
  auto parsed = parse_check_protocol("wamp_transfer", "", "cbor");
  ASSERT_TRUE(parsed) << parsed.message();
  const auto spec = check_spec(*parsed, "127.0.0.1:9000");
  EXPECT_EQ(spec.wamp().kind(), "transfer");
  EXPECT_EQ(spec.wamp().procedure(), "bench.transfer");
  EXPECT_EQ(spec.wamp().transfer_bytes(), 65536u);
  EXPECT_EQ(spec.wamp().chunk_bytes(), 16384u);
}

TEST(WorkerCheckSpec, AProtocolByAnotherNameIsRefusedNamingItsName) {
  auto parsed = parse_check_protocol("h2c", "", "");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.message(),
            "--protocol 'h2c' is not one of http1, http2, wamp_rpc, wamp_pubsub, wamp_transfer "
            "(HTTP/2, h2c with prior knowledge, is http2)");
  EXPECT_EQ(parsed.error().kind, ErrorKind::kInvalidInput);
}

// Escaped: the flag's value is the user's, shown on the terminal.
TEST(WorkerCheckSpec, AnUnknownProtocolIsQuotedEscaped) {
  auto parsed = parse_check_protocol("quic\x1b[31m", "", "");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.message(),
            "--protocol 'quic\\x1b[31m' is not one of http1, http2, wamp_rpc, wamp_pubsub, "
            "wamp_transfer");
}

TEST(WorkerCheckSpec, WampFlagsAreRefusedWithAnHttpProtocol) {
  auto parsed = parse_check_protocol("http2", "rawsocket", "");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.message(),
            "--wamp-transport applies to the WAMP protocols only, not to --protocol http2");
  parsed = parse_check_protocol("http1", "", "json");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.message(),
            "--wamp-serializer applies to the WAMP protocols only, not to --protocol http1");
}

TEST(WorkerCheckSpec, AnUnknownTransportOrSerializerIsRefused) {
  auto parsed = parse_check_protocol("wamp_rpc", "wss", "");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.message(), "--wamp-transport 'wss' is not one of websocket, rawsocket");
  parsed = parse_check_protocol("wamp_rpc", "", "messagepack");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.message(), "--wamp-serializer 'messagepack' is not one of json, msgpack, cbor");
}

TEST(WorkerCheckSpec, AnHttpResultThatCountsWampKindsIsNamedWithThem) {
  v1::WindowResult result;
  (*result.mutable_errors())["status"] = 3;
  EXPECT_EQ(check_protocol_error_kinds(result, Protocol::kHttp2), "");
  (*result.mutable_errors())["lost"] = 1;
  (*result.mutable_errors())["wamp_error"] = 2;
  EXPECT_EQ(check_protocol_error_kinds(result, Protocol::kHttp2),
            "http2 defines no errors of kind wamp_error, lost (WAMP's kinds)");
  EXPECT_EQ(check_protocol_error_kinds(result, Protocol::kWampRpc), "");
}

// A kind left at 0 is a kind not counted (the protocol lets kinds with 0 be left out or not),
// but one declared not measured claims the protocol has it.
TEST(WorkerCheckSpec, AWampKindAtZeroPassesAndOneDeclaredNotMeasuredDoesNot) {
  v1::WindowResult result;
  (*result.mutable_errors())["canceled"] = 0;
  EXPECT_EQ(check_protocol_error_kinds(result, Protocol::kHttp1), "");
  result.add_not_measured("errors.callee_error");
  EXPECT_EQ(check_protocol_error_kinds(result, Protocol::kHttp1),
            "http1 defines no errors of kind callee_error (WAMP's kinds)");
}

}  // namespace
}  // namespace benchgate::cli
