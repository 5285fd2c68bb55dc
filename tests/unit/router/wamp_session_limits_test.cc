// What one WAMP session may hold on the router, in-process over RawSocket: its pending calls
// (--max-pending-calls-per-session), registrations and subscriptions (--max-registrations-,
// --max-subscriptions-per-session), each refused with an ERROR past its limit and counted; the
// caller's and callee's lists of pending calls that CANCEL and leaving walk; and the session's
// registrations and subscriptions taken out in any order.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "router/control/metrics_proto.h"
#include "wamp_test_client.h"

namespace benchgate::router::wamp {
namespace {
// Named, so that these names meet none of the other test files' in a unity batch.
namespace session_limits {

using router::testing::RawSocketTestClient;
using router::testing::wait_for_wamp;

constexpr auto kCbor = Serializer::kCbor;
constexpr int kCall = 48;
constexpr int kError = 8;
constexpr int kInvocation = 68;
constexpr int kResult = 50;
constexpr int kYield = 70;

uint64_t refusals(const metrics::Snapshot& s, metrics::SessionLimit limit) {
  return s.wamp.limit_refusals[static_cast<size_t>(limit)];
}

// The refusals as the control snapshot exports them: wamp_limit_refusals by its `limit` label.
std::map<std::string, uint64_t> exported_refusals(const metrics::Snapshot& snapshot) {
  benchgate::v1::MetricsSnapshot proto;
  control::to_proto(snapshot, proto);
  std::map<std::string, uint64_t> limits;
  for (const auto& counter : proto.counters()) {
    if (counter.name() == "wamp_limit_refusals")
      limits[counter.labels().at("limit")] = counter.value();
  }
  return limits;
}

class SessionLimitsTest : public ::testing::Test {
 protected:
  void start(const WampOptions& options) {
    auto server = WampServer::start(options);
    ASSERT_TRUE(server) << server.message();
    server_ = std::move(*server);
  }
  uint16_t port() const { return server_->rawsocket_port(); }
  // Starts the router and a joined callee that registered t.never, a procedure that is
  // answered only when a test YIELDs for it: callee_.
  void start_with_callee(const WampOptions& options) {
    ASSERT_NO_FATAL_FAILURE(start(options));
    callee_.emplace(port(), kCbor);
    ASSERT_NE(callee_->join(), 0u);
    ASSERT_NE(register_procedure(*callee_, 1, "t.never"), 0u);
  }
  // The same under a limit of `limit` pending calls per session, and a joined caller: caller_.
  void start_with_callee_and_caller(uint32_t limit) {
    WampOptions options;
    options.max_pending_calls_per_session = limit;
    ASSERT_NO_FATAL_FAILURE(start_with_callee(options));
    caller_.emplace(port(), kCbor);
    ASSERT_NE(caller_->join(), 0u);
  }

  // REGISTER; the registration id, or 0 with the ERROR's URI in `error`.
  static uint64_t register_procedure(RawSocketTestClient& client, uint64_t request,
                                     const std::string& procedure, std::string* error = nullptr) {
    client.send(Json::array({64, request, Json::object(), procedure}));
    const Json answer = client.read();
    if (answer[0] == 65) return answer[2].get<uint64_t>();
    if (error != nullptr && answer[0] == kError) *error = answer[4].get<std::string>();
    return 0;
  }
  static uint64_t subscribe(RawSocketTestClient& client, uint64_t request, const std::string& topic,
                            std::string* error = nullptr) {
    client.send(Json::array({32, request, Json::object(), topic}));
    const Json answer = client.read();
    if (answer[0] == 33) return answer[2].get<uint64_t>();
    if (error != nullptr && answer[0] == kError) *error = answer[4].get<std::string>();
    return 0;
  }

  std::unique_ptr<WampServer> server_;
  // After server_: the clients leave before the router stops.
  std::optional<RawSocketTestClient> callee_;
  std::optional<RawSocketTestClient> caller_;
};

TEST_F(SessionLimitsTest, ACallPastTheCallersPendingLimitIsRefusedAndCounted) {
  ASSERT_NO_FATAL_FAILURE(start_with_callee_and_caller(2));
  RawSocketTestClient& callee = *callee_;
  RawSocketTestClient& caller = *caller_;

  // Two calls the callee does not answer fill the caller's limit.
  caller.send(Json::array({kCall, 1, Json::object(), "t.never"}));
  const Json first = callee.read();
  ASSERT_EQ(first[0], kInvocation);
  caller.send(Json::array({kCall, 2, Json::object(), "t.never"}));
  ASSERT_EQ(callee.read()[0], kInvocation);
  // The third is refused, a routed call (read in place) as a bench.transfer (the document
  // path).
  caller.send(Json::array({kCall, 3, Json::object(), "t.never"}));
  Json refused = caller.read();
  ASSERT_EQ(refused[0], kError);
  EXPECT_EQ(refused[1], kCall);
  EXPECT_EQ(refused[2], 3);
  EXPECT_EQ(refused[4], "benchgate.error.too_many_pending_calls");
  caller.send(Json::array(
      {kCall, 4, {{"receive_progress", true}}, "bench.transfer", Json::array({64, 16})}));
  refused = caller.read();
  ASSERT_EQ(refused[0], kError);
  EXPECT_EQ(refused[2], 4);
  EXPECT_EQ(refused[4], "benchgate.error.too_many_pending_calls");
  // bench.echo is answered at once and holds nothing: never refused.
  caller.send(Json::array({kCall, 5, Json::object(), "bench.echo"}));
  EXPECT_EQ(caller.read()[0], kResult);

  // The limit is the caller's: another caller still calls the same callee.
  RawSocketTestClient other(port(), kCbor);
  ASSERT_NE(other.join(), 0u);
  other.send(Json::array({kCall, 1, Json::object(), "t.never"}));
  ASSERT_EQ(callee.read()[0], kInvocation);

  // An answered call and a canceled one each give their place back.
  callee.send(Json::array({kYield, first[1], Json::object()}));
  const Json result = caller.read();
  ASSERT_EQ(result[0], kResult);
  EXPECT_EQ(result[1], 1);
  caller.send(Json::array({kCall, 6, Json::object(), "t.never"}));
  ASSERT_EQ(callee.read()[0], kInvocation);
  caller.send(Json::array({49, 2, {{"mode", "skip"}}}));
  const Json canceled = caller.read();
  EXPECT_EQ(canceled[2], 2);
  EXPECT_EQ(canceled[4], "wamp.error.canceled");
  caller.send(Json::array({kCall, 7, Json::object(), "t.never"}));
  ASSERT_EQ(callee.read()[0], kInvocation);
  caller.send(Json::array({kCall, 8, Json::object(), "t.never"}));
  EXPECT_EQ(caller.read()[4], "benchgate.error.too_many_pending_calls");

  const auto snapshot = wait_for_wamp(*server_, [](const auto& s) {
    return refusals(s, metrics::SessionLimit::pending_calls) == 3;
  });
  EXPECT_EQ(refusals(snapshot, metrics::SessionLimit::pending_calls), 3u);
  EXPECT_EQ(refusals(snapshot, metrics::SessionLimit::registrations), 0u);
  EXPECT_EQ(refusals(snapshot, metrics::SessionLimit::subscriptions), 0u);
  EXPECT_EQ(exported_refusals(snapshot),
            (std::map<std::string, uint64_t>{{"pending_calls", 3},
                                             {"registrations", 0},
                                             {"subscriptions", 0},
                                             {"router_pending_calls", 0}}));
}

// --max-pending-calls counts the calls of every caller together: past it a caller within its
// own limit is refused with a URI of its own, counted under a label of its own (in the control
// snapshot as on /metrics), and an answered call gives its place back to any caller.
TEST_F(SessionLimitsTest, ACallPastTheRoutersPendingLimitIsRefusedAndCountedApart) {
  WampOptions options;
  options.max_pending_calls = 2;
  ASSERT_NO_FATAL_FAILURE(start_with_callee(options));
  RawSocketTestClient& callee = *callee_;
  RawSocketTestClient a(port(), kCbor);
  ASSERT_NE(a.join(), 0u);
  RawSocketTestClient b(port(), kCbor);
  ASSERT_NE(b.join(), 0u);

  a.send(Json::array({kCall, 1, Json::object(), "t.never"}));
  const Json first = callee.read();
  ASSERT_EQ(first[0], kInvocation);
  // A bench.transfer under way holds a place too (1 GiB: more than the sockets' buffers hold
  // while b reads nothing, so it is still under way).
  b.send(Json::array(
      {kCall, 1, {{"receive_progress", true}}, "bench.transfer", Json::array({1 << 30, 4096})}));
  ASSERT_EQ(b.read()[0], kResult);
  EXPECT_EQ(server_->calls_pending(), 2u);
  // Both callers are far from their own limit (4096): the router's refuses them.
  b.send(Json::array({kCall, 2, Json::object(), "t.never"}));
  Json refused;
  do refused = b.read();
  while (refused[0] == kResult);  // the transfer's queued chunks come first
  ASSERT_EQ(refused[0], kError);
  EXPECT_EQ(refused[1], kCall);
  EXPECT_EQ(refused[2], 2);
  EXPECT_EQ(refused[4], "benchgate.error.router_too_many_pending_calls");
  a.send(Json::array({kCall, 2, Json::object(), "t.never"}));
  EXPECT_EQ(a.read()[4], "benchgate.error.router_too_many_pending_calls");
  // bench.echo holds nothing: never refused.
  a.send(Json::array({kCall, 3, Json::object(), "bench.echo"}));
  EXPECT_EQ(a.read()[0], kResult);

  // a's call is answered: b may call now.
  callee.send(Json::array({kYield, first[1], Json::object()}));
  ASSERT_EQ(a.read()[0], kResult);
  EXPECT_EQ(server_->calls_pending(), 1u);
  b.send(Json::array({kCall, 3, Json::object(), "t.never"}));
  EXPECT_EQ(callee.read()[0], kInvocation);
  EXPECT_EQ(server_->calls_pending(), 2u);
  // b leaves with its transfer and its call: both places are free again.
  b.close();
  const auto left = wait_for_wamp(*server_, [](const auto& s) { return s.wamp_sessions == 2; });
  ASSERT_EQ(left.wamp_sessions, 2);
  EXPECT_EQ(server_->calls_pending(), 0u);

  const auto snapshot = wait_for_wamp(*server_, [](const auto& s) {
    return refusals(s, metrics::SessionLimit::router_pending_calls) == 2;
  });
  EXPECT_EQ(refusals(snapshot, metrics::SessionLimit::router_pending_calls), 2u);
  EXPECT_EQ(refusals(snapshot, metrics::SessionLimit::pending_calls), 0u);
  EXPECT_EQ(exported_refusals(snapshot),
            (std::map<std::string, uint64_t>{{"pending_calls", 0},
                                             {"registrations", 0},
                                             {"subscriptions", 0},
                                             {"router_pending_calls", 2}}));
}

// At a limit of one, the caller's one pending call ends by its timeout (wamp.error.timeout):
// its place is given back, so the next call is routed, not refused.
TEST_F(SessionLimitsTest, ACallThatTimedOutGivesItsPlaceBack) {
  ASSERT_NO_FATAL_FAILURE(start_with_callee_and_caller(1));
  RawSocketTestClient& callee = *callee_;
  RawSocketTestClient& caller = *caller_;

  caller.send(Json::array({kCall, 1, {{"timeout", 50}}, "t.never"}));
  ASSERT_EQ(callee.read()[0], kInvocation);
  const Json timed_out = caller.read();
  ASSERT_EQ(timed_out[0], kError);
  EXPECT_EQ(timed_out[2], 1);
  EXPECT_EQ(timed_out[4], "wamp.error.timeout");
  caller.send(Json::array({kCall, 2, Json::object(), "t.never"}));
  EXPECT_EQ(callee.read()[0], kInvocation);  // routed (this callee takes no INTERRUPT)
  caller.send(Json::array({kCall, 3, Json::object(), "t.never"}));
  EXPECT_EQ(caller.read()[4], "benchgate.error.too_many_pending_calls");
  const auto snapshot = wait_for_wamp(*server_, [](const auto& s) {
    return refusals(s, metrics::SessionLimit::pending_calls) == 1;
  });
  EXPECT_EQ(refusals(snapshot, metrics::SessionLimit::pending_calls), 1u);
  EXPECT_EQ(snapshot.wamp.calls_timed_out, 1u);
}

TEST_F(SessionLimitsTest, ASessionThatLeftWithCallsPendingStartsAfreshAfterGoodbye) {
  ASSERT_NO_FATAL_FAILURE(start_with_callee_and_caller(1));
  RawSocketTestClient& callee = *callee_;
  RawSocketTestClient& caller = *caller_;
  caller.send(Json::array({kCall, 1, Json::object(), "t.never"}));
  ASSERT_EQ(callee.read()[0], kInvocation);
  caller.send(Json::array({6, Json::object(), "wamp.close.normal"}));
  ASSERT_EQ(caller.read()[0], 6);
  // The session's pending call went with it: the next session on the transport has its place.
  ASSERT_NE(caller.join(), 0u);
  caller.send(Json::array({kCall, 1, Json::object(), "t.never"}));
  const Json invocation = callee.read();
  ASSERT_EQ(invocation[0], kInvocation);
  callee.send(Json::array({kYield, invocation[1], Json::object()}));
  EXPECT_EQ(caller.read()[0], kResult);
}

// A session that calls a procedure it registered is the caller and the callee of those calls:
// leaving ends each once, sends the session nothing for them on its way out, and leaves no call
// and no deadline behind.
TEST_F(SessionLimitsTest, ASessionThatLeavesWithCallsToItselfPendingLeavesNothingBehind) {
  WampOptions options;
  options.max_pending_calls_per_session = 2;
  start(options);
  RawSocketTestClient client(port(), kCbor);
  ASSERT_NE(client.join(), 0u);
  ASSERT_NE(register_procedure(client, 1, "t.self"), 0u);
  client.send(Json::array({kCall, 1, {{"timeout", 60'000}}, "t.self"}));
  ASSERT_EQ(client.read()[0], kInvocation);
  client.send(Json::array({kCall, 2, Json::object(), "t.self"}));
  ASSERT_EQ(client.read()[0], kInvocation);
  // Counted as the caller's: the third is refused.
  client.send(Json::array({kCall, 3, Json::object(), "t.self"}));
  EXPECT_EQ(client.read()[4], "benchgate.error.too_many_pending_calls");
  EXPECT_EQ(server_->calls_pending(), 2u);
  EXPECT_EQ(server_->call_deadlines_held(), 1u);

  // GOODBYE ends the session and keeps the transport: its answer comes first, no ERROR for the
  // calls the session served itself.
  client.send(Json::array({6, Json::object(), "wamp.close.normal"}));
  ASSERT_EQ(client.read()[0], 6);
  EXPECT_EQ(server_->calls_pending(), 0u);
  EXPECT_EQ(server_->call_deadlines_held(), 0u);
  // The next session on the transport is welcomed (join reads WELCOME as the next message);
  // the procedure went with its only callee, and may be registered and called again.
  ASSERT_NE(client.join(), 0u);
  ASSERT_NE(register_procedure(client, 1, "t.self"), 0u);
  client.send(Json::array({kCall, 1, Json::object(), "t.self"}));
  const Json invocation = client.read();
  ASSERT_EQ(invocation[0], kInvocation);
  client.send(Json::array({kYield, invocation[1], Json::object()}));
  const Json result = client.read();
  ASSERT_EQ(result[0], kResult);
  EXPECT_EQ(result[1], 1);
  EXPECT_EQ(server_->calls_pending(), 0u);

  const auto snapshot = wait_for_wamp(*server_, [](const auto& s) {
    return refusals(s, metrics::SessionLimit::pending_calls) == 1;
  });
  EXPECT_EQ(snapshot.wamp.calls_routed, 3u);
  EXPECT_EQ(snapshot.wamp.calls_canceled, 0u);
  EXPECT_EQ(snapshot.wamp.calls_timed_out, 0u);
}

// CANCEL in mode kill waits for the callee's ERROR, and the call holds the caller's place until
// then; that ERROR ends the call: at a limit of one, the next CALL is routed.
TEST_F(SessionLimitsTest, AKillCancelTheCalleeAnswersWithErrorGivesTheCallersPlaceBack) {
  WampOptions options;
  options.max_pending_calls_per_session = 1;
  start(options);
  RawSocketTestClient callee(port(), kCbor);
  callee.send(Json::array(
      {1, "realm1", {{"roles", {{"callee", {{"features", {{"call_canceling", true}}}}}}}}}));
  ASSERT_EQ(callee.read()[0], 2);
  ASSERT_NE(register_procedure(callee, 1, "t.slow"), 0u);
  RawSocketTestClient caller(port(), kCbor);
  ASSERT_NE(caller.join(), 0u);

  caller.send(Json::array({kCall, 1, Json::object(), "t.slow"}));
  const Json invocation = callee.read();
  ASSERT_EQ(invocation[0], kInvocation);
  caller.send(Json::array({49, 1, {{"mode", "kill"}}}));
  const Json interrupt = callee.read();
  ASSERT_EQ(interrupt[0], 69);
  EXPECT_EQ(interrupt[1], invocation[1]);
  EXPECT_EQ(interrupt[2]["mode"], "kill");
  // Still pending until the callee answers.
  caller.send(Json::array({kCall, 2, Json::object(), "t.slow"}));
  Json error = caller.read();
  EXPECT_EQ(error[2], 2);
  EXPECT_EQ(error[4], "benchgate.error.too_many_pending_calls");
  EXPECT_EQ(server_->calls_pending(), 1u);

  callee.send(
      Json::array({kError, kInvocation, invocation[1], Json::object(), "wamp.error.canceled"}));
  error = caller.read();
  ASSERT_EQ(error[0], kError);
  EXPECT_EQ(error[2], 1);
  EXPECT_EQ(error[4], "wamp.error.canceled");
  EXPECT_EQ(server_->calls_pending(), 0u);
  caller.send(Json::array({kCall, 3, Json::object(), "t.slow"}));
  const Json next = callee.read();
  ASSERT_EQ(next[0], kInvocation);
  callee.send(Json::array({kYield, next[1], Json::object()}));
  const Json result = caller.read();
  ASSERT_EQ(result[0], kResult);
  EXPECT_EQ(result[1], 3);

  const auto snapshot =
      wait_for_wamp(*server_, [](const auto& s) { return s.wamp.calls_canceled == 1; });
  EXPECT_EQ(snapshot.wamp.calls_canceled, 1u);
  EXPECT_EQ(refusals(snapshot, metrics::SessionLimit::pending_calls), 1u);
}

// A subscriber that leaves a topic, by UNSUBSCRIBE or by leaving, is replaced in the topic's
// list by its last subscriber: every other one still gets each EVENT once, and the one moved
// takes itself out again from its new place. Those that unsubscribed get no EVENT of it: a
// marker topic's EVENT, published after, is the next thing they read.
TEST_F(SessionLimitsTest, SubscribersThatLeaveATopicInAnyOrderLeaveEveryOtherSubscribedOnce) {
  start(WampOptions{});
  constexpr int kSubscribers = 6;
  std::vector<std::unique_ptr<RawSocketTestClient>> subscribers;
  uint64_t shared = 0;
  for (int i = 0; i < kSubscribers; ++i) {
    subscribers.push_back(std::make_unique<RawSocketTestClient>(port(), kCbor));
    ASSERT_NE(subscribers.back()->join(), 0u);
    const uint64_t id = subscribe(*subscribers.back(), 1, "t.shared");
    ASSERT_NE(id, 0u);
    if (i > 0) {
      EXPECT_EQ(id, shared);
    }
    shared = id;
  }
  RawSocketTestClient publisher(port(), kCbor);
  ASSERT_NE(publisher.join(), 0u);
  std::vector<int> state(kSubscribers, 1);  // 1 subscribed, 0 unsubscribed, -1 gone
  std::vector<uint64_t> marker(kSubscribers, 0);
  int sessions = kSubscribers + 1;
  uint64_t request = 1;
  const auto check_round = [&] {
    publisher.send(Json::array({16, ++request, {{"acknowledge", true}}, "t.shared"}));
    ASSERT_EQ(publisher.read()[0], 17);
    publisher.send(Json::array({16, ++request, {{"acknowledge", true}}, "t.marker"}));
    ASSERT_EQ(publisher.read()[0], 17);
    for (size_t i = 0; i < subscribers.size(); ++i) {
      if (state[i] < 0) continue;
      const Json event = subscribers[i]->read();
      ASSERT_EQ(event[0], 36) << i;
      EXPECT_EQ(event[1], state[i] == 1 ? shared : marker[i]) << i;
    }
  };
  const auto unsubscribe = [&](size_t i) {
    subscribers[i]->send(Json::array({34, 2, shared}));
    ASSERT_EQ(subscribers[i]->read()[0], 35) << i;
    marker[i] = subscribe(*subscribers[i], 3, "t.marker");
    ASSERT_NE(marker[i], 0u);
    state[i] = 0;
  };
  const auto leave = [&](size_t i) {
    subscribers[i]->close();
    state[i] = -1;
    --sessions;
    const auto left =
        wait_for_wamp(*server_, [&](const auto& s) { return s.wamp_sessions == sessions; });
    ASSERT_EQ(left.wamp_sessions, sessions);
  };
  check_round();
  unsubscribe(0);  // the last (5) takes its place
  check_round();
  unsubscribe(5);  // from its new place
  check_round();
  leave(2);
  check_round();
  leave(1);
  unsubscribe(4);
  check_round();
  unsubscribe(3);  // the last one: the topic goes, and comes back as a new subscription
  check_round();
  const uint64_t again = subscribe(*subscribers[0], 4, "t.shared");
  EXPECT_NE(again, 0u);
  EXPECT_NE(again, shared);
}

TEST_F(SessionLimitsTest, RegistrationsAndSubscriptionsPastTheSessionsLimitsAreRefused) {
  WampOptions options;
  options.max_registrations_per_session = 2;
  options.max_subscriptions_per_session = 2;
  start(options);
  RawSocketTestClient client(port(), kCbor);
  ASSERT_NE(client.join(), 0u);

  const uint64_t a = register_procedure(client, 1, "t.a");
  ASSERT_NE(a, 0u);
  ASSERT_NE(register_procedure(client, 2, "t.b"), 0u);
  std::string error;
  EXPECT_EQ(register_procedure(client, 3, "t.c", &error), 0u);
  EXPECT_EQ(error, "benchgate.error.too_many_registrations");
  // Registering one it holds still says so, limit or not.
  EXPECT_EQ(register_procedure(client, 4, "t.a", &error), 0u);
  EXPECT_EQ(error, "wamp.error.procedure_already_exists");
  client.send(Json::array({66, 5, a}));
  ASSERT_EQ(client.read()[0], 67);
  EXPECT_NE(register_procedure(client, 6, "t.c"), 0u) << "a place is free again";

  const uint64_t one = subscribe(client, 7, "t.one");
  ASSERT_NE(one, 0u);
  ASSERT_NE(subscribe(client, 8, "t.two"), 0u);
  EXPECT_EQ(subscribe(client, 9, "t.one"), one) << "subscribing again is no new subscription";
  EXPECT_EQ(subscribe(client, 10, "t.three", &error), 0u);
  EXPECT_EQ(error, "benchgate.error.too_many_subscriptions");
  client.send(Json::array({34, 11, one}));
  ASSERT_EQ(client.read()[0], 35);
  EXPECT_NE(subscribe(client, 12, "t.three"), 0u) << "a place is free again";

  const auto snapshot = wait_for_wamp(*server_, [](const auto& s) {
    return refusals(s, metrics::SessionLimit::subscriptions) == 1;
  });
  EXPECT_EQ(refusals(snapshot, metrics::SessionLimit::registrations), 1u);
  EXPECT_EQ(refusals(snapshot, metrics::SessionLimit::subscriptions), 1u);
  EXPECT_EQ(refusals(snapshot, metrics::SessionLimit::pending_calls), 0u);
}

// UNREGISTER and UNSUBSCRIBE take an id out by moving the session's last one into its place:
// whatever the order, every other id stays the session's, and the session leaves clean.
TEST_F(SessionLimitsTest, RegistrationsAndSubscriptionsComeOutInAnyOrder) {
  start(WampOptions{});
  RawSocketTestClient client(port(), kCbor);
  ASSERT_NE(client.join(), 0u);
  RawSocketTestClient caller(port(), kCbor);
  ASSERT_NE(caller.join(), 0u);
  constexpr int kCount = 6;
  std::vector<uint64_t> registrations;
  std::vector<uint64_t> subscriptions;
  uint64_t request = 1;
  for (int i = 0; i < kCount; ++i) {
    registrations.push_back(register_procedure(client, request++, "t.p" + std::to_string(i)));
    subscriptions.push_back(subscribe(client, request++, "t.t" + std::to_string(i)));
    ASSERT_NE(registrations.back(), 0u);
    ASSERT_NE(subscriptions.back(), 0u);
  }
  std::vector<bool> held(kCount, true);
  for (const int i : {1, 5, 0, 3}) {
    client.send(Json::array({66, request++, registrations[static_cast<size_t>(i)]}));
    ASSERT_EQ(client.read()[0], 67) << i;
    client.send(Json::array({34, request++, subscriptions[static_cast<size_t>(i)]}));
    ASSERT_EQ(client.read()[0], 35) << i;
    held[static_cast<size_t>(i)] = false;
    // What is left answers; what went is gone, and cannot be taken out twice.
    for (int j = 0; j < kCount; ++j) {
      const auto at = static_cast<size_t>(j);
      caller.send(Json::array({kCall, request, Json::object(), "t.p" + std::to_string(j)}));
      if (held[at]) {
        const Json invocation = client.read();
        ASSERT_EQ(invocation[0], kInvocation) << j;
        EXPECT_EQ(invocation[2], registrations[at]);
        client.send(Json::array({kYield, invocation[1], Json::object()}));
        EXPECT_EQ(caller.read()[0], kResult) << j;
      } else {
        EXPECT_EQ(caller.read()[4], "wamp.error.no_such_procedure") << j;
      }
      caller.send(Json::array({16, request++, {{"acknowledge", true}}, "t.t" + std::to_string(j)}));
      EXPECT_EQ(caller.read()[0], 17) << "PUBLISHED " << j;
      if (held[at]) {
        const Json event = client.read();
        ASSERT_EQ(event[0], 36) << j;
        EXPECT_EQ(event[1], subscriptions[at]);
      }
    }
  }
  client.send(Json::array({66, request++, registrations[1]}));
  EXPECT_EQ(client.read()[4], "wamp.error.no_such_registration");
  client.send(Json::array({34, request++, subscriptions[1]}));
  EXPECT_EQ(client.read()[4], "wamp.error.no_such_subscription");

  // The session leaves: the two of each it held go with it.
  client.close();
  RawSocketTestClient next(port(), kCbor);
  ASSERT_NE(next.join(), 0u);
  for (const int i : {2, 4}) {
    EXPECT_NE(register_procedure(next, request++, "t.p" + std::to_string(i)), 0u) << i;
    const uint64_t again = subscribe(next, request++, "t.t" + std::to_string(i));
    EXPECT_NE(again, 0u);
    EXPECT_NE(again, subscriptions[static_cast<size_t>(i)]) << "a new subscription";
  }
}

// CANCEL finds its call among the caller's own pending calls, and a session that leaves ends
// the calls it made and those it serves, and no other: callers that use the same request ids
// keep theirs.
TEST_F(SessionLimitsTest, CancelAndLeavingEndTheSessionsOwnCallsOnly) {
  start(WampOptions{});
  RawSocketTestClient first_callee(port(), kCbor);
  ASSERT_NE(first_callee.join(), 0u);
  ASSERT_NE(register_procedure(first_callee, 1, "t.first"), 0u);
  RawSocketTestClient second_callee(port(), kCbor);
  ASSERT_NE(second_callee.join(), 0u);
  ASSERT_NE(register_procedure(second_callee, 1, "t.second"), 0u);
  RawSocketTestClient a(port(), kCbor);
  ASSERT_NE(a.join(), 0u);
  RawSocketTestClient b(port(), kCbor);
  ASSERT_NE(b.join(), 0u);

  // a and b each call both callees with request ids 1..4: 1 and 3 to the first, 2 and 4 to
  // the second.
  std::map<std::pair<char, int>, Json> invocations;
  for (int request = 1; request <= 4; ++request) {
    const std::vector<std::pair<char, RawSocketTestClient*>> callers{{'a', &a}, {'b', &b}};
    for (const auto& [name, caller] : callers) {
      const bool first = request % 2 == 1;
      caller->send(Json::array({kCall, request, Json::object(), first ? "t.first" : "t.second"}));
      const Json invocation = (first ? first_callee : second_callee).read();
      ASSERT_EQ(invocation[0], kInvocation);
      invocations[{name, request}] = invocation;
    }
  }
  // a cancels its call 3: b's call 3 stays pending.
  a.send(Json::array({49, 3, {{"mode", "skip"}}}));
  Json error = a.read();
  EXPECT_EQ(error[2], 3);
  EXPECT_EQ(error[4], "wamp.error.canceled");
  first_callee.send(Json::array({kYield, invocations[{'b', 3}][1], Json::object()}));
  Json result = b.read();
  ASSERT_EQ(result[0], kResult);
  EXPECT_EQ(result[1], 3);

  // a leaves: the YIELDs for its calls go nowhere; b's call 1 is answered.
  a.close();
  const auto left = wait_for_wamp(*server_, [](const auto& s) { return s.wamp_sessions == 3; });
  ASSERT_EQ(left.wamp_sessions, 3);
  first_callee.send(Json::array({kYield, invocations[{'a', 1}][1], Json::object()}));
  first_callee.send(Json::array({kYield, invocations[{'b', 1}][1], Json::object()}));
  result = b.read();
  ASSERT_EQ(result[0], kResult);
  EXPECT_EQ(result[1], 1);

  // The second callee leaves: b's calls to it (2 and 4) are canceled; b's calls to the first
  // callee are all answered by now, so nothing else comes.
  second_callee.close();
  std::vector<int> canceled;
  for (int i = 0; i < 2; ++i) {
    error = b.read();
    ASSERT_EQ(error[0], kError);
    EXPECT_EQ(error[4], "wamp.error.canceled");
    canceled.push_back(error[2].get<int>());
  }
  std::sort(canceled.begin(), canceled.end());
  EXPECT_EQ(canceled, (std::vector<int>{2, 4}));
  b.send(Json::array({kCall, 5, Json::object(), "t.first"}));
  const Json fifth = first_callee.read();
  ASSERT_EQ(fifth[0], kInvocation);
  first_callee.send(Json::array({kYield, fifth[1], Json::object()}));
  result = b.read();
  ASSERT_EQ(result[0], kResult);
  EXPECT_EQ(result[1], 5);
}

}  // namespace session_limits
}  // namespace
}  // namespace benchgate::router::wamp
