// The worker's side of the WAMP advanced profile's RPC features, against the bundled router's
// WAMP server in the same process on 127.0.0.1: shared registrations over several worker
// callee sessions (each counts its invocations), call timeouts provoked by a slow callee, and
// call cancellation in each mode. The delays are an order of magnitude apart (a callee slower
// than the timeout or the cancel by 10x and more), so every call's outcome is decided and the
// counts are exact; nothing asserts on speed.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <string>

#include "router/wamp/wamp_server.h"
#include "wamp_engine_test_support.h"
#include "worker/engine/engine.h"
#include "worker/engine/validate.h"
#include "worker/wamp/codec.h"
#include "worker/wamp/message_writer.h"

namespace benchgate::worker {
namespace {

using test_support::kMs;
using test_support::run;
using test_support::start;
using test_support::total_errors;
using W = WampRequestSpec;

uint64_t errors_of(const WindowResult& r, ErrorKind kind) {
  return r.errors[static_cast<size_t>(kind)];
}

uint64_t sum(const std::vector<uint64_t>& v) {
  return std::accumulate(v.begin(), v.end(), uint64_t{0});
}

class WampShared : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = router::wamp::WampServer::start({});
    ASSERT_TRUE(server) << server.message();
    server_ = std::move(*server);
  }

  WorkloadSpec spec(W::Transport transport = W::Transport::kWebSocket,
                    W::Serializer serializer = W::Serializer::kMsgpack) const {
    WorkloadSpec s;
    s.name = "shared";
    s.protocol = "wamp_rpc";
    const bool raw = transport == W::Transport::kRawSocket;
    s.address =
        "127.0.0.1:" + std::to_string(raw ? server_->rawsocket_port() : server_->websocket_port());
    s.connections = 3;
    s.threads = 2;
    s.in_flight = 2;
    s.drain_timeout_ns = 3000 * kMs;
    s.connect_timeout_ns = 3000 * kMs;
    s.wamp.kind = W::Kind::kRpc;
    s.wamp.transport = transport;
    s.wamp.serializer = serializer;
    s.wamp.request_bytes = 512;
    s.wamp.worker_callee = true;
    s.wamp.procedure = "test.shared.echo";
    return s;
  }

  router::metrics::Snapshot router_metrics() {
    router::metrics::Snapshot snapshot;
    server_->add_metrics(snapshot);
    return snapshot;
  }

  std::unique_ptr<router::wamp::WampServer> server_;
};

// Round robin over 3 callees: every callee gets calls / 3, rounded down or up (the router's
// rotation goes on across windows), and together exactly the calls, which the router routed.
TEST_F(WampShared, RoundRobinSplitsTheCallsEvenlyOverTheCallees) {
  for (const auto transport : {W::Transport::kWebSocket, W::Transport::kRawSocket}) {
    for (const auto serializer :
         {W::Serializer::kJson, W::Serializer::kMsgpack, W::Serializer::kCbor}) {
      WorkloadSpec s = spec(transport, serializer);
      s.wamp.callee_sessions = 3;
      s.wamp.invoke = "roundrobin";
      auto engine = start(s);
      ASSERT_TRUE(engine);
      EXPECT_EQ(engine->connections(), 6u);  // 3 callers and 3 callees
      for (uint32_t window = 0; window < 2; ++window) {
        server_->reset_metrics();
        const WindowResult r = run(*engine, window, 100 * kMs);
        ASSERT_EQ(r.callee_invocations.size(), 3u);
        EXPECT_GT(r.operations, 0u);
        EXPECT_EQ(r.successes, r.operations);
        EXPECT_EQ(total_errors(r), 0u);
        EXPECT_EQ(sum(r.callee_invocations), r.operations);
        EXPECT_EQ(router_metrics().wamp.calls_routed, r.operations);
        const auto [fewest, most] =
            std::minmax_element(r.callee_invocations.begin(), r.callee_invocations.end());
        EXPECT_EQ(*fewest, r.operations / 3) << window;
        EXPECT_LE(*most - *fewest, 1u) << window;
      }
    }
  }
}

TEST_F(WampShared, RandomReachesEveryCalleeAndFirstOnlyOne) {
  WorkloadSpec s = spec();
  s.wamp.callee_sessions = 3;
  s.wamp.invoke = "random";
  auto engine = start(s);
  ASSERT_TRUE(engine);
  server_->reset_metrics();
  WindowResult r = run(*engine, 0, 300 * kMs);
  ASSERT_EQ(r.callee_invocations.size(), 3u);
  // Enough calls that a callee left out is no chance: 3 x (2/3)^60 < 1e-10.
  ASSERT_GE(r.operations, 60u);
  EXPECT_EQ(sum(r.callee_invocations), r.operations);
  for (const uint64_t n : r.callee_invocations) EXPECT_GT(n, 0u);
  EXPECT_EQ(router_metrics().wamp.calls_routed, r.operations);
  engine.reset();

  s.wamp.procedure = "test.shared.first";
  s.wamp.invoke = "first";
  engine = start(s);
  ASSERT_TRUE(engine);
  r = run(*engine);
  ASSERT_EQ(r.callee_invocations.size(), 3u);
  EXPECT_EQ(sum(r.callee_invocations), r.operations);
  // One callee (the first to register, whichever session that was) answered every call.
  EXPECT_EQ(*std::max_element(r.callee_invocations.begin(), r.callee_invocations.end()),
            r.operations);
}

TEST_F(WampShared, ASingleCalleeCountsEveryInvocation) {
  auto engine = start(spec());
  ASSERT_TRUE(engine);
  EXPECT_EQ(engine->connections(), 4u);
  const WindowResult r = run(*engine);
  ASSERT_EQ(r.callee_invocations.size(), 1u);
  EXPECT_EQ(r.callee_invocations[0], r.operations);
  EXPECT_EQ(r.successes, r.operations);
}

// A callee 10x slower than the call's timeout: every call ends with the dealer's ERROR
// wamp.error.timeout, a call_timeout error (not a wamp_error), none with a latency; the
// router timed out as many and the callees had each one.
TEST_F(WampShared, ACalleeSlowerThanTheTimeoutMakesEveryCallATimeout) {
  WorkloadSpec s = spec();
  s.wamp.callee_sessions = 2;
  s.wamp.invoke = "roundrobin";
  s.wamp.call_timeout_ms = 20;
  s.wamp.callee_delay_ns = 200 * kMs;
  auto engine = start(s);
  ASSERT_TRUE(engine);
  server_->reset_metrics();
  const WindowResult r = run(*engine, 0, 150 * kMs);
  EXPECT_GT(r.operations, 0u);
  EXPECT_EQ(r.successes, 0u);
  EXPECT_EQ(errors_of(r, ErrorKind::kCallTimeout), r.operations);
  EXPECT_EQ(total_errors(r), r.operations);
  EXPECT_EQ(r.latency.total_count(), 0);
  EXPECT_EQ(sum(r.callee_invocations), r.operations);
  const auto metrics = router_metrics();
  EXPECT_EQ(metrics.wamp.calls_timed_out, r.operations);
  EXPECT_EQ(metrics.wamp.calls_routed, r.operations);
}

// The same timeout and a callee that answers at once: no call times out.
TEST_F(WampShared, ATimeoutTheCalleeBeatsChangesNothing) {
  WorkloadSpec s = spec(W::Transport::kRawSocket, W::Serializer::kJson);
  s.wamp.call_timeout_ms = 2000;
  auto engine = start(s);
  ASSERT_TRUE(engine);
  server_->reset_metrics();
  const WindowResult r = run(*engine);
  EXPECT_GT(r.operations, 0u);
  EXPECT_EQ(r.successes, r.operations);
  EXPECT_EQ(router_metrics().wamp.calls_timed_out, 0u);
}

// cancel_after 10 ms and a callee 30x slower: every call is cancelled, in each mode (kill:
// the callee's ERROR after its INTERRUPT is what the caller gets), counted as canceled and
// by the router's wamp_calls_canceled, one for one.
TEST_F(WampShared, EveryCallUnansweredAtCancelAfterIsCancelledInEachMode) {
  for (const char* mode : {"killnowait", "kill", "skip"}) {
    WorkloadSpec s = spec(W::Transport::kWebSocket, W::Serializer::kCbor);
    s.wamp.procedure = std::string("test.cancel.") + mode;
    s.wamp.cancel_after_ns = 10 * kMs;
    s.wamp.cancel_mode = mode;
    s.wamp.callee_delay_ns = 300 * kMs;
    auto engine = start(s);
    ASSERT_TRUE(engine) << mode;
    server_->reset_metrics();
    const WindowResult r = run(*engine, 0, 150 * kMs);
    EXPECT_GT(r.operations, 0u) << mode;
    EXPECT_EQ(r.successes, 0u) << mode;
    EXPECT_EQ(errors_of(r, ErrorKind::kCanceled), r.operations) << mode;
    EXPECT_EQ(total_errors(r), r.operations) << mode;
    EXPECT_EQ(sum(r.callee_invocations), r.operations) << mode;
    const auto metrics = router_metrics();
    EXPECT_EQ(metrics.wamp.calls_canceled, r.operations) << mode;
    EXPECT_EQ(metrics.wamp.calls_timed_out, 0u) << mode;
  }
}

// A slow callee without a timeout: every call still succeeds, and none sooner than the delay
// (the callee's timer never fires early; a bound by construction, not a speed).
TEST_F(WampShared, ADelayedCalleeAnswersEveryCallNoSoonerThanItsDelay) {
  WorkloadSpec s = spec(W::Transport::kRawSocket, W::Serializer::kMsgpack);
  s.wamp.callee_delay_ns = 15 * kMs;
  auto engine = start(s);
  ASSERT_TRUE(engine);
  const WindowResult r = run(*engine, 0, 100 * kMs);
  EXPECT_GT(r.operations, 0u);
  EXPECT_EQ(r.successes, r.operations);
  EXPECT_EQ(total_errors(r), 0u);
  EXPECT_GE(r.latency.min(), 15 * kMs * 999 / 1000);  // within the histogram's 3 digits
  EXPECT_EQ(sum(r.callee_invocations), r.operations);
}

// A CANCEL due after the answer came is never sent: a fast callee's calls all succeed.
TEST_F(WampShared, ACallAnsweredBeforeItsCancelIsASuccess) {
  WorkloadSpec s = spec();
  s.wamp.cancel_after_ns = 2000 * kMs;
  auto engine = start(s);
  ASSERT_TRUE(engine);
  server_->reset_metrics();
  const WindowResult r = run(*engine);
  EXPECT_GT(r.operations, 0u);
  EXPECT_EQ(r.successes, r.operations);
  EXPECT_EQ(router_metrics().wamp.calls_canceled, 0u);
}

TEST(WampMessageWriter, ACallTemplateCarriesItsTimeoutInTheOptions) {
  const std::vector<uint8_t> payload = {'a', 'b', 'c'};
  for (const auto serializer :
       {W::Serializer::kJson, W::Serializer::kMsgpack, W::Serializer::kCbor}) {
    const auto t = wamp::call_template(serializer, "p.q", payload, 25);
    std::vector<uint8_t> bytes = t.head;
    bytes.insert(bytes.end(), t.tail.begin(), t.tail.end());
    wamp::Json message;
    ASSERT_TRUE(wamp::decode(serializer, bytes, message));
    ASSERT_TRUE(message.is_array());
    ASSERT_EQ(message.size(), 5u);
    EXPECT_EQ(message[2], (wamp::Json{{"timeout", 25}}));
    EXPECT_EQ(message[3], "p.q");
    const auto plain = wamp::call_template(serializer, "p.q", payload);
    bytes = plain.head;
    bytes.insert(bytes.end(), plain.tail.begin(), plain.tail.end());
    ASSERT_TRUE(wamp::decode(serializer, bytes, message));
    EXPECT_EQ(message[2], wamp::Json::object());
  }
}

WorkloadSpec valid_spec() {
  WorkloadSpec s;
  s.name = "v";
  s.protocol = "wamp_rpc";
  s.address = "127.0.0.1:1";
  s.wamp.worker_callee = true;
  s.wamp.procedure = "p.q";
  return s;
}

void expect_refused(const WorkloadSpec& s, const std::string& part) {
  const auto valid = validate_workload(s);
  ASSERT_FALSE(valid.ok()) << part;
  EXPECT_NE(valid.message().find(part), std::string::npos) << valid.message();
}

TEST(WampSharedValidation, RefusesWhatTheRouterOrTheWorkerCannotDo) {
  ASSERT_TRUE(validate_workload(valid_spec()).ok());
  WorkloadSpec s = valid_spec();
  s.wamp.invoke = "everyone";
  expect_refused(s, "wamp.invoke 'everyone'");
  s = valid_spec();
  s.wamp.callee_sessions = 2;
  expect_refused(s, "shared invoke policy");
  s.wamp.invoke = "roundrobin";
  EXPECT_TRUE(validate_workload(s).ok());
  s.wamp.callee_sessions = 0;
  expect_refused(s, "callee_sessions must be from 1");
  s = valid_spec();
  s.wamp.worker_callee = false;
  s.wamp.callee_delay_ns = kMs;
  expect_refused(s, "need callee \"worker\"");
  s = valid_spec();
  s.wamp.callee_delay_ns = -1;
  expect_refused(s, "callee_delay_ns");
  s = valid_spec();
  s.wamp.cancel_after_ns = kMs;
  s.wamp.cancel_mode = "later";
  expect_refused(s, "wamp.cancel_mode 'later'");
  s = valid_spec();
  s.wamp.session_per_operation = true;
  s.in_flight = 1;
  s.wamp.call_timeout_ms = 5;
  expect_refused(s, "session_per_operation");
}

}  // namespace
}  // namespace benchgate::worker
