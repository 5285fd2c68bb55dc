// The sessions a WAMP router ends while a window runs (its ABORT or GOODBYE to a joined session),
// against a RawSocket MessagePack "router" (fake_rawsocket_router.h): the window's result says
// why, in the router's words quoted as the join's ABORT is (worker/wamp/errors.h closing_words),
// each reason once with its count (worker/engine/session_end.h). Before, only the protocol
// errors they counted reached the report.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "fake_rawsocket_router.h"
#include "wamp_engine_test_support.h"
#include "worker/engine/engine.h"
#include "worker/engine/session_end.h"

namespace benchgate::worker {
// gtest prints a SessionEnd so (found by argument-dependent lookup).
inline void PrintTo(const SessionEnd& e, std::ostream* out) {
  *out << e.sessions << " x " << e.reason;
}
}  // namespace benchgate::worker

namespace benchgate::worker::session_end_test {
namespace {

using nlohmann::json;
using test_support::FakeRawSocketRouter;

// The first CALL of each of three sessions is answered with ABORT (twice) then GOODBYE; the
// caller joins again after each, and its fourth session is never accepted.
TEST(WampSessionEnds, TheRoutersAbortAndGoodbyeInAWindowAreReportedWithTheirReasons) {
  const std::string message = "going down\n\x1b[31m" + std::string(300, 'x');
  FakeRawSocketRouter router(
      3, FakeRawSocketRouter::HelloSeen::kBeforeWelcome,
      [&](const json& call, const FakeRawSocketRouter::Reply& reply) {
        if (call[0] != 48) return;  // CALL
        if (reply.session < 3) {
          reply.send(json::array({3, {{"message", message}}, "wamp.close.system_shutdown"}));
        } else {
          reply.send(json::array({6, json::object(), "wamp.close.close_realm"}));
        }
      });
  WorkloadSpec s = test_support::rpc_spec_against(router);
  s.drain_timeout_ns = 100 * test_support::kMs;
  auto engine = test_support::start(s);
  ASSERT_TRUE(engine);
  const WindowResult r = test_support::run(*engine, 0, 200 * test_support::kMs);
  engine.reset();
  EXPECT_EQ(router.sessions(), 3u);
  const std::string shown = "going down\\n\\x1b[31m" + std::string(200 - 16, 'x') + "...";
  const std::vector<SessionEnd> expected{{"ABORT wamp.close.system_shutdown: " + shown, 2},
                                         {"GOODBYE wamp.close.close_realm", 1}};
  EXPECT_EQ(r.sessions_ended, expected);
  EXPECT_EQ(r.errors[static_cast<size_t>(ErrorKind::kProtocol)], 3u);
}

// WAMP's GOODBYE is answered: the router's GOODBYE to a joined session gets the worker's own
// GOODBYE, wamp.close.goodbye_and_out, before the worker closes the link and joins again. Before,
// the worker closed the link at once, as for an ABORT, and the router never heard the answer the
// spec asks for. The session's end still counts one protocol error, and says why.
TEST(WampSessionEnds, TheRoutersGoodbyeIsAnsweredWithGoodbyeAndOutBeforeTheClose) {
  std::mutex mutex;
  std::vector<json> after_goodbye;  // what session 1 sent after the router's GOODBYE
  bool goodbye_sent = false;
  std::optional<FakeRawSocketRouter> router;
  router.emplace(2, FakeRawSocketRouter::HelloSeen::kBeforeWelcome,
                 [&](const json& message, const FakeRawSocketRouter::Reply& reply) {
                   if (reply.session != 1) return;
                   std::lock_guard lock(mutex);
                   if (goodbye_sent) {
                     after_goodbye.push_back(message);
                   } else if (message[0] == 48) {  // the first CALL
                     goodbye_sent = true;
                     reply.send(json::array({6, json::object(), "wamp.close.close_realm"}));
                   }
                 });
  WorkloadSpec s = test_support::rpc_spec_against(*router);
  s.drain_timeout_ns = 100 * test_support::kMs;
  auto engine = test_support::start(s);
  ASSERT_TRUE(engine);
  const WindowResult r = test_support::run(*engine, 0, 200 * test_support::kMs);
  engine.reset();
  router.reset();  // every session's thread has read all the worker wrote
  const std::vector<SessionEnd> expected{{"GOODBYE wamp.close.close_realm", 1}};
  EXPECT_EQ(r.sessions_ended, expected);
  EXPECT_EQ(r.errors[static_cast<size_t>(ErrorKind::kProtocol)], 1u);
  const std::vector<json> answer{json::array({6, json::object(), "wamp.close.goodbye_and_out"})};
  EXPECT_EQ(after_goodbye, answer);
}

// A peer that words every end differently adds at most kMaxSessionEndReasons reasons; the
// sessions ended for any further one count under the empty reason.
TEST(WampSessionEnds, ReasonsAreBounded) {
  std::vector<SessionEnd> ends;
  for (size_t i = 0; i < kMaxSessionEndReasons + 3; ++i) {
    add_session_end(ends, "ABORT session " + std::to_string(i), 1);
  }
  add_session_end(ends, "ABORT session 0", 2);
  add_session_end(ends, "", 4);
  ASSERT_EQ(ends.size(), kMaxSessionEndReasons + 1);
  EXPECT_EQ(ends[0], (SessionEnd{"ABORT session 0", 3}));
  EXPECT_EQ(ends[kMaxSessionEndReasons - 1].reason,
            "ABORT session " + std::to_string(kMaxSessionEndReasons - 1));
  EXPECT_EQ(ends.back(), (SessionEnd{"", 3 + 4}));
}

}  // namespace
}  // namespace benchgate::worker::session_end_test
