// The sessions a WAMP router ends while a window runs (its ABORT or GOODBYE to a joined session),
// against a RawSocket MessagePack "router" (fake_rawsocket_router.h): the window's result says
// why, in the router's words quoted as the join's ABORT is (worker/wamp/errors.h closing_words),
// each reason once with its count (worker/engine/session_end.h). Before, only the protocol
// errors they counted reached the report.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
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

// A router's session that stops reading until released: what the worker writes it waits in the
// sockets' buffers, then in the worker's own queue.
class ReadingStopped {
 public:
  void wait() {
    std::unique_lock lock(mutex_);
    released_cv_.wait(lock, [this] { return released_; });
  }
  void release() {
    std::lock_guard lock(mutex_);
    released_ = true;
    released_cv_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable released_cv_;
  bool released_ = false;
};

// Session 1's link buffers, the router's receive and the worker's send (limit_link_buffers):
// small and fixed, where autotuning would grow them up to the machine's tcp_rmem and tcp_wmem.
constexpr int kLinkBuffer = 64 * 1024;
// kCallsBehind calls of kCallBytes: far more than those buffers hold (expect_the_answer_held_back).
constexpr uint32_t kCallsBehind = 16;
constexpr uint64_t kCallBytes = 1 << 20;

// Session 1 answers its first CALL with GOODBYE and stops reading, with kCallsBehind calls of
// kCallBytes queued ahead of the worker's answer, so that the answer is never written; session 2
// echoes every CALL.
struct GoodbyeThenDeaf {
  // Before the router, which calls on them from its threads until it is destroyed.
  std::atomic<bool> goodbye_sent{false};
  ReadingStopped deaf;
  FakeRawSocketRouter router{
      2, FakeRawSocketRouter::HelloSeen::kBeforeWelcome,
      [this](const json& message, const FakeRawSocketRouter::Reply& reply) {
        if (message[0] != 48) return;  // CALL: [48, request, {}, procedure, [payload]]
        if (reply.session == 1) {
          if (goodbye_sent.exchange(true)) return;
          reply.send(json::array({6, json::object(), "wamp.close.system_shutdown"}));
          deaf.wait();
          return;
        }
        reply.send(json::array({50, message[1], json::object(), message[4]}));
      }};
  GoodbyeThenDeaf() { router.limit_link_buffers(1, kLinkBuffer); }
  // Lets session 1 read (and see the worker's close) before the router joins its thread.
  ~GoodbyeThenDeaf() { deaf.release(); }

  // The calls queued ahead of the answer are far more than session 1's link holds, by its
  // buffers as the kernel set them: so the answer was never written, and the test does not pass
  // without the behaviour it checks (nor hangs) where a machine's buffers would take it all.
  void expect_the_answer_held_back() const {
    const auto buffers = router.link_buffers();
    EXPECT_GT(buffers.router_receive, 0) << "session 1's receive buffer was not set";
    EXPECT_GT(buffers.worker_send, 0) << "the worker's socket of session 1 was not found";
    EXPECT_GT(uint64_t{kCallsBehind} * kCallBytes,
              8 * static_cast<uint64_t>(buffers.router_receive + buffers.worker_send));
  }

  WorkloadSpec spec() const {
    WorkloadSpec s = test_support::rpc_spec_against(router);
    s.in_flight = kCallsBehind;
    s.wamp.request_bytes = kCallBytes;
    s.drain_timeout_ns = 10'000 * test_support::kMs;  // the last calls' echo, however slow
    return s;
  }
};

// The router's GOODBYE, and then it reads nothing more while keeping the link open: the worker's
// answer waits at most kGoodbyeAnswerWait (1 s) to be written, then the worker closes the link and
// joins again, and the rest of the window is measured on the new session. Before (82a2723), the
// session waited for the answer until the next window, and this window measured nothing more.
// The window is 3 s: the wait and a join fit in it far over.
TEST(WampSessionEnds, AnAnswerTheRouterNeverReadsHoldsTheSessionAtMostTheAnswerWait) {
  GoodbyeThenDeaf fake;
  auto engine = test_support::start(fake.spec());
  ASSERT_TRUE(engine);
  const WindowResult r = test_support::run(*engine, 0, 3000 * test_support::kMs);
  engine.reset();
  fake.expect_the_answer_held_back();
  EXPECT_EQ(fake.router.sessions(), 2u);
  const std::vector<SessionEnd> expected{{"GOODBYE wamp.close.system_shutdown", 1}};
  EXPECT_EQ(r.sessions_ended, expected);
  // The calls outstanding when the session ended, one protocol error each; session 2's were
  // answered.
  EXPECT_EQ(r.errors[static_cast<size_t>(ErrorKind::kProtocol)], kCallsBehind);
  EXPECT_EQ(test_support::total_errors(r), kCallsBehind);
  EXPECT_GT(r.successes, 0u);
}

// The same router, with windows of 100 ms: its GOODBYE comes in the first, and the second begins
// well within the answer's wait. The next window closes a link whose answer is still unwritten
// and joins again, so the second window is measured. Before (31b6600), the session waited on,
// and the second window had no session to send on.
TEST(WampSessionEnds, TheNextWindowClosesALinkWhoseAnswerIsStillUnwritten) {
  GoodbyeThenDeaf fake;
  auto engine = test_support::start(fake.spec());
  ASSERT_TRUE(engine);
  const WindowResult first = test_support::run(*engine, 0, 100 * test_support::kMs);
  const WindowResult second = test_support::run(*engine, 1, 100 * test_support::kMs);
  engine.reset();
  fake.expect_the_answer_held_back();
  const std::vector<SessionEnd> expected{{"GOODBYE wamp.close.system_shutdown", 1}};
  EXPECT_EQ(first.sessions_ended, expected);
  EXPECT_EQ(first.errors[static_cast<size_t>(ErrorKind::kProtocol)], kCallsBehind);
  EXPECT_EQ(fake.router.sessions(), 2u);
  EXPECT_TRUE(second.sessions_ended.empty());
  EXPECT_GT(second.successes, 0u);
  EXPECT_EQ(test_support::total_errors(second), 0u);
}

// A session per call (session_per_operation): the router echoes each CALL, then answers the
// session's GOODBYE with ABORT and closes the link (the readiness session's GOODBYE, before the
// window, it answers with GOODBYE). Each such end is the router ending the session: one protocol
// error for the call whose lifecycle it ended, its words reported. Before, the leaving session
// ignored the ABORT and the close counted as the link's failure (short_read or reset), with
// nothing said of why.
TEST(WampSessionEnds, AnAbortAnsweringTheSessionsGoodbyeIsTheRouterEndingIt) {
  FakeRawSocketRouter router(
      1000, FakeRawSocketRouter::HelloSeen::kBeforeWelcome,
      [](const json& message, const FakeRawSocketRouter::Reply& reply) {
        if (message[0] == 48) {  // CALL: [48, request, {}, procedure, [payload]]
          reply.send(json::array({50, message[1], json::object(), message[4]}));
        } else if (message[0] == 6 && reply.session == 1) {  // GOODBYE
          reply.send(json::array({6, json::object(), "wamp.close.goodbye_and_out"}));
        } else if (message[0] == 6) {
          reply.send(json::array({3, {{"message", "no"}}, "wamp.close.system_shutdown"}));
          reply.close();
        }
      });
  WorkloadSpec s = test_support::rpc_spec_against(router);
  s.wamp.session_per_operation = true;
  auto engine = test_support::start(s);
  ASSERT_TRUE(engine);
  const WindowResult r = test_support::run(*engine, 0, 20 * test_support::kMs);
  engine.reset();
  ASSERT_GT(r.operations, 0u);
  EXPECT_EQ(r.successes, 0u);
  EXPECT_EQ(r.errors[static_cast<size_t>(ErrorKind::kProtocol)], r.operations);
  EXPECT_EQ(test_support::total_errors(r), r.operations);
  const std::vector<SessionEnd> expected{{"ABORT wamp.close.system_shutdown: no", r.operations}};
  EXPECT_EQ(r.sessions_ended, expected);
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
