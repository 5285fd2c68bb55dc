// How a WAMP session's failures are counted, against a RawSocket MessagePack "router" written
// here that does what the bundled one never does: each operation is counted once and its
// error once, under one kind (docs/MEASUREMENT.md "Operations, successes and errors"). A
// protocol error that fails the session is attributed to the calls it failed, not counted
// again on its own; an EVENT a subscriber cannot read is one failed operation, not also lost.
#include <gtest/gtest.h>

#include <algorithm>
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

namespace benchgate::worker {
namespace {

using nlohmann::json;
using W = WampRequestSpec;
namespace net = boost::asio;

// Welcomes every session it accepts (at most `sessions`, each served by a thread of its own
// until the worker closes it), answers SUBSCRIBE, and hands every CALL and PUBLISH to
// `on_message` with a way to write to that session and to the subscribers; a HELLO too, before
// its WELCOME.
class FakeRawSocketRouter {
 public:
  using Send = std::function<void(const json&)>;
  using OnMessage =
      std::function<void(const json& message, const Send& reply, const Send& to_subscribers)>;

  FakeRawSocketRouter(uint32_t sessions, OnMessage on_message)
      : on_message_(std::move(on_message)),
        acceptor_(io_, {net::ip::make_address("127.0.0.1"), 0}),
        sessions_left_(sessions) {
    accept();
    io_thread_ = std::thread([this] { io_.run(); });
  }
  // After the worker's engine is gone: its sessions' threads have seen their sockets close.
  ~FakeRawSocketRouter() {
    io_.stop();
    io_thread_.join();
    for (std::thread& t : session_threads_) t.join();
  }

  std::string address() const {
    return "127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port());
  }

  // Closes every session that did not subscribe, as a router dropping them would.
  void close_publishers() {
    std::lock_guard lock(subscribers_mutex_);
    for (Link* l : links_) {
      if (std::find(subscribers_.begin(), subscribers_.end(), l) != subscribers_.end()) continue;
      boost::system::error_code ignored;
      l->socket.shutdown(net::ip::tcp::socket::shutdown_both, ignored);
    }
  }

  // Writes every subscriber a RawSocket frame header of a frame type that does not exist.
  void send_subscribers_a_bad_frame_header() {
    static constexpr std::array<uint8_t, 4> kBadHeader{0x07, 0, 0, 1};
    std::lock_guard lock(subscribers_mutex_);
    for (Link* s : subscribers_) {
      std::lock_guard write_lock(s->write);
      boost::system::error_code ignored;
      net::write(s->socket, net::buffer(kBadHeader), ignored);
    }
  }

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
      auto link = std::make_shared<Link>(std::move(socket));
      session_threads_.emplace_back([this, link] { serve(*link); });
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

  void serve(Link& link) {
    boost::system::error_code ec;
    std::array<uint8_t, 4> handshake{};
    net::read(link.socket, net::buffer(handshake), ec);
    net::write(link.socket, net::buffer(handshake), ec);  // the same serializer and length back
    const Send reply = [&link](const json& m) { write(link, m); };
    const Send to_subscribers = [this](const json& m) {
      std::lock_guard lock(subscribers_mutex_);
      for (Link* s : subscribers_) write(*s, m);
    };
    {
      std::lock_guard lock(subscribers_mutex_);
      links_.push_back(&link);
    }
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
        on_message_(message, reply, to_subscribers);
        reply(json::array({2, 1, json::object()}));
      } else if (type == 32) {  // SUBSCRIBE: [32, request, {}, topic]
        {
          std::lock_guard lock(subscribers_mutex_);
          subscribers_.push_back(&link);
        }
        reply(json::array({33, message[1], 7}));
      } else {
        on_message_(message, reply, to_subscribers);
      }
    }
    std::lock_guard lock(subscribers_mutex_);
    std::erase(subscribers_, &link);
    std::erase(links_, &link);
  }

  OnMessage on_message_;
  net::io_context io_;
  net::ip::tcp::acceptor acceptor_;
  uint32_t sessions_left_;  // touched on the io thread only
  std::vector<std::thread> session_threads_;
  std::mutex subscribers_mutex_;
  std::vector<Link*> subscribers_;
  std::vector<Link*> links_;  // every session being served
  std::thread io_thread_;
};

WorkloadSpec spec_against(const FakeRawSocketRouter& router) {
  WorkloadSpec s;
  s.name = "fake";
  s.protocol = "wamp_rpc";
  s.address = router.address();
  s.connections = 1;
  s.threads = 1;
  s.in_flight = 1;
  s.drain_timeout_ns = 3000 * test_support::kMs;
  s.connect_timeout_ns = 3000 * test_support::kMs;
  s.wamp.transport = W::Transport::kRawSocket;
  s.wamp.serializer = W::Serializer::kMsgpack;
  s.wamp.request_bytes = 100;
  return s;
}

// One publisher asking for acknowledgements and one subscriber, a connection each.
WorkloadSpec pubsub_spec_against(const FakeRawSocketRouter& router) {
  WorkloadSpec s = spec_against(router);
  s.protocol = "wamp_pubsub";
  s.connections = 2;
  s.wamp.kind = W::Kind::kPubSub;
  s.wamp.publishers = 1;
  s.wamp.subscribers = 1;
  s.wamp.acknowledge = true;
  return s;
}

uint64_t count_of(const WindowResult& r, ErrorKind kind) {
  return r.errors[static_cast<size_t>(kind)];
}

// Three calls in flight, then a message that is no WAMP message: the session fails, and each
// of the three calls is one protocol error (before: a fourth for the session itself). The
// session's reconnect is never accepted, so the window has exactly these three operations.
TEST(WampErrorCounts, AProtocolErrorCountsOncePerCallInFlight) {
  std::atomic<int> calls{0};
  FakeRawSocketRouter router(1, [&](const json& message, const FakeRawSocketRouter::Send& reply,
                                    const FakeRawSocketRouter::Send&) {
    if (message[0] == 48 && ++calls == 3) reply("not a WAMP message");
  });
  WorkloadSpec s = spec_against(router);
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
  FakeRawSocketRouter router(2, [&](const json& message, const FakeRawSocketRouter::Send& reply,
                                    const FakeRawSocketRouter::Send& to_subscribers) {
    if (message[0] != 16) return;  // PUBLISH: [16, request, {acknowledge}, topic, args]
    const uint64_t publication = ++publications;
    to_subscribers(json::array({36, 7, publication, json::object(), "no arguments list"}));
    reply(json::array({17, message[1], publication}));
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

// A window runs with a 1 s start lead (the HTTP engine tests' margin for a loaded machine).
WindowResult run_with_lead(Engine& engine, uint32_t index) {
  const WindowCommand window{index, true, 0, 50 * test_support::kMs,
                             steady_now_ns() + 1000 * test_support::kMs};
  auto result = engine.run_window(window, [](const ProgressReport&) {});
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.message());
  return result.ok() ? std::move(*result) : WindowResult();
}

// An unreadable EVENT of the first window (its first argument is no number, its window is 0)
// arrives in the second, and that window's first publication reaches no subscriber: the late
// event is the first window's, ignored as a readable one is, and the second window has one
// `lost` (before: the late event counted as this window's protocol error and delivery, and hid
// the loss).
TEST(WampErrorCounts, ALateUnreadableEventOfTheWindowBeforeDoesNotHideALoss) {
  std::atomic<uint64_t> publications{0};
  std::atomic<bool> held_back{false};
  FakeRawSocketRouter router(2, [&](const json& message, const FakeRawSocketRouter::Send& reply,
                                    const FakeRawSocketRouter::Send& to_subscribers) {
    if (message[0] != 16) return;   // PUBLISH: [16, request, {acknowledge}, topic, args]
    const json& args = message[4];  // [intended_ns, sent_ns, sequence, window, payload]
    const uint64_t publication = ++publications;
    if (args[3] == 1 && !held_back.exchange(true)) {
      to_subscribers(json::array({36, 7, 1, json::object(), json::array({"late", 0, 0, 0, 0})}));
    } else {
      to_subscribers(json::array({36, 7, publication, json::object(), args}));
    }
    reply(json::array({17, message[1], publication}));
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
  FakeRawSocketRouter router(3, [&](const json& message, const FakeRawSocketRouter::Send& reply,
                                    const FakeRawSocketRouter::Send& to_subscribers) {
    if (message[0] == 1 && ++hellos == 3) {  // the publisher's HELLO of the second window
      to_subscribers(json::array({36, 7, 1, json::object(), "no arguments list"}));
    }
    if (message[0] != 16) return;  // PUBLISH: [16, request, {acknowledge}, topic, args]
    const uint64_t publication = ++publications;
    to_subscribers(json::array({36, 7, publication, json::object(), message[4]}));
    reply(json::array({17, message[1], publication}));
  });
  auto engine = test_support::start(pubsub_spec_against(router));
  ASSERT_TRUE(engine);
  const WindowResult first = test_support::run(*engine, 0, 50 * test_support::kMs);
  EXPECT_GT(first.successes, 0u);
  router.close_publishers();
  const uint64_t before = publications.load();
  const WindowResult r = run_with_lead(*engine, 1);
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
  FakeRawSocketRouter router(2, [&](const json& message, const FakeRawSocketRouter::Send& reply,
                                    const FakeRawSocketRouter::Send&) {
    if (message[0] != 16) return;  // PUBLISH: [16, request, {acknowledge}, topic, args]
    if (!broken.exchange(true)) fake->send_subscribers_a_bad_frame_header();
    reply(json::array({17, message[1], 1}));
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
