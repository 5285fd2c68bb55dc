// The dealer's advanced profile features in-process over RawSocket: shared registrations
// (round robin in exact turn, policies that do not mix), call timeouts (and no deadline kept
// for a call that ended), the three CANCEL modes, progressive results only for a caller that
// asked, the meta procedure wamp.session.count and the router's own bench.transfer (every
// chunk's bytes checked against the pattern; ended by CANCEL or its timeout).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "wamp_test_client.h"

namespace benchgate::router::wamp {
namespace {

using router::testing::RawSocketTestClient;
using router::testing::wait_for_wamp;

class DealerFeaturesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = WampServer::start(WampOptions{});
    ASSERT_TRUE(server) << server.message();
    server_ = std::move(*server);
  }
  uint16_t port() const { return server_->rawsocket_port(); }

  // A callee that announces call canceling, so that the dealer sends it INTERRUPTs.
  static void join_cancelling_callee(RawSocketTestClient& client) {
    client.send(Json::array(
        {1, "realm1", {{"roles", {{"callee", {{"features", {{"call_canceling", true}}}}}}}}}));
    ASSERT_EQ(client.read()[0], 2);
  }
  static uint64_t register_procedure(RawSocketTestClient& client, const std::string& procedure,
                                     const std::string& invoke, uint64_t request = 1) {
    client.send(Json::array({64, request, {{"invoke", invoke}}, procedure}));
    const Json registered = client.read();
    if (registered[0] != 65) return 0;
    return registered[2].get<uint64_t>();
  }

  std::unique_ptr<WampServer> server_;
};

TEST_F(DealerFeaturesTest, RoundRobinHandsEachCallToTheNextCalleeInRegistrationOrder) {
  std::vector<std::unique_ptr<RawSocketTestClient>> callees;
  uint64_t registration = 0;
  for (int i = 0; i < 3; ++i) {
    callees.push_back(std::make_unique<RawSocketTestClient>(port(), Serializer::kCbor));
    ASSERT_NE(callees.back()->join(), 0u);
    const uint64_t id = register_procedure(*callees.back(), "t.shared", "roundrobin");
    ASSERT_NE(id, 0u);
    if (i == 0) registration = id;
    EXPECT_EQ(id, registration) << "one registration shared by every callee";
  }
  RawSocketTestClient caller(port(), Serializer::kCbor);
  ASSERT_NE(caller.join(), 0u);
  for (uint64_t call = 1; call <= 6; ++call) {
    caller.send(Json::array({48, call, Json::object(), "t.shared", Json::array({call})}));
    RawSocketTestClient& callee = *callees[(call - 1) % 3];
    const Json invocation = callee.read();
    ASSERT_EQ(invocation[0], 68) << "call " << call;
    EXPECT_EQ(invocation[4][0], call);
    callee.send(Json::array({70, invocation[1], Json::object(), Json::array({call * 10})}));
    const Json result = caller.read();
    ASSERT_EQ(result[0], 50);
    EXPECT_EQ(result[1], call);
    EXPECT_EQ(result[3][0], call * 10);
  }

  // Another policy, or a single registration, cannot join it.
  RawSocketTestClient other(port(), Serializer::kCbor);
  ASSERT_NE(other.join(), 0u);
  other.send(Json::array({64, 1, {{"invoke", "random"}}, "t.shared"}));
  EXPECT_EQ(other.read()[4], "wamp.error.procedure_exists_with_different_invocation_policy");
  other.send(Json::array({64, 2, Json::object(), "t.shared"}));
  EXPECT_EQ(other.read()[4], "wamp.error.procedure_exists_with_different_invocation_policy");
  other.send(Json::array({64, 3, {{"invoke", "sometimes"}}, "t.other"}));
  EXPECT_EQ(other.read()[4], "wamp.error.invalid_argument");

  // The procedure stays while one of its callees does.
  callees[0]->close();
  callees[1]->close();
  caller.send(Json::array({48, 7, Json::object(), "t.shared"}));
  const Json invocation = callees[2]->read();
  ASSERT_EQ(invocation[0], 68);
  callees[2]->send(Json::array({70, invocation[1], Json::object()}));
  EXPECT_EQ(caller.read()[0], 50);
}

// Round robin goes on with the callee after the one that got the last call, in registration
// order, whoever unregistered, left or joined meanwhile (the list is compacted once most of it
// has left, and the turn stays where it was).
TEST_F(DealerFeaturesTest, RoundRobinKeepsItsTurnInRegistrationOrderAsCalleesLeaveAndJoin) {
  std::vector<std::unique_ptr<RawSocketTestClient>> callees;
  uint64_t registration = 0;
  const auto add_callee = [&] {
    callees.push_back(std::make_unique<RawSocketTestClient>(port(), Serializer::kCbor));
    ASSERT_NE(callees.back()->join(), 0u);
    registration = register_procedure(*callees.back(), "t.rr", "roundrobin");
    ASSERT_NE(registration, 0u);
  };
  for (int i = 0; i < 5; ++i) add_callee();
  RawSocketTestClient caller(port(), Serializer::kCbor);
  ASSERT_NE(caller.join(), 0u);
  uint64_t request = 0;
  const auto call_goes_to = [&](size_t expected) {
    caller.send(Json::array({48, ++request, Json::object(), "t.rr"}));
    const Json invocation = callees[expected]->read();
    ASSERT_EQ(invocation[0], 68) << "call " << request << " to callee " << expected;
    callees[expected]->send(Json::array({70, invocation[1], Json::object()}));
    const Json result = caller.read();
    ASSERT_EQ(result[0], 50);
    EXPECT_EQ(result[1], request);
  };
  int sessions = 6;
  const auto leave = [&](size_t callee) {
    callees[callee]->close();
    --sessions;
    const auto left =
        wait_for_wamp(*server_, [&](const auto& s) { return s.wamp_sessions == sessions; });
    ASSERT_EQ(left.wamp_sessions, sessions);
  };

  call_goes_to(0);
  call_goes_to(1);
  callees[0]->send(Json::array({66, 2, registration}));
  ASSERT_EQ(callees[0]->read()[0], 67);
  call_goes_to(2);
  leave(3);
  call_goes_to(4);
  call_goes_to(1);
  add_callee();  // 5 joins at the end of the turn
  ++sessions;
  call_goes_to(2);
  call_goes_to(4);
  call_goes_to(5);
  call_goes_to(1);
  // 2 and 4 leave: four of six entries are gone, and the list is compacted.
  leave(2);
  leave(4);
  call_goes_to(5);
  call_goes_to(1);
  call_goes_to(5);
}

// After the callee that got the last call unregisters from the end of the list, the turn is
// that of the callee registered next: A, B, C get a call each, C unregisters, D registers, and
// the next call goes to D, not back to A.
TEST_F(DealerFeaturesTest, RoundRobinGivesTheTurnAfterALastCalleeThatLeftToTheNextOneToRegister) {
  std::vector<std::unique_ptr<RawSocketTestClient>> callees;
  uint64_t registration = 0;
  const auto add_callee = [&] {
    callees.push_back(std::make_unique<RawSocketTestClient>(port(), Serializer::kCbor));
    ASSERT_NE(callees.back()->join(), 0u);
    registration = register_procedure(*callees.back(), "t.rr.tail", "roundrobin");
    ASSERT_NE(registration, 0u);
  };
  for (int i = 0; i < 3; ++i) add_callee();
  RawSocketTestClient caller(port(), Serializer::kCbor);
  ASSERT_NE(caller.join(), 0u);
  uint64_t request = 0;
  const auto call_goes_to = [&](size_t expected) {
    caller.send(Json::array({48, ++request, Json::object(), "t.rr.tail"}));
    const Json invocation = callees[expected]->read();  // null when no INVOCATION came
    ASSERT_TRUE(invocation.is_array() && invocation[0] == 68)
        << "call " << request << " to callee " << expected;
    callees[expected]->send(Json::array({70, invocation[1], Json::object()}));
    const Json result = caller.read();
    ASSERT_EQ(result[0], 50);
    EXPECT_EQ(result[1], request);
  };
  call_goes_to(0);
  call_goes_to(1);
  call_goes_to(2);
  callees[2]->send(Json::array({66, 2, registration}));
  ASSERT_EQ(callees[2]->read()[0], 67);
  add_callee();  // D, at the end: after C in registration order
  call_goes_to(3);
  call_goes_to(0);
  call_goes_to(1);
  call_goes_to(3);
}

// first and last go to the first and the last callee still registered, in registration order.
TEST_F(DealerFeaturesTest, FirstAndLastGoToTheFirstAndLastCalleeStillRegistered) {
  for (const char* policy : {"first", "last"}) {
    SCOPED_TRACE(policy);
    const bool first = std::string(policy) == "first";
    const std::string procedure = std::string("t.") + policy;
    std::vector<std::unique_ptr<RawSocketTestClient>> callees;
    uint64_t registration = 0;
    for (int i = 0; i < 4; ++i) {
      callees.push_back(std::make_unique<RawSocketTestClient>(port(), Serializer::kCbor));
      ASSERT_NE(callees.back()->join(), 0u);
      registration = register_procedure(*callees.back(), procedure, policy);
      ASSERT_NE(registration, 0u);
    }
    RawSocketTestClient caller(port(), Serializer::kCbor);
    ASSERT_NE(caller.join(), 0u);
    uint64_t request = 0;
    const auto call_goes_to = [&](size_t expected) {
      caller.send(Json::array({48, ++request, Json::object(), procedure}));
      const Json invocation = callees[expected]->read();
      ASSERT_EQ(invocation[0], 68) << "call " << request << " to callee " << expected;
      callees[expected]->send(Json::array({70, invocation[1], Json::object()}));
      ASSERT_EQ(caller.read()[0], 50);
    };
    const auto unregister = [&](size_t callee) {
      callees[callee]->send(Json::array({66, 9, registration}));
      ASSERT_EQ(callees[callee]->read()[0], 67);
    };
    // Order of leaving: the end that is called first, then one in the middle.
    const size_t end = first ? 0 : 3;
    const size_t next = first ? 1 : 2;
    const size_t after = first ? 2 : 1;
    call_goes_to(end);
    unregister(end);
    call_goes_to(next);
    unregister(after);
    call_goes_to(next);
    unregister(next);
    call_goes_to(first ? 3 : 0);
  }
}

TEST_F(DealerFeaturesTest, ACallPastItsTimeoutIsAnsweredWithTimeoutAndTheCalleeInterrupted) {
  RawSocketTestClient callee(port(), Serializer::kCbor);
  join_cancelling_callee(callee);
  ASSERT_NE(register_procedure(callee, "t.slow", "single"), 0u);
  RawSocketTestClient caller(port(), Serializer::kCbor);
  ASSERT_NE(caller.join(), 0u);
  caller.send(Json::array({48, 5, {{"timeout", 50}}, "t.slow"}));
  const Json invocation = callee.read();
  ASSERT_EQ(invocation[0], 68);
  const Json error = caller.read();
  ASSERT_EQ(error[0], 8);
  EXPECT_EQ(error[1], 48);
  EXPECT_EQ(error[2], 5);
  EXPECT_EQ(error[4], "wamp.error.timeout");
  const Json interrupt = callee.read();
  ASSERT_EQ(interrupt[0], 69);
  EXPECT_EQ(interrupt[1], invocation[1]);
  EXPECT_EQ(interrupt[2]["mode"], "killnowait");
  // A late YIELD is ignored: the next thing the caller gets is its next call's answer.
  callee.send(Json::array({70, invocation[1], Json::object()}));
  caller.send(Json::array({48, 6, Json::object(), "bench.echo"}));
  const Json next = caller.read();
  EXPECT_EQ(next[0], 50);
  EXPECT_EQ(next[1], 6);
  const auto snapshot =
      wait_for_wamp(*server_, [](const auto& s) { return s.wamp.calls_timed_out == 1; });
  EXPECT_EQ(snapshot.wamp.calls_timed_out, 1u);
  EXPECT_EQ(snapshot.wamp.calls_canceled, 0u);
}

// The longest timeout a CALL may ask for (the dealer clamps to 2^40 ms): a deadline left
// behind by an ended call would stay for 35 years.
constexpr uint64_t kLongestTimeout = uint64_t{1} << 40;

// A JSON message written as text, for what the client's encoder cannot write (an escaped key,
// which sends the message to the router's document path: router/wamp/message_view.h).
std::vector<uint8_t> json_text(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

// A call's deadline is the dealer's only while the call is pending: a client that has each
// call with a long timeout answered at once must not grow the router's memory.
TEST_F(DealerFeaturesTest, AnsweredCallsLeaveNoDeadlineBehind) {
  constexpr uint64_t kCalls = 40;
  for (const Serializer serializer : {Serializer::kCbor, Serializer::kJson}) {
    SCOPED_TRACE(serializer_name(serializer));
    RawSocketTestClient callee(port(), serializer);
    ASSERT_NE(callee.join(), 0u);
    ASSERT_NE(register_procedure(callee, "t.deadline", "single"), 0u);
    RawSocketTestClient caller(port(), serializer);
    ASSERT_NE(caller.join(), 0u);
    std::vector<Json> invocations;
    for (uint64_t call = 1; call <= kCalls; ++call) {
      if (serializer == Serializer::kJson && call % 4 == 0) {
        // The CALL through the document path.
        caller.send_frame(FrameType::kMessage,
                          json_text("[48," + std::to_string(call) + R"(,{"timeout":)" +
                                    std::to_string(kLongestTimeout) +
                                    R"(,"receive_progre\u0073s":true},"t.deadline"])"));
      } else {
        caller.send(Json::array(
            {48, call, {{"timeout", kLongestTimeout}, {"receive_progress", true}}, "t.deadline"}));
      }
      invocations.push_back(callee.read());
      ASSERT_EQ(invocations.back()[0], 68) << "call " << call;
    }
    EXPECT_EQ(server_->call_deadlines_held(), kCalls) << "one deadline per pending call";
    for (uint64_t call = 1; call <= kCalls; ++call) {
      const Json& id = invocations[call - 1][1];
      switch (call % 4) {
        case 0:  // a progressive YIELD ends nothing; the final one does
          callee.send(Json::array({70, id, {{"progress", true}}, Json::array({"part"})}));
          callee.send(Json::array({70, id, Json::object()}));
          break;
        case 1:  // YIELD read in place
          callee.send(Json::array({70, id, Json::object()}));
          break;
        case 2:  // YIELD through the document path (JSON), or read in place (CBOR)
          if (serializer == Serializer::kJson) {
            callee.send_frame(FrameType::kMessage,
                              json_text("[70," + id.dump() + R"(,{"x\u0079":1}])"));
          } else {
            callee.send(Json::array({70, id, {{"xy", 1}}}));
          }
          break;
        case 3:  // the callee's ERROR
          callee.send(Json::array({8, 68, id, Json::object(), "t.failed"}));
          break;
      }
      Json answer = caller.read();
      if (call % 4 == 0) {
        ASSERT_EQ(answer[0], 50);
        EXPECT_EQ(answer[2], Json({{"progress", true}}));
        answer = caller.read();
      }
      ASSERT_EQ(answer[0], call % 4 == 3 ? 8 : 50) << "call " << call;
      EXPECT_EQ(answer[call % 4 == 3 ? 2 : 1], call);
    }
    EXPECT_EQ(server_->call_deadlines_held(), 0u);
  }
}

TEST_F(DealerFeaturesTest, CanceledCallsLeaveNoDeadlineBehind) {
  RawSocketTestClient callee(port(), Serializer::kCbor);
  join_cancelling_callee(callee);
  ASSERT_NE(register_procedure(callee, "t.deadline", "single"), 0u);
  RawSocketTestClient caller(port(), Serializer::kCbor);
  ASSERT_NE(caller.join(), 0u);
  const Json options = {{"timeout", kLongestTimeout}};
  for (const char* mode : {"skip", "killnowait", "kill"}) {
    SCOPED_TRACE(mode);
    caller.send(Json::array({48, 1, options, "t.deadline"}));
    const Json invocation = callee.read();
    ASSERT_EQ(invocation[0], 68);
    EXPECT_EQ(server_->call_deadlines_held(), 1u);
    caller.send(Json::array({49, 1, {{"mode", mode}}}));
    if (std::string(mode) != "skip") {
      const Json interrupt = callee.read();
      ASSERT_EQ(interrupt[0], 69);
    }
    if (std::string(mode) == "kill") {
      // Still pending until the callee's ERROR: the deadline stays with it.
      EXPECT_EQ(server_->call_deadlines_held(), 1u);
      callee.send(Json::array({8, 68, invocation[1], Json::object(), "wamp.error.canceled"}));
    }
    const Json error = caller.read();
    ASSERT_EQ(error[0], 8);
    EXPECT_EQ(error[4], "wamp.error.canceled");
    EXPECT_EQ(server_->call_deadlines_held(), 0u);
  }
}

TEST_F(DealerFeaturesTest, CallsOfASessionThatLeftLeaveNoDeadlineBehind) {
  constexpr uint64_t kCalls = 10;
  const Json options = {{"timeout", kLongestTimeout}};
  RawSocketTestClient caller(port(), Serializer::kCbor);
  ASSERT_NE(caller.join(), 0u);
  {
    // The callee leaves: its pending calls end with wamp.error.canceled.
    RawSocketTestClient callee(port(), Serializer::kCbor);
    ASSERT_NE(callee.join(), 0u);
    ASSERT_NE(register_procedure(callee, "t.deadline", "single"), 0u);
    for (uint64_t call = 1; call <= kCalls; ++call) {
      caller.send(Json::array({48, call, options, "t.deadline"}));
      ASSERT_EQ(callee.read()[0], 68);
    }
    EXPECT_EQ(server_->call_deadlines_held(), kCalls);
    callee.close();
    for (uint64_t call = 1; call <= kCalls; ++call) {
      const Json error = caller.read();
      ASSERT_EQ(error[0], 8);
      EXPECT_EQ(error[4], "wamp.error.canceled");
    }
    EXPECT_EQ(server_->call_deadlines_held(), 0u);
  }
  // The caller leaves: nobody waits for its calls any more.
  RawSocketTestClient callee(port(), Serializer::kCbor);
  ASSERT_NE(callee.join(), 0u);
  ASSERT_NE(register_procedure(callee, "t.deadline", "single"), 0u);
  for (uint64_t call = 1; call <= kCalls; ++call) {
    caller.send(Json::array({48, call, options, "t.deadline"}));
    ASSERT_EQ(callee.read()[0], 68);
  }
  EXPECT_EQ(server_->call_deadlines_held(), kCalls);
  caller.close();
  const auto snapshot = wait_for_wamp(*server_, [](const auto& s) { return s.wamp_sessions == 1; });
  ASSERT_EQ(snapshot.wamp_sessions, 1) << "the caller's session has left";
  EXPECT_EQ(server_->call_deadlines_held(), 0u);
}

TEST_F(DealerFeaturesTest, CancelModesSkipKillAndKillNoWait) {
  RawSocketTestClient callee(port(), Serializer::kCbor);
  join_cancelling_callee(callee);
  ASSERT_NE(register_procedure(callee, "t.cancel", "single"), 0u);
  RawSocketTestClient caller(port(), Serializer::kCbor);
  ASSERT_NE(caller.join(), 0u);

  // skip: the caller is answered at once, the callee is not told.
  caller.send(Json::array({48, 1, Json::object(), "t.cancel"}));
  const Json first = callee.read();
  caller.send(Json::array({49, 1, {{"mode", "skip"}}}));
  Json error = caller.read();
  EXPECT_EQ(error[2], 1);
  EXPECT_EQ(error[4], "wamp.error.canceled");

  // killnowait (the default): INTERRUPT and the caller's ERROR at once.
  caller.send(Json::array({48, 2, Json::object(), "t.cancel"}));
  const Json second = callee.read();
  ASSERT_EQ(second[0], 68) << "no INTERRUPT came for the skipped call";
  caller.send(Json::array({49, 2, Json::object()}));
  error = caller.read();
  EXPECT_EQ(error[2], 2);
  EXPECT_EQ(error[4], "wamp.error.canceled");
  Json interrupt = callee.read();
  ASSERT_EQ(interrupt[0], 69);
  EXPECT_EQ(interrupt[1], second[1]);
  EXPECT_EQ(interrupt[2]["mode"], "killnowait");

  // kill: INTERRUPT, and the caller gets the callee's ERROR when it comes.
  caller.send(Json::array({48, 3, Json::object(), "t.cancel"}));
  const Json third = callee.read();
  caller.send(Json::array({49, 3, {{"mode", "kill"}}}));
  interrupt = callee.read();
  ASSERT_EQ(interrupt[0], 69);
  EXPECT_EQ(interrupt[1], third[1]);
  EXPECT_EQ(interrupt[2]["mode"], "kill");
  callee.send(Json::array({8, 68, third[1], Json::object(), "wamp.error.canceled"}));
  error = caller.read();
  EXPECT_EQ(error[2], 3);
  EXPECT_EQ(error[4], "wamp.error.canceled");

  // A CANCEL for nothing pending, and a YIELD for a canceled call, change nothing.
  caller.send(Json::array({49, 99, Json::object()}));
  callee.send(Json::array({70, first[1], Json::object()}));
  caller.send(Json::array({48, 4, Json::object(), "bench.echo"}));
  EXPECT_EQ(caller.read()[1], 4);
  const auto snapshot =
      wait_for_wamp(*server_, [](const auto& s) { return s.wamp.calls_canceled == 3; });
  EXPECT_EQ(snapshot.wamp.calls_canceled, 3u);
  EXPECT_EQ(snapshot.wamp.messages[static_cast<size_t>(message_slot(MessageType::kInterrupt))][1],
            2u);
}

// Call canceling is a feature of the session that announced it: a later session on the same
// transport whose HELLO does not announce it gets no INTERRUPT.
TEST_F(DealerFeaturesTest, ASessionAfterGoodbyeDoesNotInheritTheCalleeFeaturesOfTheOneBefore) {
  RawSocketTestClient callee(port(), Serializer::kCbor);
  join_cancelling_callee(callee);
  callee.send(Json::array({6, Json::object(), "wamp.close.normal"}));
  const Json goodbye = callee.read();
  ASSERT_EQ(goodbye[0], 6);
  // HELLO.Details without roles: nothing announced.
  callee.send(Json::array({1, "realm1", Json::object()}));
  ASSERT_EQ(callee.read()[0], 2);
  ASSERT_NE(register_procedure(callee, "t.features", "single"), 0u);
  RawSocketTestClient caller(port(), Serializer::kCbor);
  ASSERT_NE(caller.join(), 0u);
  caller.send(Json::array({48, 1, Json::object(), "t.features"}));
  const Json invocation = callee.read();
  ASSERT_EQ(invocation[0], 68);
  // kill to a callee that cannot be interrupted: the caller is answered at once.
  caller.send(Json::array({49, 1, {{"mode", "kill"}}}));
  const Json error = caller.read();
  ASSERT_TRUE(error.is_array()) << "no answer to the CANCEL: the dealer waits for the callee";
  ASSERT_EQ(error[0], 8);
  EXPECT_EQ(error[2], 1);
  EXPECT_EQ(error[4], "wamp.error.canceled");
  // The next thing the callee gets is the next invocation, not an INTERRUPT.
  caller.send(Json::array({48, 2, Json::object(), "t.features"}));
  const Json next = callee.read();
  EXPECT_EQ(next[0], 68);
  EXPECT_NE(next[1], invocation[1]);
  const auto snapshot =
      wait_for_wamp(*server_, [](const auto& s) { return s.wamp.calls_canceled == 1; });
  EXPECT_EQ(snapshot.wamp.calls_canceled, 1u);
  EXPECT_EQ(snapshot.wamp.messages[static_cast<size_t>(message_slot(MessageType::kInterrupt))][1],
            0u);
}

// A progressive YIELD reaches only a caller that asked for progressive results: another would
// take its RESULT for the call's answer and the final RESULT for a stray one.
TEST_F(DealerFeaturesTest, ProgressiveResultsReachOnlyACallerThatAskedForThem) {
  for (const Serializer serializer : {Serializer::kCbor, Serializer::kJson}) {
    SCOPED_TRACE(serializer_name(serializer));
    RawSocketTestClient callee(port(), serializer);
    ASSERT_NE(callee.join(), 0u);
    ASSERT_NE(register_procedure(callee, "t.progress", "single"), 0u);
    RawSocketTestClient caller(port(), serializer);
    ASSERT_NE(caller.join(), 0u);
    for (const bool asks : {false, true}) {
      SCOPED_TRACE(asks ? "receive_progress" : "no receive_progress");
      const uint64_t request = asks ? 2 : 1;
      caller.send(Json::array(
          {48, request, asks ? Json{{"receive_progress", true}} : Json::object(), "t.progress"}));
      const Json invocation = callee.read();
      ASSERT_EQ(invocation[0], 68);
      EXPECT_EQ(invocation[3].contains("receive_progress"), asks);
      callee.send(Json::array({70, invocation[1], {{"progress", true}}, Json::array({"part"})}));
      if (serializer == Serializer::kJson) {
        // The key written with an escape: the document path decides (router/wamp/message_view.h).
        const std::string text =
            "[70," + invocation[1].dump() + R"(,{"pro\u0067ress":true},["escaped"]])";
        callee.send_frame(FrameType::kMessage, std::vector<uint8_t>(text.begin(), text.end()));
      }
      callee.send(Json::array({70, invocation[1], Json::object(), Json::array({"whole"})}));
      if (asks) {
        Json part = caller.read();
        ASSERT_EQ(part[0], 50);
        EXPECT_EQ(part[2], Json({{"progress", true}}));
        EXPECT_EQ(part[3][0], "part");
        if (serializer == Serializer::kJson) {
          part = caller.read();
          EXPECT_EQ(part[2], Json({{"progress", true}}));
          EXPECT_EQ(part[3][0], "escaped");
        }
      }
      const Json result = caller.read();
      ASSERT_EQ(result[0], 50);
      EXPECT_EQ(result[1], request);
      EXPECT_EQ(result[2], Json::object());
      EXPECT_EQ(result[3][0], "whole");
    }
    // Nothing else came: the next message is the next call's answer.
    caller.send(Json::array({48, 3, Json::object(), "bench.echo"}));
    const Json next = caller.read();
    EXPECT_EQ(next[0], 50);
    EXPECT_EQ(next[1], 3);
  }
}

TEST_F(DealerFeaturesTest, SessionCountCountsTheSessionsOfTheCallersRealm) {
  RawSocketTestClient a(port(), Serializer::kCbor);
  RawSocketTestClient b(port(), Serializer::kCbor);
  RawSocketTestClient elsewhere(port(), Serializer::kCbor);
  ASSERT_NE(a.join(), 0u);
  ASSERT_NE(b.join(), 0u);
  ASSERT_NE(elsewhere.join("realm2"), 0u);
  a.send(Json::array({48, 1, Json::object(), "wamp.session.count"}));
  const Json result = a.read();
  ASSERT_EQ(result[0], 50);
  EXPECT_EQ(result[3], Json::array({2}));
}

TEST_F(DealerFeaturesTest, BenchTransferSendsThePatternInProgressiveChunksThenTheTotal) {
  RawSocketTestClient caller(port(), Serializer::kCbor);
  ASSERT_NE(caller.join(), 0u);
  constexpr uint64_t kTotal = 100'000;
  constexpr uint64_t kChunk = 30'000;
  caller.send(Json::array(
      {48, 9, {{"receive_progress", true}}, "bench.transfer", Json::array({kTotal, kChunk})}));
  uint64_t offset = 0;
  for (int chunk = 0; chunk < 4; ++chunk) {
    const Json result = caller.read();
    ASSERT_EQ(result[0], 50);
    EXPECT_EQ(result[2]["progress"], true);
    ASSERT_EQ(result[3][0], offset);
    const auto& bytes = result[3][1].get_binary();
    ASSERT_EQ(bytes.size(), std::min(kChunk, kTotal - offset));
    for (size_t i = 0; i < bytes.size(); ++i) {
      ASSERT_EQ(bytes[i], 'a' + (offset + i) % 26) << "byte " << offset + i;
    }
    offset += bytes.size();
  }
  const Json last = caller.read();
  ASSERT_EQ(last[0], 50);
  EXPECT_EQ(last[2], Json::object());
  EXPECT_EQ(last[3], Json::array({kTotal}));

  caller.send(Json::array({48, 10, Json::object(), "bench.transfer", Json::array({10, 5})}));
  EXPECT_EQ(caller.read()[4], "wamp.error.invalid_argument") << "chunks need receive_progress";
  const auto snapshot =
      wait_for_wamp(*server_, [](const auto& s) { return s.wamp.transfer_bytes == kTotal; });
  EXPECT_EQ(snapshot.wamp.transfer_bytes, kTotal);
}

// A transfer whose first chunk is larger than the caller takes (its RawSocket handshake allows
// 4 KiB) is refused, ERROR wamp.error.payload_size_exceeded before any chunk, and is no call
// routed, as the worker counts it (wamp_error, the router-count cross-check leaving it out).
// Before, the router counted it routed before trying the chunk, and the cross-check saw a call
// the workers did not.
TEST_F(DealerFeaturesTest, ATransferWhoseFirstChunkTheCallerCannotTakeIsNoCallRouted) {
  RawSocketTestClient caller(port(), Serializer::kCbor, /*length_exponent=*/3);
  ASSERT_NE(caller.join(), 0u);
  caller.send(Json::array(
      {48, 1, {{"receive_progress", true}}, "bench.transfer", Json::array({8000, 8000})}));
  const Json error = caller.read();
  ASSERT_EQ(error[0], 8);
  EXPECT_EQ(error[2], 1);
  EXPECT_EQ(error[4], "wamp.error.payload_size_exceeded");
  caller.send(Json::array({48, 2, Json::object(), "bench.echo", Json::array({1})}));
  EXPECT_EQ(caller.read()[0], 50);
  const auto snapshot =
      wait_for_wamp(*server_, [](const auto& s) { return s.wamp.calls_routed >= 1; });
  EXPECT_EQ(snapshot.wamp.calls_routed, 1u) << "the echo only";
  EXPECT_EQ(snapshot.wamp.transfer_bytes, 0u);
}

// Reads the progressive chunks of a bench.transfer until another message comes (at most
// `limit` of them); returns that message, or null when only chunks came.
Json read_past_chunks(RawSocketTestClient& caller, int limit = 2000) {
  for (int i = 0; i < limit; ++i) {
    Json message = caller.read();
    if (!message.is_array() || message[0] != 50 || !message[2].contains("progress")) {
      return message;
    }
  }
  return nullptr;
}

// The router is the callee of bench.transfer: every CANCEL mode ends the transfer, answered
// and counted as a canceled call is.
TEST_F(DealerFeaturesTest, CancelEndsABenchTransferInEveryMode) {
  RawSocketTestClient caller(port(), Serializer::kCbor);
  ASSERT_NE(caller.join(), 0u);
  uint64_t request = 0;
  for (const char* mode : {"skip", "kill", "killnowait"}) {
    SCOPED_TRACE(mode);
    ++request;
    caller.send(Json::array({48,
                             request,
                             {{"receive_progress", true}},
                             "bench.transfer",
                             Json::array({kMaxTransferBytes, 65536})}));
    const Json chunk = caller.read();
    ASSERT_EQ(chunk[0], 50);
    ASSERT_EQ(chunk[2]["progress"], true);
    caller.send(Json::array({49, request, {{"mode", mode}}}));
    const Json error = read_past_chunks(caller);
    ASSERT_TRUE(error.is_array()) << "the transfer went on after the CANCEL";
    ASSERT_EQ(error[0], 8);
    EXPECT_EQ(error[1], 48);
    EXPECT_EQ(error[2], request);
    EXPECT_EQ(error[4], "wamp.error.canceled");
    // Nothing more of it comes: the next message is the next call's answer.
    caller.send(Json::array({48, 100 + request, Json::object(), "bench.echo"}));
    const Json next = caller.read();
    EXPECT_EQ(next[0], 50);
    EXPECT_EQ(next[1], 100 + request);
  }
  const auto snapshot =
      wait_for_wamp(*server_, [](const auto& s) { return s.wamp.calls_canceled == 3; });
  EXPECT_EQ(snapshot.wamp.calls_canceled, 3u);
}

// A caller's transfers go one at a time: the second and third wait behind the first (1 TiB,
// never done), and end before their first chunk went out, one past its timeout, one by CANCEL.
// Each was accepted and answered as a routed call is, ERROR wamp.error.timeout and
// wamp.error.canceled, which the worker counts as call_timeout and canceled, calls the router
// routed (docs/MEASUREMENT.md "Cross-checks"): so each counts as routed, with the first and the
// echo. Before, a transfer counted as routed only once its first chunk went out, and the
// cross-check saw calls the router did not (wamp_calls_canceled and wamp_calls_timed_out
// counting calls wamp_calls_routed did not).
TEST_F(DealerFeaturesTest, ATransferEndedBeforeItsFirstChunkWentOutIsStillACallRouted) {
  RawSocketTestClient caller(port(), Serializer::kCbor);
  ASSERT_NE(caller.join(), 0u);
  caller.send(Json::array({48,
                           1,
                           {{"receive_progress", true}},
                           "bench.transfer",
                           Json::array({kMaxTransferBytes, 65536})}));
  ASSERT_EQ(caller.read()[0], 50);
  caller.send(Json::array({48,
                           2,
                           {{"receive_progress", true}, {"timeout", 1}},
                           "bench.transfer",
                           Json::array({kMaxTransferBytes, 65536})}));
  caller.send(Json::array(
      {48, 3, {{"receive_progress", true}}, "bench.transfer", Json::array({1000, 100})}));
  caller.send(Json::array({49, 3, {{"mode", "skip"}}}));
  std::map<uint64_t, std::string> errors;
  for (int i = 0; i < 2; ++i) {
    const Json error = read_past_chunks(caller);
    ASSERT_TRUE(error.is_array()) << "no answer to the queued transfers";
    ASSERT_EQ(error[0], 8) << error;
    errors[error[2].get<uint64_t>()] = error[4].get<std::string>();
  }
  EXPECT_EQ(errors, (std::map<uint64_t, std::string>{{2, "wamp.error.timeout"},
                                                     {3, "wamp.error.canceled"}}));
  caller.send(Json::array({49, 1, Json::object()}));
  const Json error = read_past_chunks(caller);
  ASSERT_TRUE(error.is_array()) << "the transfer went on after the CANCEL";
  EXPECT_EQ(error[2], 1);
  EXPECT_EQ(error[4], "wamp.error.canceled");
  caller.send(Json::array({48, 4, Json::object(), "bench.echo"}));
  EXPECT_EQ(caller.read(), Json::array({50, 4, Json::object()}));
  const auto snapshot =
      wait_for_wamp(*server_, [](const auto& s) { return s.wamp.calls_canceled == 2; });
  EXPECT_EQ(snapshot.wamp.calls_canceled, 2u);
  EXPECT_EQ(snapshot.wamp.calls_timed_out, 1u);
  EXPECT_EQ(snapshot.wamp.calls_routed, 4u) << "three transfers and the echo";
  EXPECT_EQ(server_->calls_pending(), 0u);
}

// A transfer's timeout ends that transfer only: another caller's, under way at the same time,
// goes on until it is canceled, and no deadline is left behind.
TEST_F(DealerFeaturesTest, ATransferTimeoutEndsThatCallersTransferOnly) {
  RawSocketTestClient a(port(), Serializer::kCbor);
  ASSERT_NE(a.join(), 0u);
  RawSocketTestClient b(port(), Serializer::kCbor);
  ASSERT_NE(b.join(), 0u);
  // 1 GiB each, more than the sockets' buffers hold while the callers read nothing.
  a.send(Json::array({48,
                      7,
                      {{"receive_progress", true}, {"timeout", 600'000}},
                      "bench.transfer",
                      Json::array({1 << 30, 4096})}));
  ASSERT_EQ(a.read()[0], 50);
  b.send(Json::array({48,
                      7,
                      {{"receive_progress", true}, {"timeout", 50}},
                      "bench.transfer",
                      Json::array({1 << 30, 4096})}));
  Json message;
  do message = b.read();
  while (message[0] == 50);
  ASSERT_EQ(message[0], 8);
  EXPECT_EQ(message[2], 7);
  EXPECT_EQ(message[4], "wamp.error.timeout");
  EXPECT_EQ(server_->calls_pending(), 1u);
  EXPECT_EQ(server_->call_deadlines_held(), 1u);
  a.send(Json::array({49, 7, Json::object()}));
  do message = a.read();
  while (message[0] == 50);
  ASSERT_EQ(message[0], 8);
  EXPECT_EQ(message[2], 7);
  EXPECT_EQ(message[4], "wamp.error.canceled");
  EXPECT_EQ(server_->calls_pending(), 0u);
  EXPECT_EQ(server_->call_deadlines_held(), 0u);
}

TEST_F(DealerFeaturesTest, ABenchTransferPastItsTimeoutEndsWithTimeout) {
  RawSocketTestClient caller(port(), Serializer::kCbor);
  ASSERT_NE(caller.join(), 0u);
  caller.send(Json::array({48,
                           7,
                           {{"receive_progress", true}, {"timeout", 1}},
                           "bench.transfer",
                           Json::array({kMaxTransferBytes, 65536})}));
  const Json error = read_past_chunks(caller);
  ASSERT_TRUE(error.is_array()) << "the transfer went on past its timeout";
  ASSERT_EQ(error[0], 8);
  EXPECT_EQ(error[1], 48);
  EXPECT_EQ(error[2], 7);
  EXPECT_EQ(error[4], "wamp.error.timeout");
  caller.send(Json::array({48, 8, Json::object(), "bench.echo"}));
  const Json next = caller.read();
  EXPECT_EQ(next[0], 50);
  EXPECT_EQ(next[1], 8);

  // A transfer done before its timeout leaves no deadline behind; a timeout that is not an
  // unsigned integer is refused, as for a routed call.
  caller.send(Json::array({48,
                           9,
                           {{"receive_progress", true}, {"timeout", kLongestTimeout}},
                           "bench.transfer",
                           Json::array({100'000, 30'000})}));
  const Json last = read_past_chunks(caller);
  ASSERT_EQ(last[0], 50);
  EXPECT_EQ(last[3], Json::array({100'000}));
  caller.send(Json::array({48,
                           10,
                           {{"receive_progress", true}, {"timeout", "soon"}},
                           "bench.transfer",
                           Json::array({10, 5})}));
  EXPECT_EQ(caller.read()[4], "wamp.error.invalid_argument");
  const auto snapshot =
      wait_for_wamp(*server_, [](const auto& s) { return s.wamp.calls_timed_out == 1; });
  EXPECT_EQ(snapshot.wamp.calls_timed_out, 1u);
  EXPECT_EQ(snapshot.wamp.calls_canceled, 0u);
  EXPECT_EQ(server_->call_deadlines_held(), 0u);
}

}  // namespace
}  // namespace benchgate::router::wamp
