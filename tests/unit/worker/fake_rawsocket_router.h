// A RawSocket MessagePack "router" for the WAMP engine's tests that does on cue what the bundled
// one never does (drops a session, writes an EVENT no subscriber can read, breaks the framing),
// and the workloads run against it. 127.0.0.1, a free port; it serves at most `sessions`
// sessions, each on a thread of its own until the worker closes it (later connects wait in the
// backlog, unanswered). It echoes the RawSocket handshake, answers HELLO with WELCOME and
// SUBSCRIBE with SUBSCRIBED, and hands every message to `on_message` with the session's number
// (from 1) and ways to answer it, to write to every subscriber and to close it: a SUBSCRIBE
// after its SUBSCRIBED, a HELLO before or after its WELCOME as the test asks (HelloSeen).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio.hpp>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "common/time/clock.h"
#include "wamp_engine_test_support.h"
#include "worker/engine/engine.h"

namespace benchgate::worker::test_support {

class FakeRawSocketRouter {
 public:
  using json = nlohmann::json;

  // When on_message sees a HELLO: before its WELCOME is written (what it writes then, an EVENT
  // to the subscribers say, goes out before the session is up), or after it (it can close the
  // session right after its WELCOME).
  enum class HelloSeen { kBeforeWelcome, kAfterWelcome };

  struct Reply {
    uint32_t session;  // from 1, in the order the sessions were accepted
    std::function<void(const json&)> send;
    std::function<void(const json&)> to_subscribers;
    std::function<void()> close;
  };
  using OnMessage = std::function<void(const json& message, const Reply& reply)>;

  FakeRawSocketRouter(uint32_t sessions, HelloSeen hello_seen, OnMessage on_message)
      : on_message_(std::move(on_message)),
        hello_seen_(hello_seen),
        acceptor_(io_, {boost::asio::ip::make_address("127.0.0.1"), 0}),
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
  // The sessions accepted so far.
  uint32_t sessions() const { return accepted_.load(); }

  // Session `number`, once accepted, takes at most about `bytes` that its thread has not read
  // (its SO_RCVBUF), and the worker's end of its link holds at most about `bytes` that the kernel
  // has not sent (SO_SNDBUF on the worker's socket, which runs in this process): both stop the
  // kernel growing them, so a session whose on_message waits holds the worker's writes back
  // after that much, not after what autotuning up to the machine's tcp_rmem and tcp_wmem would
  // allow. Set before the session is accepted; link_buffers() says what the kernel set.
  void limit_link_buffers(uint32_t number, int bytes) {
    limited_session_ = number;
    limited_bytes_ = bytes;
  }
  // The sizes the limited session's link buffers were given, read back with getsockopt when it
  // was accepted (the kernel doubles what was asked, for its own overhead); 0 where not set: the
  // session not accepted yet, or the worker's socket not found.
  struct LinkBuffers {
    int router_receive = 0;
    int worker_send = 0;
  };
  LinkBuffers link_buffers() const { return {limited_receive_.load(), limited_send_.load()}; }

  // Closes every session that did not subscribe, as a router dropping them would.
  void close_publishers() {
    std::lock_guard lock(subscribers_mutex_);
    for (Link* l : links_) {
      if (std::find(subscribers_.begin(), subscribers_.end(), l) != subscribers_.end()) continue;
      boost::system::error_code ignored;
      l->socket.shutdown(boost::asio::ip::tcp::socket::shutdown_both, ignored);
    }
  }

  // Ends session `number` as a router dropping an idle session does (it sends its FIN and reads
  // on), and returns once the worker has closed its end in turn, so the worker has seen the
  // session end. False where no such session is served, or the worker kept its end open 30 s.
  bool end_session(uint32_t number) {
    std::unique_lock lock(subscribers_mutex_);
    const auto served = [this, number] {
      return std::any_of(links_.begin(), links_.end(),
                         [number](const Link* l) { return l->number == number; });
    };
    for (Link* l : links_) {
      if (l->number != number) continue;
      std::lock_guard write_lock(l->write);
      boost::system::error_code ignored;
      l->socket.shutdown(boost::asio::ip::tcp::socket::shutdown_send, ignored);
    }
    if (!served()) return false;
    return session_ended_.wait_for(lock, std::chrono::seconds(30), [&] { return !served(); });
  }

  // Writes every subscriber a RawSocket frame header of a frame type that does not exist.
  void send_subscribers_a_bad_frame_header() {
    static constexpr std::array<uint8_t, 4> kBadHeader{0x07, 0, 0, 1};
    std::lock_guard lock(subscribers_mutex_);
    for (Link* s : subscribers_) {
      std::lock_guard write_lock(s->write);
      boost::system::error_code ignored;
      boost::asio::write(s->socket, boost::asio::buffer(kBadHeader), ignored);
    }
  }

 private:
  struct Link {
    Link(boost::asio::ip::tcp::socket s, uint32_t n) : socket(std::move(s)), number(n) {}
    boost::asio::ip::tcp::socket socket;
    uint32_t number;  // from 1, in the order the sessions were accepted
    std::mutex write;
  };

  void accept() {
    if (sessions_left_ == 0) return;  // later connects wait in the backlog, unanswered
    acceptor_.async_accept(
        [this](boost::system::error_code ec, boost::asio::ip::tcp::socket socket) {
          if (ec) return;
          --sessions_left_;
          const uint32_t number = ++accepted_;
          if (number == limited_session_.load()) limit_buffers(socket);
          auto link = std::make_shared<Link>(std::move(socket), number);
          session_threads_.emplace_back([this, link, number] { serve(*link, number); });
          accept();
        });
  }

  // SO_RCVBUF of the router's end, SO_SNDBUF of the worker's, each read back.
  void limit_buffers(boost::asio::ip::tcp::socket& socket) {
    const int bytes = limited_bytes_.load();
    int set = 0;
    socklen_t length = sizeof set;
    if (::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes) == 0 &&
        ::getsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVBUF, &set, &length) == 0) {
      limited_receive_ = set;
    }
    boost::system::error_code ec;
    const int worker = socket_bound_to(socket.remote_endpoint(ec));
    length = sizeof set;
    if (!ec && worker >= 0 &&
        ::setsockopt(worker, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes) == 0 &&
        ::getsockopt(worker, SOL_SOCKET, SO_SNDBUF, &set, &length) == 0) {
      limited_send_ = set;
    }
  }

  // The IPv4 socket of this process bound to `local` (the worker's end of a link the router
  // accepted), or -1.
  static int socket_bound_to(const boost::asio::ip::tcp::endpoint& local) {
    if (!local.address().is_v4()) return -1;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
      const std::string name = entry.path().filename().string();
      int fd = -1;
      if (std::from_chars(name.data(), name.data() + name.size(), fd).ec != std::errc{}) continue;
      sockaddr_in bound{};
      socklen_t length = sizeof bound;
      if (::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length) != 0 ||
          length != sizeof bound || bound.sin_family != AF_INET) {
        continue;
      }
      if (ntohs(bound.sin_port) == local.port() &&
          ntohl(bound.sin_addr.s_addr) == local.address().to_v4().to_uint()) {
        return fd;
      }
    }
    return -1;
  }

  static void write(Link& link, const json& message) {
    const std::vector<uint8_t> body = json::to_msgpack(message);
    const auto n = static_cast<uint32_t>(body.size());
    const std::array<uint8_t, 4> header{0, static_cast<uint8_t>(n >> 16),
                                        static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n)};
    std::lock_guard lock(link.write);
    boost::system::error_code ignored;
    boost::asio::write(link.socket,
                       std::array{boost::asio::buffer(header), boost::asio::buffer(body)}, ignored);
  }

  void serve(Link& link, uint32_t number) {
    namespace net = boost::asio;
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
        if (hello_seen_ == HelloSeen::kBeforeWelcome) on_message_(message, reply);
        reply.send(json::array({2, number, json::object()}));
        if (hello_seen_ == HelloSeen::kAfterWelcome) on_message_(message, reply);
        continue;
      }
      if (type == 32) {  // SUBSCRIBE: [32, request, {}, topic]
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
    std::erase(links_, &link);
    session_ended_.notify_all();
  }

  OnMessage on_message_;
  HelloSeen hello_seen_;
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  uint32_t sessions_left_;  // touched on the io thread only
  std::atomic<uint32_t> accepted_{0};
  std::atomic<uint32_t> limited_session_{0};  // limit_link_buffers; 0: none
  std::atomic<int> limited_bytes_{0};
  std::atomic<int> limited_receive_{0};  // link_buffers()
  std::atomic<int> limited_send_{0};
  std::vector<std::thread> session_threads_;
  std::mutex subscribers_mutex_;
  std::vector<Link*> subscribers_;
  std::vector<Link*> links_;               // every session being served
  std::condition_variable session_ended_;  // with subscribers_mutex_: a link left links_
  std::thread io_thread_;
};

// One RPC caller, one call in flight, over RawSocket with MessagePack.
inline WorkloadSpec rpc_spec_against(const FakeRawSocketRouter& router) {
  WorkloadSpec s;
  s.name = "fake";
  s.protocol = "wamp_rpc";
  s.address = router.address();
  s.connections = 1;
  s.threads = 1;
  s.in_flight = 1;
  s.drain_timeout_ns = 3000 * kMs;
  s.connect_timeout_ns = 3000 * kMs;
  s.wamp.transport = WampRequestSpec::Transport::kRawSocket;
  s.wamp.serializer = WampRequestSpec::Serializer::kMsgpack;
  s.wamp.request_bytes = 100;
  return s;
}

// One publisher asking for acknowledgements and one subscriber, a session each.
inline WorkloadSpec pubsub_spec_against(const FakeRawSocketRouter& router) {
  WorkloadSpec s = rpc_spec_against(router);
  s.protocol = "wamp_pubsub";
  s.connections = 2;
  s.wamp.kind = WampRequestSpec::Kind::kPubSub;
  s.wamp.publishers = 1;
  s.wamp.subscribers = 1;
  s.wamp.acknowledge = true;
  return s;
}

// A window with a 1 s start lead (the HTTP engine tests' margin for a loaded machine).
inline WindowResult run_with_lead(Engine& engine, uint32_t index, int64_t duration_ns) {
  const WindowCommand window{index, true, 0, duration_ns, steady_now_ns() + 1000 * kMs};
  auto result = engine.run_window(window, [](const ProgressReport&) {});
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.message());
  return result.ok() ? std::move(*result) : WindowResult();
}

}  // namespace benchgate::worker::test_support
