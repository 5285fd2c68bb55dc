// An ERROR while a WAMP session joins (worker/wamp/session.cc), against a RawSocket MessagePack
// "router" (fake_rawsocket_router.h): it is a refusal of the join's REGISTER or SUBSCRIBE only
// when that request was sent (after WELCOME) and the ERROR names it, by type and request id.
// Any other ERROR is an unexpected message: it was reported as "the router refused SUBSCRIBE to
// the topic 'bench.topic'", a request the session never sent.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "fake_rawsocket_router.h"
#include "wamp_engine_test_support.h"
#include "worker/engine/engine.h"

namespace benchgate::worker {
namespace {

using nlohmann::json;
using test_support::FakeRawSocketRouter;

// The engine's start against `router` with `spec` fails; its message.
std::string start_error(const WorkloadSpec& spec) {
  auto engine = Engine::start(spec);
  EXPECT_FALSE(engine.ok());
  return engine.ok() ? std::string() : engine.message();
}

constexpr const char* kUnexpected =
    ": unexpected or undecodable WAMP message while the session was set up";

// A caller's session answered with an ERROR before its WELCOME (the fake writes it before the
// WELCOME): no REGISTER or SUBSCRIBE was sent, so the ERROR refuses nothing the join asked.
TEST(WampJoinError, AnErrorBeforeWelcomeIsAnUnexpectedMessage) {
  FakeRawSocketRouter router(
      1, FakeRawSocketRouter::HelloSeen::kBeforeWelcome,
      [](const json& message, const FakeRawSocketRouter::Reply& reply) {
        if (message[0] != 1) return;  // HELLO
        reply.send(json::array({8, 32, 1, json::object(), "wamp.error.not_authorized"}));
      });
  const WorkloadSpec s = test_support::rpc_spec_against(router);
  EXPECT_EQ(start_error(s), "cannot connect to " + s.address + kUnexpected);
}

// A publisher and a subscriber; each session gets `error` right after its WELCOME, which the
// subscriber reads while its SUBSCRIBE is out (the publisher, joined at WELCOME, does not fail
// the start). Only an ERROR naming the SUBSCRIBE (type 32, request id 1) is its refusal.
std::string subscriber_start_error(const json& error) {
  FakeRawSocketRouter router(2, FakeRawSocketRouter::HelloSeen::kAfterWelcome,
                             [&](const json& message, const FakeRawSocketRouter::Reply& reply) {
                               if (message[0] == 1) reply.send(error);
                             });
  return start_error(test_support::pubsub_spec_against(router));
}

TEST(WampJoinError, AnErrorForAnotherRequestThanTheJoinsIsAnUnexpectedMessage) {
  const std::string refused =
      "the router refused SUBSCRIBE to the topic 'bench.topic': ERROR wamp.error.not_authorized";
  // The SUBSCRIBE's own refusal (its type and request id): quoted as a refusal.
  EXPECT_EQ(
      subscriber_start_error(json::array({8, 32, 1, json::object(), "wamp.error.not_authorized"}))
          .rfind(refused, 0),
      0u);
  for (const json& other :
       {json::array({8, 32, 2, json::object(), "wamp.error.not_authorized"}),
        json::array({8, 64, 1, json::object(), "wamp.error.not_authorized"}),
        json::array({8, "32", 1, json::object(), "wamp.error.x"}), json::array({8, 32})}) {
    SCOPED_TRACE(other.dump());
    const std::string error = subscriber_start_error(other);
    EXPECT_EQ(error.find("refused"), std::string::npos) << error;
    EXPECT_NE(error.find(kUnexpected), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace benchgate::worker
