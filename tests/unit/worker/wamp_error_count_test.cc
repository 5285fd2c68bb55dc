// How a WAMP session's failures are counted, against a RawSocket MessagePack "router"
// (fake_rawsocket_router.h) that does what the bundled one never does: each operation is counted
// once and its error once, under one kind (docs/MEASUREMENT.md "Operations, successes and errors").
// A protocol error that fails the session is attributed to the calls it failed, not counted again
// on its own; an EVENT a subscriber cannot read is one failed operation, not also lost.
#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>

#include "fake_rawsocket_router.h"
#include "wamp_engine_test_support.h"
#include "worker/engine/engine.h"

namespace benchgate::worker {
namespace {

using nlohmann::json;
using test_support::FakeRawSocketRouter;
using test_support::pubsub_spec_against;
// A HELLO is handed on before its WELCOME: what a test writes then goes out before the session
// is up.
constexpr auto kBeforeWelcome = FakeRawSocketRouter::HelloSeen::kBeforeWelcome;

uint64_t count_of(const WindowResult& r, ErrorKind kind) {
  return r.errors[static_cast<size_t>(kind)];
}

// Three calls in flight, then a message that is no WAMP message: the session fails, and each
// of the three calls is one protocol error (before: a fourth for the session itself). The
// session's reconnect is never accepted, so the window has exactly these three operations.
TEST(WampErrorCounts, AProtocolErrorCountsOncePerCallInFlight) {
  std::atomic<int> calls{0};
  FakeRawSocketRouter router(1, kBeforeWelcome,
                             [&](const json& message, const FakeRawSocketRouter::Reply& reply) {
                               if (message[0] == 48 && ++calls == 3)
                                 reply.send("not a WAMP message");
                             });
  WorkloadSpec s = test_support::rpc_spec_against(router);
  s.in_flight = 3;
  auto engine = test_support::start(s);
  ASSERT_TRUE(engine);
  const WindowResult r = test_support::run(*engine, 0, 50 * test_support::kMs);
  engine.reset();
  EXPECT_EQ(calls.load(), 3);
  EXPECT_EQ(r.operations, 3u);
  EXPECT_EQ(r.successes, 0u);
  EXPECT_EQ(count_of(r, ErrorKind::kProtocol), 3u);
  EXPECT_EQ(test_support::total_errors(r), 3u);
}

// Every publication is acknowledged and delivered to the one subscriber as an EVENT whose
// arguments are no list: each delivery is one operation and one protocol error, and none is
// also `lost` (before: two operations and two errors per publication).
TEST(WampErrorCounts, AnEventTheSubscriberCannotReadIsOneProtocolErrorAndNotLost) {
  std::atomic<uint64_t> publications{0};
  FakeRawSocketRouter router(
      2, kBeforeWelcome, [&](const json& message, const FakeRawSocketRouter::Reply& reply) {
        if (message[0] != 16) return;  // PUBLISH: [16, request, {acknowledge}, topic, args]
        const uint64_t publication = ++publications;
        reply.to_subscribers(
            json::array({36, 7, publication, json::object(), "no arguments list"}));
        reply.send(json::array({17, message[1], publication}));
      });
  auto engine = test_support::start(pubsub_spec_against(router));
  ASSERT_TRUE(engine);
  const WindowResult r = test_support::run(*engine, 0, 50 * test_support::kMs);
  engine.reset();
  EXPECT_GT(publications.load(), 0u);
  EXPECT_EQ(r.events_expected, publications.load());
  EXPECT_EQ(r.operations, publications.load());
  EXPECT_EQ(r.successes, 0u);
  EXPECT_EQ(count_of(r, ErrorKind::kProtocol), r.operations);
  EXPECT_EQ(count_of(r, ErrorKind::kLost), 0u);
  EXPECT_EQ(test_support::total_errors(r), r.operations);
}

// A peer's ABORT is quoted, not trusted: its reason and message are each cut after 200 bytes
// and their control characters escaped, so that a router cannot forge or colour a line of the
// error, nor make it unbounded (before: the reason was dropped).
TEST(WampErrorCounts, AnAbortsReasonIsQuotedCutAndEscaped) {
  const std::string message = "line one\nline two \x1b[31m" + std::string(1000, 'x');
  FakeRawSocketRouter router(1, kBeforeWelcome,
                             [&](const json& hello, const FakeRawSocketRouter::Reply& reply) {
                               if (hello[0] != 1) return;
                               reply.send(json::array({3, {{"message", message}}, "bench.no\r"}));
                             });
  auto engine = Engine::start(test_support::rpc_spec_against(router));
  ASSERT_FALSE(engine.ok());
  const std::string shown = "line one\\nline two \\x1b[31m";
  EXPECT_EQ(engine.message(), "the router refused the WAMP session: ABORT bench.no\\r: " + shown +
                                  std::string(200 - 23, 'x') + "... (connected to " +
                                  router.address() + ")");
}

// Every publication is refused with an ERROR, two subscribers: a refused publication delivers
// nothing, so each of the two events it would have been is one operation and one error under
// the ERROR's kind (not_authorized for a role that may not publish, wamp_error otherwise), and
// none is also `lost`, nor is the publication an operation of its own (before: one error for
// the publication and two `lost` for its events, three operations).
TEST(WampErrorCounts, ARefusedPublicationIsOneErrorForEachEventItWouldHaveBeen) {
  for (const auto& [uri, kind] : {std::pair{"wamp.error.not_authorized", ErrorKind::kNotAuthorized},
                                  std::pair{"wamp.error.invalid_uri", ErrorKind::kWampError}}) {
    SCOPED_TRACE(uri);
    std::atomic<uint64_t> refused{0};
    FakeRawSocketRouter router(3, kBeforeWelcome,
                               [&](const json& message, const FakeRawSocketRouter::Reply& reply) {
                                 if (message[0] != 16)
                                   return;  // PUBLISH: [16, request, {acknowledge}, topic, args]
                                 ++refused;
                                 reply.send(json::array({8, 16, message[1], json::object(), uri}));
                               });
    WorkloadSpec s = pubsub_spec_against(router);
    s.connections = 3;
    s.wamp.subscribers = 2;
    auto engine = test_support::start(s);
    ASSERT_TRUE(engine);
    const WindowResult r = test_support::run(*engine, 0, 50 * test_support::kMs);
    engine.reset();
    EXPECT_GT(refused.load(), 0u);
    EXPECT_EQ(r.operations, 2 * refused.load());
    EXPECT_EQ(r.successes, 0u);
    EXPECT_EQ(count_of(r, kind), 2 * refused.load());
    EXPECT_EQ(count_of(r, ErrorKind::kLost), 0u);
    EXPECT_EQ(test_support::total_errors(r), 2 * refused.load());
    EXPECT_EQ(r.events_expected, 0u);
    EXPECT_EQ(r.events_delivered, 0u);
  }
}

// Every CALL is answered with an ERROR of one URI: the dealer's refusals are wamp_error, the
// bundled router's and those the WAMP spec gives a Dealer that did not route the call (no
// eligible callee, an option it does not allow, an authorization that could not be decided);
// any other URI is a callee's own answer, callee_error (before: the spec's were callee_error,
// calls an external router had refused taken for calls it routed). no_available_callee is also
// the bundled router's, for a call whose callee's link was closing: not routed (before: the
// router said wamp.error.canceled, counted callee_error, a call it routed).
TEST(WampErrorCounts, ACallsErrorIsTheDealersRefusalOrTheCalleesAsItsUriSays) {
  for (const auto& [uri, kind] :
       {std::pair{"wamp.error.no_such_procedure", ErrorKind::kWampError},
        std::pair{"benchgate.error.too_many_pending_calls", ErrorKind::kWampError},
        std::pair{"wamp.error.no_available_callee", ErrorKind::kWampError},
        std::pair{"wamp.error.no_eligible_callee", ErrorKind::kWampError},
        std::pair{"wamp.error.option_not_allowed", ErrorKind::kWampError},
        std::pair{"wamp.error.option_disallowed.disclose_me", ErrorKind::kWampError},
        std::pair{"wamp.error.authorization_failed", ErrorKind::kWampError},
        std::pair{"wamp.error.not_authorized", ErrorKind::kNotAuthorized},
        std::pair{"app.error.declined", ErrorKind::kCalleeError}}) {
    SCOPED_TRACE(uri);
    std::atomic<uint64_t> refused{0};
    FakeRawSocketRouter router(1, kBeforeWelcome,
                               [&](const json& message, const FakeRawSocketRouter::Reply& reply) {
                                 if (message[0] != 48) return;  // CALL: [48, request, {}, ...]
                                 ++refused;
                                 reply.send(json::array({8, 48, message[1], json::object(), uri}));
                               });
    auto engine = test_support::start(test_support::rpc_spec_against(router));
    ASSERT_TRUE(engine);
    const WindowResult r = test_support::run(*engine, 0, 20 * test_support::kMs);
    engine.reset();
    EXPECT_GT(r.operations, 0u);
    EXPECT_EQ(r.operations, refused.load());
    EXPECT_EQ(r.successes, 0u);
    EXPECT_EQ(count_of(r, kind), r.operations);
    EXPECT_EQ(test_support::total_errors(r), r.operations);
  }
}

// A session per call (wamp_rpc with session_per_operation, whose lifecycle wamp_transfer shares):
// its CALL's ERROR is counted by the callers' rule (call_refusal.h), so a callee's own answer is
// callee_error and the dealer's timeout call_timeout. Before, every ERROR but not_authorized was
// wamp_error, and a call a callee answered was taken for one the router refused (subtracted from
// the router-count cross-check). The router answers GOODBYE (the readiness session leaves).
TEST(WampErrorCounts, ASessionPerCallCountsItsErrorAsACallersIs) {
  for (const auto& [uri, kind] : {std::pair{"wamp.error.no_such_procedure", ErrorKind::kWampError},
                                  std::pair{"wamp.error.not_authorized", ErrorKind::kNotAuthorized},
                                  std::pair{"wamp.error.timeout", ErrorKind::kCallTimeout},
                                  std::pair{"wamp.error.canceled", ErrorKind::kCalleeError},
                                  std::pair{"app.error.declined", ErrorKind::kCalleeError}}) {
    SCOPED_TRACE(uri);
    std::atomic<uint64_t> refused{0};
    FakeRawSocketRouter router(
        1000, kBeforeWelcome, [&](const json& message, const FakeRawSocketRouter::Reply& reply) {
          if (message[0] == 6) {  // GOODBYE
            reply.send(json::array({6, json::object(), "wamp.close.goodbye_and_out"}));
          }
          if (message[0] != 48) return;  // CALL: [48, request, {}, ...]
          ++refused;
          reply.send(json::array({8, 48, message[1], json::object(), uri}));
        });
    WorkloadSpec s = test_support::rpc_spec_against(router);
    s.wamp.session_per_operation = true;
    auto engine = test_support::start(s);
    ASSERT_TRUE(engine);
    const WindowResult r = test_support::run(*engine, 0, 20 * test_support::kMs);
    engine.reset();
    EXPECT_GT(r.operations, 0u);
    EXPECT_EQ(r.operations, refused.load());
    EXPECT_EQ(r.successes, 0u);
    EXPECT_EQ(count_of(r, kind), r.operations);
    EXPECT_EQ(test_support::total_errors(r), r.operations);
  }
}

// Open loop, 50 publications due in the window (1000/s for 50 ms), two subscribers, one
// publication in flight: the router answers none, so the first stays outstanding until the
// drain deadline and the other 49 are never written. Each of those is the two events it would
// have been, two `not_sent` operations, as a refused publication is two failed ones; the one
// published is two `lost`. So the window's operations are exactly the schedule's 100 events
// (before: one `not_sent` per publication, 51 operations).
TEST(WampErrorCounts, APublicationNeverWrittenIsOneNotSentForEachEventItWouldHaveBeen) {
  std::atomic<uint64_t> publications{0};
  FakeRawSocketRouter router(3, kBeforeWelcome,
                             [&](const json& message, const FakeRawSocketRouter::Reply&) {
                               if (message[0] == 16) ++publications;  // PUBLISH, never answered
                             });
  WorkloadSpec s = pubsub_spec_against(router);
  s.connections = 3;
  s.wamp.subscribers = 2;
  s.rate = 1000;
  s.drain_timeout_ns = 100 * test_support::kMs;
  auto engine = test_support::start(s);
  ASSERT_TRUE(engine);
  const WindowResult r = test_support::run(*engine, 0, 50 * test_support::kMs);
  engine.reset();
  EXPECT_EQ(publications.load(), 1u);
  EXPECT_EQ(r.unsent, 49u);  // publications of the schedule, as late_sends
  EXPECT_EQ(count_of(r, ErrorKind::kNotSent), 2u * 49u);
  EXPECT_EQ(count_of(r, ErrorKind::kLost), 2u);
  EXPECT_EQ(r.operations, 2u * 50u);
  EXPECT_EQ(r.successes, 0u);
  EXPECT_EQ(test_support::total_errors(r), r.operations);
}

// Three publications outstanding, none acknowledged; the router delivers the first two to the
// one subscriber and at the third closes the publisher's session, writes it a message that is
// no WAMP message, or does nothing until the drain deadline ends the session (a reconnect is
// never accepted). A publication is no operation: its event is, counted once, delivered or
// `lost`, so the window has three operations, two successes and one `lost`; the failure fails
// no operation and counts on its own only as a protocol error, as a subscriber's does (before:
// one error more per publication under the failure's kind, reset, protocol or timeout, and
// six operations).
TEST(WampErrorCounts, APublicationOutstandingWhenItsLinkFailsIsCountedByItsEvents) {
  enum class Failure { kClose, kNotWamp, kDrainDeadline };
  for (const Failure failure : {Failure::kClose, Failure::kNotWamp, Failure::kDrainDeadline}) {
    SCOPED_TRACE(static_cast<int>(failure));
    std::atomic<uint64_t> publications{0};
    FakeRawSocketRouter router(
        2, kBeforeWelcome, [&](const json& message, const FakeRawSocketRouter::Reply& reply) {
          if (message[0] != 16) return;  // PUBLISH: [16, request, {acknowledge}, topic, args]
          const uint64_t publication = ++publications;
          if (publication < 3) {
            reply.to_subscribers(json::array({36, 7, publication, json::object(), message[4]}));
          } else if (failure == Failure::kClose) {
            reply.close();
          } else if (failure == Failure::kNotWamp) {
            reply.send("not a WAMP message");
          }
        });
    WorkloadSpec s = pubsub_spec_against(router);
    s.in_flight = 3;
    s.drain_timeout_ns = 100 * test_support::kMs;  // the engine waits this long for the third
    auto engine = test_support::start(s);
    ASSERT_TRUE(engine);
    const WindowResult r = test_support::run(*engine, 0, 50 * test_support::kMs);
    engine.reset();
    EXPECT_EQ(publications.load(), 3u);
    EXPECT_EQ(r.events_expected, 3u);
    EXPECT_EQ(r.events_delivered, 2u);
    EXPECT_EQ(r.operations, 3u);
    EXPECT_EQ(r.successes, 2u);
    EXPECT_EQ(count_of(r, ErrorKind::kLost), 1u);
    const uint64_t protocol = failure == Failure::kNotWamp ? 1 : 0;
    EXPECT_EQ(count_of(r, ErrorKind::kProtocol), protocol);
    EXPECT_EQ(test_support::total_errors(r), 1u + protocol);
  }
}

// An unreadable EVENT of the first window (its first argument is no number, its window is 0)
// arrives in the second, and that window's first publication reaches no subscriber: the late
// event is the first window's, ignored as a readable one is, and the second window has one
// `lost` (before: the late event counted as this window's protocol error and delivery, and hid
// the loss).
TEST(WampErrorCounts, ALateUnreadableEventOfTheWindowBeforeDoesNotHideALoss) {
  std::atomic<uint64_t> publications{0};
  std::atomic<bool> held_back{false};
  FakeRawSocketRouter router(
      2, kBeforeWelcome, [&](const json& message, const FakeRawSocketRouter::Reply& reply) {
        if (message[0] != 16) return;   // PUBLISH: [16, request, {acknowledge}, topic, args]
        const json& args = message[4];  // [intended_ns, sent_ns, sequence, window, payload]
        const uint64_t publication = ++publications;
        if (args[3] == 1 && !held_back.exchange(true)) {
          reply.to_subscribers(
              json::array({36, 7, 1, json::object(), json::array({"late", 0, 0, 0, 0})}));
        } else {
          reply.to_subscribers(json::array({36, 7, publication, json::object(), args}));
        }
        reply.send(json::array({17, message[1], publication}));
      });
  WorkloadSpec s = pubsub_spec_against(router);
  s.drain_timeout_ns = 100 * test_support::kMs;  // the engine waits this long for the lost event
  auto engine = test_support::start(s);
  ASSERT_TRUE(engine);
  const WindowResult first = test_support::run(*engine, 0, 50 * test_support::kMs);
  EXPECT_GT(first.successes, 0u);
  EXPECT_EQ(test_support::total_errors(first), 0u);
  const uint64_t before = publications.load();
  const WindowResult r = test_support::run(*engine, 1, 50 * test_support::kMs);
  engine.reset();
  EXPECT_TRUE(held_back.load());
  EXPECT_EQ(r.events_expected, publications.load() - before);
  EXPECT_EQ(r.events_delivered, r.events_expected - 1);
  EXPECT_EQ(count_of(r, ErrorKind::kLost), 1u);
  EXPECT_EQ(count_of(r, ErrorKind::kProtocol), 0u);
  EXPECT_EQ(test_support::total_errors(r), 1u);
  EXPECT_EQ(r.operations, r.events_expected);
}

// An EVENT with no arguments to read, not even its window, arrives during the second window's
// start lead (the router sends it when the publisher it dropped after the first window joins
// again): nothing of this window had been published, so it is an earlier window's and counts
// nowhere (before: one protocol error and one delivery more than the window published).
TEST(WampErrorCounts, AnUnreadableEventBeforeTheWindowStartsIsNotThisWindows) {
  std::atomic<uint64_t> publications{0};
  std::atomic<int> hellos{0};
  FakeRawSocketRouter router(
      3, kBeforeWelcome, [&](const json& message, const FakeRawSocketRouter::Reply& reply) {
        if (message[0] == 1 && ++hellos == 3) {  // the publisher's HELLO of the second window
          reply.to_subscribers(json::array({36, 7, 1, json::object(), "no arguments list"}));
        }
        if (message[0] != 16) return;  // PUBLISH: [16, request, {acknowledge}, topic, args]
        const uint64_t publication = ++publications;
        reply.to_subscribers(json::array({36, 7, publication, json::object(), message[4]}));
        reply.send(json::array({17, message[1], publication}));
      });
  auto engine = test_support::start(pubsub_spec_against(router));
  ASSERT_TRUE(engine);
  const WindowResult first = test_support::run(*engine, 0, 50 * test_support::kMs);
  EXPECT_GT(first.successes, 0u);
  router.close_publishers();
  const uint64_t before = publications.load();
  const WindowResult r = test_support::run_with_lead(*engine, 1, 50 * test_support::kMs);
  engine.reset();
  EXPECT_EQ(hellos.load(), 3);
  EXPECT_GT(r.successes, 0u);
  EXPECT_EQ(r.events_expected, publications.load() - before);
  EXPECT_EQ(r.events_delivered, r.events_expected);
  EXPECT_EQ(r.operations, r.successes);
  EXPECT_EQ(count_of(r, ErrorKind::kProtocol), 0u);
  EXPECT_EQ(test_support::total_errors(r), 0u);
}

// The subscriber's stream breaks at the framing (a RawSocket header of no frame type) while
// it waits for events: it had no operation of its own in flight, so the failure counts once on
// its own, as a message it cannot read does (before: no error at all).
TEST(WampErrorCounts, ASubscriberWhoseFramingBreaksCountsOneProtocolError) {
  std::atomic<bool> broken{false};
  FakeRawSocketRouter* fake = nullptr;
  FakeRawSocketRouter router(2, kBeforeWelcome,
                             [&](const json& message, const FakeRawSocketRouter::Reply& reply) {
                               if (message[0] != 16)
                                 return;  // PUBLISH: [16, request, {acknowledge}, topic, args]
                               if (!broken.exchange(true))
                                 fake->send_subscribers_a_bad_frame_header();
                               reply.send(json::array({17, message[1], 1}));
                             });
  fake = &router;
  auto engine = test_support::start(pubsub_spec_against(router));
  ASSERT_TRUE(engine);
  const WindowResult r = test_support::run(*engine, 0, 50 * test_support::kMs);
  engine.reset();
  EXPECT_TRUE(broken.load());
  EXPECT_EQ(count_of(r, ErrorKind::kProtocol), 1u);
}

}  // namespace
}  // namespace benchgate::worker
