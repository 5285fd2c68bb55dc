// The WAMP workloads end to end in one process: the worker's engine against the bundled
// router's WAMP server on 127.0.0.1, over both transports and all three serializers. Counts
// are exact (every call answered and checked, every event delivered) and agree with the
// router's own counters; windows are short and bounded; nothing asserts on speed.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "../router/wamp_test_client.h"
#include "router/wamp/auth/auth_config.h"
#include "router/wamp/message_type.h"
#include "router/wamp/wamp_server.h"
#include "wamp_engine_test_support.h"
#include "worker/engine/engine.h"

namespace benchgate::worker {
namespace {

namespace asio = boost::asio;
using test_support::kMs;
using test_support::run;
using test_support::start;
using test_support::total_errors;
using W = WampRequestSpec;

struct Combo {
  W::Transport transport;
  W::Serializer serializer;
};

std::string combo_name(const Combo& c) {
  const char* t = c.transport == W::Transport::kRawSocket ? "RawSocket" : "WebSocket";
  const char* s = c.serializer == W::Serializer::kJson      ? "Json"
                  : c.serializer == W::Serializer::kMsgpack ? "Msgpack"
                                                            : "Cbor";
  return std::string(t) + s;
}

class WampEngine : public ::testing::TestWithParam<Combo> {
 protected:
  void SetUp() override {
    auto server = router::wamp::WampServer::start({});
    ASSERT_TRUE(server) << server.message();
    server_ = std::move(*server);
  }

  WorkloadSpec spec(bool pubsub) const {
    WorkloadSpec s;
    s.name = "wamp";
    s.protocol = pubsub ? "wamp_pubsub" : "wamp_rpc";
    const bool raw = GetParam().transport == W::Transport::kRawSocket;
    s.address =
        "127.0.0.1:" + std::to_string(raw ? server_->rawsocket_port() : server_->websocket_port());
    s.connections = 3;
    s.threads = 2;
    s.in_flight = 2;
    s.drain_timeout_ns = 3000 * kMs;
    s.connect_timeout_ns = 3000 * kMs;
    s.wamp.kind = pubsub ? W::Kind::kPubSub : W::Kind::kRpc;
    s.wamp.transport = GetParam().transport;
    s.wamp.serializer = GetParam().serializer;
    s.wamp.request_bytes = 1024;
    if (pubsub) {
      s.wamp.publishers = 2;
      s.wamp.subscribers = 3;
      s.wamp.acknowledge = true;
      s.connections = 5;
    }
    return s;
  }

  // wamp_rpc with every call on a session of its own (one call in flight per connection).
  WorkloadSpec session_per_call() const {
    WorkloadSpec s = spec(false);
    s.in_flight = 1;
    s.wamp.session_per_operation = true;
    return s;
  }

  router::metrics::Snapshot router_metrics() {
    router::metrics::Snapshot snapshot;
    server_->add_metrics(snapshot);
    return snapshot;
  }

  std::unique_ptr<router::wamp::WampServer> server_;
};

TEST_P(WampEngine, EveryCallToBenchEchoComesBackWithThePayloadAndTheRouterRoutedEachOnce) {
  auto engine = start(spec(false));
  ASSERT_TRUE(engine);
  EXPECT_EQ(engine->connections(), 3u);
  server_->reset_metrics();
  const WindowResult r = run(*engine);
  EXPECT_GT(r.operations, 0u);
  EXPECT_EQ(r.successes, r.operations);
  EXPECT_EQ(total_errors(r), 0u);
  EXPECT_EQ(static_cast<uint64_t>(r.latency.total_count()), r.successes);
  EXPECT_GT(r.bytes_received, r.successes * 1024);
  EXPECT_EQ(router_metrics().wamp.calls_routed, r.operations);
  // A second window on the same sessions counts only its own calls.
  server_->reset_metrics();
  const WindowResult second = run(*engine, 1);
  EXPECT_EQ(second.successes, second.operations);
  EXPECT_EQ(router_metrics().wamp.calls_routed, second.operations);
}

TEST_P(WampEngine, CallsToTheWorkersOwnCalleeAreYieldedBack) {
  WorkloadSpec s = spec(false);
  s.wamp.worker_callee = true;
  s.wamp.procedure = "test.worker.echo";
  auto engine = start(s);
  ASSERT_TRUE(engine);
  EXPECT_EQ(engine->connections(), 4u);  // 3 callers and the callee
  server_->reset_metrics();
  const WindowResult r = run(*engine);
  EXPECT_GT(r.operations, 0u);
  EXPECT_EQ(r.successes, r.operations);
  EXPECT_EQ(total_errors(r), 0u);
  EXPECT_EQ(router_metrics().wamp.calls_routed, r.operations);
}

TEST_P(WampEngine, EveryPublicationReachesEverySubscriber) {
  auto engine = start(spec(true));
  ASSERT_TRUE(engine);
  EXPECT_EQ(engine->connections(), 5u);
  server_->reset_metrics();
  const WindowResult r = run(*engine);
  EXPECT_TRUE(r.pubsub);
  EXPECT_GT(r.events_expected, 0u);
  EXPECT_EQ(r.events_expected % 3, 0u);
  EXPECT_EQ(r.events_delivered, r.events_expected);
  EXPECT_EQ(r.successes, r.events_delivered);
  EXPECT_EQ(r.operations, r.successes);
  EXPECT_EQ(total_errors(r), 0u);
  EXPECT_EQ(router_metrics().wamp.events_delivered, r.events_delivered);
}

// wamp_transfer: every transfer is a session of its own, its chunks checked byte for byte; the
// router sent exactly the bytes the workers verified.
TEST_P(WampEngine, EveryTransferIsVerifiedAndTheRouterSentExactlyItsBytes) {
  WorkloadSpec s = spec(false);
  s.protocol = "wamp_transfer";
  s.connections = 2;
  s.in_flight = 1;
  s.wamp.kind = W::Kind::kTransfer;
  s.wamp.procedure = "bench.transfer";
  s.wamp.request_bytes = 0;
  s.wamp.transfer_bytes = 300'000;  // four chunks of 65536 and a short one
  s.wamp.chunk_bytes = 65'536;
  auto engine = start(s);
  ASSERT_TRUE(engine);
  server_->reset_metrics();
  const WindowResult r = run(*engine);
  EXPECT_GT(r.operations, 0u);
  EXPECT_EQ(r.successes, r.operations);
  EXPECT_EQ(total_errors(r), 0u);
  EXPECT_EQ(static_cast<uint64_t>(r.latency.total_count()), r.successes);
  ASSERT_TRUE(r.transfer);
  EXPECT_EQ(r.transfer->transfers, r.successes);
  EXPECT_EQ(r.transfer->lifecycle_bytes, r.successes * 300'000);
  EXPECT_EQ(r.transfer->data_bytes, r.successes * (300'000 - 65'536));
  EXPECT_GT(r.transfer->data_ns, 0);
  EXPECT_GT(r.transfer->lifecycle_ns, r.transfer->data_ns);
  EXPECT_GT(r.bytes_received, r.successes * 300'000);
  const auto metrics = router_metrics();
  EXPECT_EQ(metrics.wamp.calls_routed, r.operations);
  EXPECT_EQ(metrics.wamp.transfer_bytes, r.successes * 300'000);
}

INSTANTIATE_TEST_SUITE_P(TransportsAndSerializers, WampEngine,
                         ::testing::Values(Combo{W::Transport::kRawSocket, W::Serializer::kJson},
                                           Combo{W::Transport::kRawSocket, W::Serializer::kMsgpack},
                                           Combo{W::Transport::kRawSocket, W::Serializer::kCbor},
                                           Combo{W::Transport::kWebSocket, W::Serializer::kJson},
                                           Combo{W::Transport::kWebSocket, W::Serializer::kMsgpack},
                                           Combo{W::Transport::kWebSocket, W::Serializer::kCbor}),
                         [](const auto& p) { return combo_name(p.param); });

class WampEngineOne : public WampEngine {};

TEST_P(WampEngineOne, OpenLoopPublishingCountsDeliveriesAgainstTheSchedule) {
  WorkloadSpec s = spec(true);
  s.in_flight = 1;
  s.rate = 400;  // 80 publications in 200 ms, 240 deliveries
  s.wamp.acknowledge = false;
  auto engine = start(s);
  ASSERT_TRUE(engine);
  const WindowResult r = run(*engine);
  EXPECT_EQ(r.events_delivered, r.events_expected);
  // Every publication due in the window is published, the late ones during the drain.
  EXPECT_EQ(r.events_expected, 80u * 3u);
  EXPECT_EQ(total_errors(r), 0u);
  EXPECT_EQ(static_cast<uint64_t>(r.service_time.total_count()), r.successes);
}

// A rate beyond what one call in flight per session can carry: what the window owes at its
// end is called during the drain and measured from its intended instant, so every one of
// the 10,000 calls due in the 200 ms is an operation (before, those left over were only
// counted as `unsent`).
TEST_P(WampEngineOne, OpenLoopCallsEveryCallDueInTheWindow) {
  WorkloadSpec s = spec(false);
  s.in_flight = 1;
  s.rate = 50'000;
  auto engine = start(s);
  ASSERT_TRUE(engine);
  server_->reset_metrics();
  const WindowResult r = run(*engine);
  EXPECT_EQ(r.operations, 10'000u);
  EXPECT_EQ(r.successes, r.operations);
  EXPECT_EQ(static_cast<uint64_t>(r.latency.total_count()), r.successes);
  EXPECT_EQ(router_metrics().wamp.calls_routed, r.operations);
  EXPECT_LE(r.window_successes, r.successes);
}

// The router refuses every call (no_such_procedure) and routes none: each is a wamp_error.
TEST_P(WampEngineOne, ACallToAnUnregisteredProcedureIsAWampError) {
  WorkloadSpec s = spec(false);
  s.wamp.procedure = "no.such.procedure";
  auto engine = start(s);
  ASSERT_TRUE(engine);
  server_->reset_metrics();
  const WindowResult r = run(*engine, 0, 50 * kMs);
  EXPECT_GT(r.operations, 0u);
  EXPECT_EQ(r.successes, 0u);
  EXPECT_EQ(r.errors[static_cast<size_t>(ErrorKind::kWampError)], r.operations);
  EXPECT_EQ(router_metrics().wamp.calls_routed, 0u);
}

// A callee that answers every second INVOCATION with an ERROR of its own and yields the others'
// arguments back: the router routed every call, so each ERROR is a callee_error, not the
// wamp_error of a call it refused, and the calls routed are the window's operations, as the
// router-count cross-check compares them (before: each was a wamp_error, which the cross-check
// took for a call the router never counted).
TEST_P(WampEngineOne, ACalleesOwnErrorIsACalleeErrorOfACallTheRouterRouted) {
  using router::wamp::Json;
  router::testing::RawSocketTestClient callee(server_->rawsocket_port(),
                                              router::wamp::Serializer::kMsgpack);
  callee.send(Json::array({1, "realm1", {{"roles", {{"callee", Json::object()}}}}}));
  ASSERT_EQ(callee.read()[0], 2);  // WELCOME
  callee.send(Json::array({64, 1, Json::object(), "test.declining"}));
  ASSERT_EQ(callee.read()[0], 65);  // REGISTERED
  std::atomic<uint64_t> declined{0};
  // Until the router closes the session: [INVOCATION, request, registration, details, args].
  std::thread serving([&callee, &declined] {
    for (uint64_t n = 0;; ++n) {
      const Json invocation = callee.read();
      if (!invocation.is_array() || invocation[0] != 68) return;
      if (n % 2 == 1) {
        callee.send(Json::array({70, invocation[1], Json::object(), invocation[4]}));
        continue;
      }
      ++declined;
      callee.send(Json::array({8, 68, invocation[1], Json::object(), "test.error.declined"}));
    }
  });
  WorkloadSpec s = spec(false);
  s.wamp.procedure = "test.declining";
  auto engine = start(s);
  server_->reset_metrics();
  const WindowResult r = engine ? run(*engine, 0, 50 * kMs) : WindowResult();
  engine.reset();
  const uint64_t routed = router_metrics().wamp.calls_routed;
  server_.reset();  // ends the callee's session, and so its loop
  serving.join();
  EXPECT_GT(declined.load(), 0u);
  EXPECT_EQ(r.errors[static_cast<size_t>(ErrorKind::kCalleeError)], declined.load());
  EXPECT_EQ(r.errors[static_cast<size_t>(ErrorKind::kWampError)], 0u);
  EXPECT_EQ(total_errors(r), declined.load());
  EXPECT_EQ(r.successes + declined.load(), r.operations);
  EXPECT_EQ(routed, r.operations);
}

TEST_P(WampEngineOne, AMegabytePayloadIsEchoedByteForByte) {
  WorkloadSpec s = spec(false);
  s.connections = 1;
  s.threads = 1;
  s.in_flight = 1;
  s.wamp.request_bytes = 3 << 20;
  auto engine = start(s);
  ASSERT_TRUE(engine);
  const WindowResult r = run(*engine, 0, 100 * kMs);
  EXPECT_GT(r.successes, 0u);
  EXPECT_EQ(r.successes, r.operations);
  EXPECT_EQ(total_errors(r), 0u);
}

TEST_P(WampEngineOne, TakenProcedureMakesConnectFailWithTheRoutersReason) {
  WorkloadSpec s = spec(false);
  s.wamp.worker_callee = true;
  s.wamp.procedure = "test.taken";
  auto first = start(s);
  ASSERT_TRUE(first);
  auto second = Engine::start(s);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.message(),
            "the router refused REGISTER of the procedure 'test.taken': ERROR "
            "wamp.error.procedure_already_exists (connected to " +
                s.address + ")");
}

// The bundled router with an auth config: a ticket principal `t` of realm `bench` whose role
// may call and subscribe under "bench." and do nothing else.
class WampEngineAuth : public WampEngine {
 protected:
  void SetUp() override {
    auto auth = router::wamp::auth::parse_auth_config(R"([[realm]]
name = "bench"
[[realm.role]]
name = "caller"
permissions = [{ prefix = "bench.", allow = ["call", "subscribe"] }]
[[realm.principal]]
authid = "t"
role = "caller"
method = "ticket"
secret = "tkt"
)",
                                                      "auth.toml");
    ASSERT_TRUE(auth.ok()) << auth.message();
    router::wamp::WampOptions options;
    options.auth = *auth;
    auto server = router::wamp::WampServer::start(options);
    ASSERT_TRUE(server) << server.message();
    server_ = std::move(*server);
  }

  WorkloadSpec authenticated(bool pubsub) const {
    WorkloadSpec s = spec(pubsub);
    s.wamp.realm = "bench";
    s.wamp.auth = {"ticket", "t", "tkt"};
    return s;
  }

  // The engine's start fails; its message.
  static std::string refusal(const WorkloadSpec& s) {
    auto engine = Engine::start(s);
    EXPECT_FALSE(engine.ok());
    return engine.ok() ? std::string() : engine.message();
  }
};

// A session the router refuses with ABORT (a realm it does not have, a wrong ticket, no
// authentication) fails the start with the ABORT's reason and message, and does not say it
// could not connect: the TCP connection was made (before: "cannot connect to ADDRESS: the
// router answered with ABORT while the WAMP session was set up").
TEST_P(WampEngineAuth, AnAbortedSessionSaysTheRoutersReasonAndMessage) {
  WorkloadSpec s = authenticated(false);
  const std::string connected = " (connected to " + s.address + ")";
  s.wamp.realm = "benchx";
  EXPECT_EQ(refusal(s),
            "the router refused the WAMP session: ABORT wamp.error.no_such_realm: the realm "
            "'benchx' is not in the router's auth config" +
                connected);
  s = authenticated(false);
  s.wamp.auth.secret = "wrong";
  const std::string wrong = refusal(s);
  EXPECT_EQ(
      wrong.rfind("the router refused the WAMP session: ABORT wamp.error.not_authorized: ", 0), 0u)
      << wrong;
  EXPECT_EQ(wrong.find("cannot connect"), std::string::npos) << wrong;
  s = authenticated(false);
  s.wamp.auth = {};
  const std::string anonymous = refusal(s);
  EXPECT_EQ(anonymous.rfind("the router refused the WAMP session: ABORT wamp.error.", 0), 0u)
      << anonymous;
  EXPECT_NE(anonymous.find(connected), std::string::npos) << anonymous;
}

// A refused REGISTER or SUBSCRIBE says the ERROR's URI (before: a guess, "already registered by
// another session?", or no reason at all).
TEST_P(WampEngineAuth, ARefusedRegisterOrSubscribeSaysTheErrorsUri) {
  WorkloadSpec s = authenticated(false);
  const std::string connected = " (connected to " + s.address + ")";
  s.wamp.worker_callee = true;
  s.wamp.procedure = "bench.admin.echo";
  EXPECT_EQ(refusal(s),
            "the router refused REGISTER of the procedure 'bench.admin.echo': ERROR "
            "wamp.error.not_authorized" +
                connected);
  // The router registers nothing under wamp. (router/README.md), whoever asks: one without an
  // auth config.
  auto plain = router::wamp::WampServer::start({});
  ASSERT_TRUE(plain) << plain.message();
  const bool raw = GetParam().transport == W::Transport::kRawSocket;
  s = spec(false);
  s.address =
      "127.0.0.1:" + std::to_string(raw ? (*plain)->rawsocket_port() : (*plain)->websocket_port());
  s.wamp.worker_callee = true;
  s.wamp.procedure = "wamp.my.proc";
  EXPECT_EQ(refusal(s),
            "the router refused REGISTER of the procedure 'wamp.my.proc': ERROR "
            "wamp.error.invalid_uri (connected to " +
                s.address + ")");
  s = authenticated(true);
  s.wamp.topic = "other.topic";
  EXPECT_EQ(refusal(s),
            "the router refused SUBSCRIBE to the topic 'other.topic': ERROR "
            "wamp.error.not_authorized" +
                connected);
}

INSTANTIATE_TEST_SUITE_P(Some, WampEngineAuth,
                         ::testing::Values(Combo{W::Transport::kRawSocket, W::Serializer::kCbor},
                                           Combo{W::Transport::kWebSocket, W::Serializer::kJson}),
                         [](const auto& p) { return combo_name(p.param); });

// A callee that answers the transfer's CALL with one plain RESULT (its arguments echoed, no
// chunks): nothing was verified, so every transfer is a chunk_mismatch, never a success.
TEST_P(WampEngineOne, ATransferAnsweredWithoutItsChunksIsAChunkMismatch) {
  WorkloadSpec callee = spec(false);
  callee.wamp.worker_callee = true;
  callee.wamp.procedure = "test.not.a.transfer";
  callee.connections = 1;
  callee.threads = 1;
  auto echo = start(callee);
  ASSERT_TRUE(echo);
  WorkloadSpec s = spec(false);
  s.protocol = "wamp_transfer";
  s.connections = 1;
  s.threads = 1;
  s.in_flight = 1;
  s.wamp.kind = W::Kind::kTransfer;
  s.wamp.procedure = "test.not.a.transfer";
  s.wamp.request_bytes = 0;
  s.wamp.transfer_bytes = 1000;
  s.wamp.chunk_bytes = 100;
  auto engine = start(s);
  ASSERT_TRUE(engine);
  const WindowResult r = run(*engine, 0, 50 * kMs);
  EXPECT_GT(r.operations, 0u);
  EXPECT_EQ(r.successes, 0u);
  EXPECT_EQ(r.errors[static_cast<size_t>(ErrorKind::kChunkMismatch)], r.operations);
  EXPECT_EQ(total_errors(r), r.operations);
  ASSERT_TRUE(r.transfer);
  EXPECT_EQ(r.transfer->transfers, 0u);
}

TEST_P(WampEngineOne, ATransferOfAnUnregisteredProcedureIsAWampError) {
  WorkloadSpec s = spec(false);
  s.protocol = "wamp_transfer";
  s.connections = 1;
  s.threads = 1;
  s.in_flight = 1;
  s.wamp.kind = W::Kind::kTransfer;
  s.wamp.procedure = "no.such.transfer";
  s.wamp.request_bytes = 0;
  s.wamp.transfer_bytes = 1000;
  s.wamp.chunk_bytes = 100;
  auto engine = start(s);
  ASSERT_TRUE(engine);
  const WindowResult r = run(*engine, 0, 50 * kMs);
  EXPECT_GT(r.operations, 0u);
  EXPECT_EQ(r.errors[static_cast<size_t>(ErrorKind::kWampError)], r.operations);
}

// A session per call whose router went away: each connection tries one connect per window and
// counts it as a failed operation, as a connection of any other workload tries one reconnect
// per window. Before, the failed connect started the next session at once, and a window
// counted connect errors as fast as the kernel refused them.
TEST_P(WampEngineOne, ASessionPerCallTriesOneConnectPerWindowWhileTheRouterIsGone) {
  const WorkloadSpec s = session_per_call();
  auto engine = start(s);
  ASSERT_TRUE(engine);
  server_->stop();
  server_.reset();
  for (uint32_t window = 0; window < 2; ++window) {
    const WindowResult r = run(*engine, window, 100 * kMs);
    EXPECT_EQ(r.operations, s.connections) << "window " << window;
    EXPECT_EQ(r.successes, 0u);
    EXPECT_EQ(r.errors[static_cast<size_t>(ErrorKind::kConnect)], s.connections);
    EXPECT_EQ(total_errors(r), s.connections);
  }
}

// A session per call: every call is one whole session, each timed from its connect to WELCOME;
// a second window sets up exactly as many sessions as it made calls.
TEST_P(WampEngineOne, ASessionPerCallTimesEverySessionAndEchoesEveryPayload) {
  const WorkloadSpec s = session_per_call();
  auto engine = start(s);
  ASSERT_TRUE(engine);
  // Ready once each connection's readiness session has joined and left again with GOODBYE,
  // which the router counted before it answered.
  const int goodbye = router::wamp::message_slot(router::wamp::MessageType::kGoodbye);
  EXPECT_EQ(router_metrics().wamp.messages[goodbye][0], s.connections);
  const WindowResult first = run(*engine, 0, 100 * kMs);
  ASSERT_TRUE(first.session_setup);
  EXPECT_GE(static_cast<uint64_t>(first.session_setup->total_count()), first.operations + 3);
  server_->reset_metrics();
  const WindowResult r = run(*engine, 1, 100 * kMs);
  EXPECT_GT(r.operations, 0u);
  EXPECT_EQ(r.successes, r.operations);
  EXPECT_EQ(total_errors(r), 0u);
  EXPECT_EQ(router_metrics().wamp.calls_routed, r.operations);
  ASSERT_TRUE(r.session_setup);
  EXPECT_EQ(static_cast<uint64_t>(r.session_setup->total_count()), r.operations);
  // Each call's session is a lifecycle: the echoed payload once per call, over the call's
  // round trip and over the whole session (docs/MEASUREMENT.md "Transfer throughput").
  ASSERT_TRUE(r.transfer);
  EXPECT_EQ(r.transfer->transfers, r.operations);
  EXPECT_EQ(r.transfer->data_bytes, r.operations * s.wamp.request_bytes);
  EXPECT_EQ(r.transfer->lifecycle_bytes, r.operations * s.wamp.request_bytes);
  EXPECT_GT(r.transfer->data_ns, 0);
  EXPECT_GT(r.transfer->lifecycle_ns, r.transfer->data_ns);
}

// Sessions kept across windows are timed once, when they are set up.
TEST_P(WampEngineOne, KeptSessionsAreTimedOnce) {
  auto engine = start(spec(false));
  ASSERT_TRUE(engine);
  const WindowResult first = run(*engine, 0, 50 * kMs);
  ASSERT_TRUE(first.session_setup);
  EXPECT_EQ(first.session_setup->total_count(), 3);
  const WindowResult second = run(*engine, 1, 50 * kMs);
  ASSERT_TRUE(second.session_setup);
  EXPECT_EQ(second.session_setup->total_count(), 0);
}

INSTANTIATE_TEST_SUITE_P(Some, WampEngineOne,
                         ::testing::Values(Combo{W::Transport::kRawSocket, W::Serializer::kCbor},
                                           Combo{W::Transport::kWebSocket, W::Serializer::kJson}),
                         [](const auto& p) { return combo_name(p.param); });

// A RawSocket MessagePack "router" of one session, written here: it welcomes the caller and
// answers each CALL with a RESULT whose payload is the CALL's in another form than the worker
// writes (bin16 where the worker writes bin8), or with one byte of it changed. The worker reads
// its answers in place only in its own form (worker/wamp/session.h); these go to the document
// path, which must still find the first equal and the second a mismatch.
void serve_results(asio::ip::tcp::acceptor& acceptor, bool change_payload) {
  using nlohmann::json;
  asio::ip::tcp::socket socket(acceptor.get_executor());
  boost::system::error_code ec;
  acceptor.accept(socket, ec);
  if (ec) return;
  std::array<uint8_t, 4> handshake{};
  asio::read(socket, asio::buffer(handshake), ec);
  asio::write(socket, asio::buffer(handshake), ec);  // the same serializer and length back
  auto send = [&](const std::vector<uint8_t>& message) {
    const uint32_t n = static_cast<uint32_t>(message.size());
    const std::array<uint8_t, 4> header{0, static_cast<uint8_t>(n >> 16),
                                        static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n)};
    asio::write(socket, std::array{asio::buffer(header), asio::buffer(message)}, ec);
  };
  for (;;) {
    std::array<uint8_t, 4> header{};
    asio::read(socket, asio::buffer(header), ec);
    if (ec) return;
    std::vector<uint8_t> body((size_t{header[1]} << 16) | (size_t{header[2]} << 8) | header[3]);
    asio::read(socket, asio::buffer(body), ec);
    if (ec) return;
    const json message = json::from_msgpack(body, true, false);
    if (!message.is_array() || message.empty()) return;
    const uint64_t type = message[0].get<uint64_t>();
    if (type == 1) {  // HELLO
      send(json::to_msgpack(json::array({2, 1, json::object()})));
    } else if (type == 48) {  // CALL: [48, id, {}, procedure, [payload]]
      std::vector<uint8_t> payload = message[4][0].get_binary();
      if (change_payload && !payload.empty()) payload[payload.size() / 2] ^= 1;
      std::vector<uint8_t> result = json::to_msgpack(json::array({50, message[1], json::object()}));
      result[0] = 0x94;  // four elements: [payload] follows
      const auto n = static_cast<uint16_t>(payload.size());
      result.insert(result.end(),
                    {0x91, 0xc5, static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n)});
      result.insert(result.end(), payload.begin(), payload.end());
      send(result);
    }
  }
}

TEST(WampAnswers, APayloadInAnotherFormIsComparedAsItsValue) {
  for (const bool change : {false, true}) {
    SCOPED_TRACE(change ? "changed payload" : "same payload in bin16");
    asio::io_context io;
    asio::ip::tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
    std::thread router([&] { serve_results(acceptor, change); });
    WorkloadSpec s;
    s.name = "forms";
    s.protocol = "wamp_rpc";
    s.address = "127.0.0.1:" + std::to_string(acceptor.local_endpoint().port());
    s.connections = 1;
    s.threads = 1;
    s.in_flight = 1;
    s.drain_timeout_ns = 3000 * kMs;
    s.connect_timeout_ns = 3000 * kMs;
    s.wamp.transport = W::Transport::kRawSocket;
    s.wamp.serializer = W::Serializer::kMsgpack;
    s.wamp.request_bytes = 100;
    auto engine = start(s);
    ASSERT_TRUE(engine);
    const WindowResult r = run(*engine, 0, 50 * kMs);
    engine.reset();
    router.join();
    EXPECT_GT(r.operations, 0u);
    if (change) {
      EXPECT_EQ(r.successes, 0u);
      EXPECT_EQ(r.errors[static_cast<size_t>(ErrorKind::kMismatch)], r.operations);
    } else {
      EXPECT_EQ(r.successes, r.operations);
      EXPECT_EQ(total_errors(r), 0u);
    }
  }
}

TEST(WampValidation, RawSocketRefusesPayloadsPastItsFrameLength) {
  WorkloadSpec s;
  s.name = "big";
  s.protocol = "wamp_rpc";
  s.address = "127.0.0.1:1";
  s.wamp.transport = W::Transport::kRawSocket;
  s.wamp.serializer = W::Serializer::kMsgpack;
  s.wamp.request_bytes = 16 << 20;
  auto engine = Engine::start(s);
  ASSERT_FALSE(engine.ok());
  EXPECT_NE(engine.message().find("websocket"), std::string::npos) << engine.message();
}

TEST(WampValidation, TransferChunksMustFitTheTransferAndOneAtATime) {
  WorkloadSpec s;
  s.name = "t";
  s.protocol = "wamp_transfer";
  s.address = "127.0.0.1:1";
  s.wamp.kind = W::Kind::kTransfer;
  s.wamp.procedure = "bench.transfer";
  s.wamp.transfer_bytes = 1000;
  s.wamp.chunk_bytes = 2000;
  auto engine = Engine::start(s);
  ASSERT_FALSE(engine.ok());
  EXPECT_NE(engine.message().find("chunk_bytes must be from 1 byte to transfer_bytes"),
            std::string::npos)
      << engine.message();
  s.wamp.chunk_bytes = 100;
  s.in_flight = 2;
  engine = Engine::start(s);
  ASSERT_FALSE(engine.ok());
  EXPECT_NE(engine.message().find("in_flight = 1"), std::string::npos) << engine.message();
  s.in_flight = 1;
  s.wamp.kind = W::Kind::kRpc;  // must agree with the protocol
  engine = Engine::start(s);
  ASSERT_FALSE(engine.ok());
  EXPECT_NE(engine.message().find("wamp.kind must be transfer"), std::string::npos)
      << engine.message();
}

TEST(WampValidation, ClosedLoopPublishingNeedsAcknowledgements) {
  WorkloadSpec s;
  s.name = "p";
  s.protocol = "wamp_pubsub";
  s.address = "127.0.0.1:1";
  s.wamp.kind = W::Kind::kPubSub;
  s.wamp.publishers = 1;
  s.wamp.subscribers = 1;
  auto engine = Engine::start(s);
  ASSERT_FALSE(engine.ok());
  EXPECT_NE(engine.message().find("acknowledge"), std::string::npos) << engine.message();
}

}  // namespace
}  // namespace benchgate::worker
