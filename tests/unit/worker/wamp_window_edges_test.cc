// What a WAMP session does at a window's edges, against a RawSocket MessagePack "router"
// written here that drops a session or delivers an EVENT on cue, which the bundled one never
// does: a session the router closes during the start lead joins again at once and measures the
// window (docs/MEASUREMENT.md "Operations, successes and errors"), and an EVENT the subscriber
// cannot read is placed in its window by what can be read of it.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <boost/asio.hpp>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "common/time/clock.h"
#include "wamp_engine_test_support.h"
#include "worker/engine/engine.h"

// A namespace of this file's own: the tests of this folder compile in batches, and the other
// files define names of their own in their anonymous namespaces.
namespace benchgate::worker::window_edges_test {
namespace {

using nlohmann::json;
using W = WampRequestSpec;
namespace net = boost::asio;
using test_support::kMs;

// Serves at most `sessions` sessions, each on a thread of its own until the worker closes it:
// echoes the RawSocket handshake, answers HELLO with WELCOME and SUBSCRIBE with SUBSCRIBED, and
// hands each of them and every other message to `on_message` (a HELLO after its WELCOME is
// written), with the session's number (from 1) and ways to answer it, to write to every
// subscriber and to close it.
class EdgeRouter {
 public:
  struct Reply {
    uint32_t session;
    std::function<void(const json&)> send;
    std::function<void(const json&)> to_subscribers;
    std::function<void()> close;
  };
  using OnMessage = std::function<void(const json& message, const Reply& reply)>;

  EdgeRouter(uint32_t sessions, OnMessage on_message)
      : on_message_(std::move(on_message)),
        acceptor_(io_, {net::ip::make_address("127.0.0.1"), 0}),
        sessions_left_(sessions) {
    accept();
    io_thread_ = std::thread([this] { io_.run(); });
  }
  // After the worker's engine is gone: its sessions' threads have seen their sockets close.
  ~EdgeRouter() {
    io_.stop();
    io_thread_.join();
    for (std::thread& t : session_threads_) t.join();
  }

  std::string address() const {
    return "127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port());
  }
  uint32_t sessions() const { return accepted_.load(); }

 private:
  struct Link {
    explicit Link(net::ip::tcp::socket s) : socket(std::move(s)) {}
    net::ip::tcp::socket socket;
    std::mutex write;
  };

  void accept() {
    if (sessions_left_ == 0) return;  // later connects wait in the backlog, unanswered
    acceptor_.async_accept([this](boost::system::error_code ec, net::ip::tcp::socket socket) {
      if (ec) return;
      --sessions_left_;
      const uint32_t number = ++accepted_;
      auto link = std::make_shared<Link>(std::move(socket));
      session_threads_.emplace_back([this, link, number] { serve(*link, number); });
      accept();
    });
  }

  static void write(Link& link, const json& message) {
    const std::vector<uint8_t> body = json::to_msgpack(message);
    const auto n = static_cast<uint32_t>(body.size());
    const std::array<uint8_t, 4> header{0, static_cast<uint8_t>(n >> 16),
                                        static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n)};
    std::lock_guard lock(link.write);
    boost::system::error_code ignored;
    net::write(link.socket, std::array{net::buffer(header), net::buffer(body)}, ignored);
  }

  void serve(Link& link, uint32_t number) {
    boost::system::error_code ec;
    std::array<uint8_t, 4> handshake{};
    net::read(link.socket, net::buffer(handshake), ec);
    net::write(link.socket, net::buffer(handshake), ec);  // the same serializer and length back
    const Reply reply{number, [&link](const json& m) { write(link, m); },
                      [this](const json& m) {
                        std::lock_guard lock(subscribers_mutex_);
                        for (Link* s : subscribers_) write(*s, m);
                      },
                      [&link] {
                        std::lock_guard lock(link.write);
                        boost::system::error_code ignored;
                        link.socket.shutdown(net::ip::tcp::socket::shutdown_both, ignored);
                      }};
    for (;;) {
      std::array<uint8_t, 4> header{};
      net::read(link.socket, net::buffer(header), ec);
      if (ec) break;
      std::vector<uint8_t> body((size_t{header[1]} << 16) | (size_t{header[2]} << 8) | header[3]);
      net::read(link.socket, net::buffer(body), ec);
      if (ec) break;
      const json message = json::from_msgpack(body, true, false);
      if (!message.is_array() || message.empty()) break;
      const uint64_t type = message[0].get<uint64_t>();
      if (type == 1) {  // HELLO
        reply.send(json::array({2, number, json::object()}));
      } else if (type == 32) {  // SUBSCRIBE: [32, request, {}, topic]
        {
          std::lock_guard lock(subscribers_mutex_);
          subscribers_.push_back(&link);
        }
        reply.send(json::array({33, message[1], 7}));
      }
      on_message_(message, reply);
    }
    std::lock_guard lock(subscribers_mutex_);
    std::erase(subscribers_, &link);
  }

  OnMessage on_message_;
  net::io_context io_;
  net::ip::tcp::acceptor acceptor_;
  uint32_t sessions_left_;  // touched on the io thread only
  std::atomic<uint32_t> accepted_{0};
  std::vector<std::thread> session_threads_;
  std::mutex subscribers_mutex_;
  std::vector<Link*> subscribers_;
  std::thread io_thread_;
};

WorkloadSpec rpc_spec(const EdgeRouter& router) {
  WorkloadSpec s;
  s.name = "edges";
  s.protocol = "wamp_rpc";
  s.address = router.address();
  s.connections = 1;
  s.threads = 1;
  s.in_flight = 1;
  s.drain_timeout_ns = 3000 * kMs;
  s.connect_timeout_ns = 3000 * kMs;
  s.wamp.transport = W::Transport::kRawSocket;
  s.wamp.serializer = W::Serializer::kMsgpack;
  s.wamp.request_bytes = 100;
  return s;
}

// One publisher asking for acknowledgements and one subscriber, a session each.
WorkloadSpec pubsub_spec(const EdgeRouter& router) {
  WorkloadSpec s = rpc_spec(router);
  s.protocol = "wamp_pubsub";
  s.connections = 2;
  s.wamp.kind = W::Kind::kPubSub;
  s.wamp.publishers = 1;
  s.wamp.subscribers = 1;
  s.wamp.acknowledge = true;
  return s;
}

// A window with a 1 s start lead (the HTTP engine tests' margin for a loaded machine).
WindowResult run_with_lead(Engine& engine, uint32_t index, int64_t duration_ns) {
  const WindowCommand window{index, true, 0, duration_ns, steady_now_ns() + 1000 * kMs};
  auto result = engine.run_window(window, [](const ProgressReport&) {});
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.message());
  return result.ok() ? std::move(*result) : WindowResult();
}

// The caller's session is down when the second window is announced (its first window's call
// went unanswered and timed out), so begin_window joins it again; the router closes that
// session right after its WELCOME, within the lead. It joins again at once and measures the
// window as the HTTP connection does (AConnectionTheServerClosesDuringTheStartLeadMeasuresThe-
// Window in engine_test.cc): before, it stayed down and the window had 0 operations and no
// error.
TEST(WampWindowEdges, ASessionTheRouterClosesDuringTheStartLeadMeasuresTheWindow) {
  std::atomic<bool> answer{false};
  std::atomic<uint64_t> results{0};
  EdgeRouter router(4, [&](const json& message, const EdgeRouter::Reply& reply) {
    // The second session is the one the second window's begin_window sets up.
    if (message[0] == 1 && reply.session == 2) return reply.close();
    if (message[0] != 48 || !answer) return;  // CALL: [48, request, {}, procedure, args]
    ++results;
    reply.send(json::array({50, message[1], json::object(), message[4]}));
  });
  WorkloadSpec s = rpc_spec(router);
  s.drain_timeout_ns = 50 * kMs;
  auto engine = test_support::start(s);
  ASSERT_TRUE(engine);
  const WindowResult first = test_support::run(*engine, 0, 20 * kMs);
  EXPECT_EQ(first.errors[static_cast<size_t>(ErrorKind::kTimeout)], 1u);
  EXPECT_EQ(router.sessions(), 1u);
  answer = true;
  const WindowResult second = run_with_lead(*engine, 1, 150 * kMs);
  engine.reset();
  EXPECT_EQ(router.sessions(), 3u);
  EXPECT_GT(second.successes, 0u);
  EXPECT_EQ(second.operations, results.load());
  EXPECT_EQ(second.successes, second.operations);
  EXPECT_EQ(test_support::total_errors(second), 0u);
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
  EdgeRouter router(2, [&](const json& message, const EdgeRouter::Reply& reply) {
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
  WorkloadSpec s = pubsub_spec(router);
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
