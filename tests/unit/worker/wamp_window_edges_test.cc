// What a WAMP session does at a window's edges, against a RawSocket MessagePack "router"
// (fake_rawsocket_router.h) that drops a session or delivers an EVENT on cue, which the bundled
// one never does: a session the router closes during the start lead joins again at once and
// measures the window (docs/MEASUREMENT.md "Operations, successes and errors"), and an EVENT the
// subscriber cannot read is placed in its window by what can be read of it.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>

#include "fake_rawsocket_router.h"
#include "wamp_engine_test_support.h"
#include "worker/engine/engine.h"

// A namespace of this file's own: the tests of this folder compile in batches, and the other
// files define names of their own in their anonymous namespaces.
namespace benchgate::worker::window_edges_test {
namespace {

using nlohmann::json;
using test_support::FakeRawSocketRouter;
using test_support::kMs;
using test_support::pubsub_spec_against;
using test_support::rpc_spec_against;
using test_support::run_with_lead;
// A HELLO is handed on after its WELCOME: a test can close the session it welcomed.
constexpr auto kAfterWelcome = FakeRawSocketRouter::HelloSeen::kAfterWelcome;

// The caller's session is down when the window is announced (the router ended it while idle,
// and the test waits until the worker has closed its end), so begin_window joins it again; the
// router closes that session right after its WELCOME, within the lead. It joins again at once
// and measures the window as the HTTP connection does (AConnectionTheServerClosesDuringTheStart-
// LeadMeasuresTheWindow in engine_test.cc): before, it stayed down and the window had 0
// operations and no error. (A first window whose unanswered call timed out took the session
// down before, and on a loaded machine whose load thread woke after that 20 ms window's end,
// sent nothing: the session stayed up, and the router saw 1 session instead of 3.)
TEST(WampWindowEdges, ASessionTheRouterClosesDuringTheStartLeadMeasuresTheWindow) {
  std::atomic<uint64_t> results{0};
  FakeRawSocketRouter router(
      4, kAfterWelcome, [&](const json& message, const FakeRawSocketRouter::Reply& reply) {
        // The second session is the one the window's begin_window sets up.
        if (message[0] == 1 && reply.session == 2) return reply.close();
        if (message[0] != 48) return;  // CALL: [48, request, {}, procedure, args]
        ++results;
        reply.send(json::array({50, message[1], json::object(), message[4]}));
      });
  auto engine = test_support::start(rpc_spec_against(router));
  ASSERT_TRUE(engine);
  ASSERT_EQ(router.sessions(), 1u);
  ASSERT_TRUE(router.end_session(1));
  const WindowResult r = run_with_lead(*engine, 0, 150 * kMs);
  engine.reset();
  EXPECT_EQ(router.sessions(), 3u);
  EXPECT_GT(r.successes, 0u);
  EXPECT_EQ(r.operations, results.load());
  EXPECT_EQ(r.successes, r.operations);
  EXPECT_EQ(test_support::total_errors(r), 0u);
}

// An EVENT of the first window arrives late, during the second, with its window element
// unreadable and its send instants intact; it stands in for that window's first publication,
// which reaches no subscriber. It was sent before the second window started, when none of that
// window had been, so it is the first window's, ignored as a readable one is, and the second
// window has one `lost` (before: its arrival after the start made it this window's protocol
// error and delivery, which hid the loss).
TEST(WampWindowEdges, ALateEventWithNoReadableWindowIsPlacedByItsSendInstant) {
  std::atomic<uint64_t> publications{0};
  std::atomic<bool> held_back{false};
  std::mutex first_window_mutex;
  json first_window_args;  // one publication of the first window: [intended, sent, seq, 0, data]
  FakeRawSocketRouter router(
      2, kAfterWelcome, [&](const json& message, const FakeRawSocketRouter::Reply& reply) {
        if (message[0] != 16) return;  // PUBLISH: [16, request, {acknowledge}, topic, args]
        const json& args = message[4];
        const uint64_t publication = ++publications;
        if (args[3] == 0) {
          std::lock_guard lock(first_window_mutex);
          first_window_args = args;
        }
        if (args[3] == 1 && !held_back.exchange(true)) {
          std::lock_guard lock(first_window_mutex);
          json late = first_window_args;
          late[3] = "no window";
          reply.to_subscribers(json::array({36, 7, 1, json::object(), late}));
        } else {
          reply.to_subscribers(json::array({36, 7, publication, json::object(), args}));
        }
        reply.send(json::array({17, message[1], publication}));
      });
  WorkloadSpec s = pubsub_spec_against(router);
  s.drain_timeout_ns = 100 * kMs;  // the engine waits this long for the lost event
  auto engine = test_support::start(s);
  ASSERT_TRUE(engine);
  const WindowResult first = test_support::run(*engine, 0, 50 * kMs);
  EXPECT_GT(first.successes, 0u);
  EXPECT_EQ(test_support::total_errors(first), 0u);
  const uint64_t before = publications.load();
  const WindowResult r = test_support::run(*engine, 1, 50 * kMs);
  engine.reset();
  ASSERT_TRUE(held_back.load());
  ASSERT_TRUE(first_window_args.is_array());
  EXPECT_EQ(r.events_expected, publications.load() - before);
  EXPECT_EQ(r.events_delivered, r.events_expected - 1);
  EXPECT_EQ(r.errors[static_cast<size_t>(ErrorKind::kLost)], 1u);
  EXPECT_EQ(r.errors[static_cast<size_t>(ErrorKind::kProtocol)], 0u);
  EXPECT_EQ(test_support::total_errors(r), 1u);
  EXPECT_EQ(r.operations, r.events_expected);
}

}  // namespace
}  // namespace benchgate::worker::window_edges_test
