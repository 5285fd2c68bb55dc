// A REGISTERED or SUBSCRIBED while a WAMP session joins (worker/wamp/session.cc), against a
// RawSocket MessagePack "router" (fake_rawsocket_router.h): it is the join's answer only when the
// join sent that request (after WELCOME) and it names its request id. Any other breaks the
// protocol, and the start fails naming what came: one before WELCOME, or for a request id never
// sent, was taken as the join's answer, and the session went on as if registered or subscribed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "fake_rawsocket_router.h"
#include "wamp_engine_test_support.h"
#include "worker/engine/engine.h"

namespace benchgate::worker::join_answer_test {
namespace {

using nlohmann::json;
using test_support::FakeRawSocketRouter;
constexpr auto kBeforeWelcome = FakeRawSocketRouter::HelloSeen::kBeforeWelcome;
constexpr auto kAfterWelcome = FakeRawSocketRouter::HelloSeen::kAfterWelcome;

// The engine's start with `spec` fails; its message.
std::string start_error(const WorkloadSpec& spec) {
  auto engine = Engine::start(spec);
  EXPECT_FALSE(engine.ok());
  return engine.ok() ? std::string() : engine.message();
}

std::string violation(const std::string& what, const FakeRawSocketRouter& router) {
  return what + " (a WAMP protocol violation) (connected to " + router.address() + ")";
}

// One caller and one callee session of the worker's own (callee = "worker").
WorkloadSpec caller_and_callee(const FakeRawSocketRouter& router) {
  WorkloadSpec s = test_support::rpc_spec_against(router);
  s.wamp.worker_callee = true;
  s.wamp.callee_sessions = 1;
  s.wamp.procedure = "bench.worker.echo";
  return s;
}

// A publisher and a subscriber, each answered SUBSCRIBED before its WELCOME: the subscriber's
// came before its SUBSCRIBE was sent, the publisher sends none. The engine reports whichever
// session failed first; both say what came, and neither is taken as joined (before, the
// subscriber's was, and the publisher's read "unexpected or undecodable WAMP message").
TEST(WampJoinAnswer, ASubscribedBeforeTheSubscribeWasSentFailsTheStart) {
  FakeRawSocketRouter router(2, kBeforeWelcome,
                             [](const json& message, const FakeRawSocketRouter::Reply& reply) {
                               if (message[0] == 1) reply.send(json::array({33, 1, 7}));
                             });
  const std::string error = start_error(test_support::pubsub_spec_against(router));
  EXPECT_TRUE(error == violation("the router sent SUBSCRIBED for request 1 before the session "
                                 "sent its SUBSCRIBE",
                                 router) ||
              error == violation("the router sent SUBSCRIBED for request 1, but the session "
                                 "sends no SUBSCRIBE",
                                 router))
      << error;
}

// The SUBSCRIBE is out (after WELCOME) when [SUBSCRIBED, 5, ...] comes; the fake's own answer
// to the SUBSCRIBE, naming request 1, comes after it. The publisher, joined at WELCOME, does not
// fail the start.
TEST(WampJoinAnswer, ASubscribedForAnotherRequestFailsTheStart) {
  FakeRawSocketRouter router(2, kAfterWelcome,
                             [](const json& message, const FakeRawSocketRouter::Reply& reply) {
                               if (message[0] == 1) reply.send(json::array({33, 5, 7}));
                             });
  EXPECT_EQ(start_error(test_support::pubsub_spec_against(router)),
            violation("the router sent SUBSCRIBED for request 5, but the session's SUBSCRIBE "
                      "was request 1",
                      router));
}

// The callee's REGISTER answered for another request id, or with no request id; the caller
// joined at WELCOME.
TEST(WampJoinAnswer, ARegisteredForAnotherRequestFailsTheStart) {
  for (const auto& [registered, what] :
       {std::pair{json::array({65, 2, 9}), std::string("for request 2, but the session's "
                                                       "REGISTER was request 1")},
        std::pair{json::array({65, "1", 9}), std::string("with no request id, but the "
                                                         "session's REGISTER was request 1")}}) {
    SCOPED_TRACE(registered.dump());
    FakeRawSocketRouter router(2, kBeforeWelcome,
                               [&](const json& message, const FakeRawSocketRouter::Reply& reply) {
                                 if (message[0] == 64) reply.send(registered);  // REGISTER
                               });
    EXPECT_EQ(start_error(caller_and_callee(router)),
              violation("the router sent REGISTERED " + what, router));
  }
}

// A caller sends no REGISTER: a REGISTERED before its WELCOME answers nothing it asked.
TEST(WampJoinAnswer, ARegisteredToACallerFailsTheStart) {
  FakeRawSocketRouter router(1, kBeforeWelcome,
                             [](const json& message, const FakeRawSocketRouter::Reply& reply) {
                               if (message[0] == 1) reply.send(json::array({65, 1, 9}));
                             });
  EXPECT_EQ(start_error(test_support::rpc_spec_against(router)),
            violation("the router sent REGISTERED for request 1, but the session sends no REGISTER",
                      router));
}

// The join's own answer still joins: a callee answered [REGISTERED, 1, ...] starts.
TEST(WampJoinAnswer, TheRegisteredOfTheJoinsRequestJoins) {
  FakeRawSocketRouter router(2, kBeforeWelcome,
                             [](const json& message, const FakeRawSocketRouter::Reply& reply) {
                               if (message[0] == 64) reply.send(json::array({65, message[1], 9}));
                             });
  auto engine = Engine::start(caller_and_callee(router));
  EXPECT_TRUE(engine.ok()) << (engine.ok() ? "" : engine.message());
}

}  // namespace
}  // namespace benchgate::worker::join_answer_test
