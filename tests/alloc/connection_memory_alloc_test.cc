// goal 2 of issue 19, the part RSS cannot show: the exact heap bytes the router holds per
// connection, idle and after one request, over HTTP, WebSocket and RawSocket. The live bytes
// of the counting allocator (malloc_usable_size of every live block) are read before the
// connections open (the baseline, after one connection has come and gone so that one-time
// state is in it), with kConnections open and idle, after one request on each, and after they
// have all closed (back to the baseline: nothing kept). The clients are system calls only
// (raw_client.h), so every byte counted is the router's. The budgets are docs/PERFORMANCE.md's.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "counting_allocator.h"
#include "raw_client.h"
#include "raw_http_peer.h"
#include "router/http/server.h"
#include "router/wamp/wamp_server.h"
#include "worker/engine/engine.h"

namespace benchgate::alloc_test {
namespace {

constexpr int kConnections = 1000;

// The cleartext sessions' I/O under test: the default (router --http-io epoll, the serving
// thread's readiness set), and, as CTest runs these tests a second time with
// BENCHGATE_ROUTER_HTTP_IO=asio, a wait through Asio (--http-io asio).
router::http::ServerOptions options_under_test() {
  router::http::ServerOptions options;
  const char* io = std::getenv("BENCHGATE_ROUTER_HTTP_IO");
  if (io != nullptr && std::string_view(io) == "asio") {
    options.http_io = router::http::ServerOptions::Io::kAsio;
  }
  return options;
}

// Both ends of every connection are in this process.
bool enough_descriptors() {
  rlimit limit{};
  ::getrlimit(RLIMIT_NOFILE, &limit);
  const rlim_t needed = 2 * kConnections + 64;
  if (limit.rlim_cur < needed && limit.rlim_max >= needed) {
    limit.rlim_cur = needed;
    ::setrlimit(RLIMIT_NOFILE, &limit);
    ::getrlimit(RLIMIT_NOFILE, &limit);
  }
  return limit.rlim_cur >= needed;
}

// Polls (bounded, 20 s) until `open()` is `want`.
template <typename Open>
bool wait_open(Open open, int64_t want) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (open() != want) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

struct Figures {
  int64_t idle = 0;          // live bytes over the baseline, kConnections idle
  int64_t after_one = 0;     // ... after one request on each
  int64_t after_close = 0;   // ... once every connection has closed
  int64_t after_reopen = 0;  // ... once as many have opened and closed again
};

void print_memory(const char* component, const Figures& f) {
  std::printf(
      "MEMORY| component=%s connections=%d idle_bytes=%lld per_idle_connection=%.1f "
      "after_one_request_bytes=%lld per_connection_after_one_request=%.1f after_close_bytes=%lld "
      "after_reopen_bytes=%lld\n",
      component, kConnections, static_cast<long long>(f.idle),
      static_cast<double>(f.idle) / kConnections, static_cast<long long>(f.after_one),
      static_cast<double>(f.after_one) / kConnections, static_cast<long long>(f.after_close),
      static_cast<long long>(f.after_reopen));
  std::fflush(stdout);
}

// Opens, measures, sends one request on each, measures, closes, measures. `handshake`
// makes an idle connection of the transport (false: failed), `request` sends one request and
// reads its answer, `open` reads the router's gauge of open connections, `settled` tells when
// the connections that answered are idle again (HTTP: none holds its read buffer any more).
template <typename Handshake, typename Request, typename Open, typename Settled>
Figures measure(uint16_t port, Handshake handshake, Request request, Open open, Settled settled) {
  Figures f;
  std::vector<int> fds;
  fds.reserve(kConnections);
  // One connection first, so that whatever the router sets up once is in the baseline.
  {
    const int fd = connect_loopback(port);
    EXPECT_TRUE(fd >= 0 && handshake(fd) && request(fd));
    ::close(fd);
    EXPECT_TRUE(wait_open(open, 0));
  }
  const int64_t baseline = live_bytes();
  // BENCHGATE_ALLOC_TRACE=K: the stacks of the first K allocations while the connections open.
  if (const char* trace = std::getenv("BENCHGATE_ALLOC_TRACE"))
    trace_allocations_of(threads_now(), std::atoi(trace));
  for (int i = 0; i < kConnections; ++i) {
    const int fd = connect_loopback(port);
    EXPECT_GE(fd, 0);
    if (fd < 0) break;
    fds.push_back(fd);
    EXPECT_TRUE(handshake(fd)) << i;
  }
  EXPECT_TRUE(wait_open(open, kConnections));
  trace_allocations_of({}, 0);
  f.idle = live_bytes() - baseline;
  for (int fd : fds) EXPECT_TRUE(request(fd));
  EXPECT_TRUE(wait_open(settled, 1));
  f.after_one = live_bytes() - baseline;
  for (int fd : fds) ::close(fd);
  EXPECT_TRUE(wait_open(open, 0));
  f.after_close = live_bytes() - baseline;
  // What stays after the close is Asio's reactor keeping each socket's descriptor state for
  // the next one (an object pool, released when the io_context goes): as many connections
  // again reuse it, so nothing more stays.
  fds.clear();
  for (int i = 0; i < kConnections; ++i) {
    const int fd = connect_loopback(port);
    if (fd < 0) break;
    fds.push_back(fd);
    EXPECT_TRUE(handshake(fd)) << i;
  }
  EXPECT_TRUE(wait_open(open, static_cast<int64_t>(fds.size())));
  for (int fd : fds) ::close(fd);
  EXPECT_TRUE(wait_open(open, 0));
  f.after_reopen = live_bytes() - baseline;
  return f;
}

// The budgets, bytes per connection (docs/PERFORMANCE.md): the figure measured at 1,000
// connections rounded up to a multiple of 64, plus 64 (the figures vary by some tens of
// bytes in all between runs).
// HTTP: one timer per serving thread for the deadlines instead of a steady_timer and its
// pending wait per session, the delay timer and the gather list allocated on first use
// (router/http/deadline_wheel.h), the parser lent by the thread while a request is in progress
// (router/http/parser_slots.h), the thread's sessions reached through the wheel instead of a
// list of their own, the session's own fields packed, and the sockets on their io_context's
// own executor (router/net/stream.h: 48 bytes less in the socket and in each operation queued
// for it), and the parse instants of the answers waiting to be written as one instant and a
// count (no vector); the session is 312 bytes (1,184 before). Before: 1,712.1 and 1,848.4,
// --http-io epoll 1,544.1 and 1,672.2. With --http-io epoll an idle session has no wait for
// readability pending. After one request: the output buffer is the thread's, lent while an
// answer is queued or being written (before: the session kept its own, 732.1 and 599.9).
// --http-io asio after one request: the idle figure plus 32 bytes for each connection that read
// ahead while it held its read buffer (router/http/read_hold.h): when the hold lapses, its
// cancelled read's operation (152 bytes) goes to Asio's per-thread recycling cache and the
// readability wait that follows takes that block instead of a 120-byte one of its own. How
// many connections read ahead depends on the client's pace against the 5 ms hold and the 128
// holders a thread allows at once, so the figure varies from run to run between 615.8 (none;
// 615.9 measured with the hold off) and 647.8 (all), not with the code (624.0 at 21b23fe,
// 640.5 to 643.4 at dbdda81, 619.8 to 647.8 on one machine on 2026-12-06).
constexpr int64_t kHttpIdleBudget = 704;           // measured 615.8
constexpr int64_t kHttpAfterOneBudget = 704;       // measured 615.8 to 647.8 (see above)
constexpr int64_t kHttpEpollIdleBudget = 576;      // measured 495.9
constexpr int64_t kHttpEpollAfterOneBudget = 576;  // measured 495.9
// WebSocket and RawSocket: the sockets on their io_context's own executor (before: 8,991.5
// and 9,132.3; 1,095.5 and 1,362.8). WebSocket since the connection writes its own frames
// (several messages per write): 144 bytes more per connection (the write's state in the
// connection and in the frame-counting layer, the scanners' message counts), and after one
// message the gathered write's two vectors, kept with their capacity as RawSocket's (before:
// 8,431.9 and 8,572.7). The after-one budget was set from 8,761.0, measured before the
// message counts were added: 55 bytes of margin, not 64.
// Both transports: 24 bytes more in the connection for the session-setup deadline (a list hook
// and the deadline, router/wamp/setup_deadlines.h; before: 8,575.9 and 8,777.0, 919.7 and
// 1,232.0). A wait of the connection's own timer instead cost 296 to 312 bytes more idle.
// Both: 16 bytes more in the session for the heads of its pending-call lists (a caller's
// and a callee's, router/wamp/session.h; before: 8,591.6 and 8,796.3, 951.6 and 1,264.6).
constexpr int64_t kWebSocketIdleBudget = 8640;      // measured 8,607.6
constexpr int64_t kWebSocketAfterOneBudget = 8832;  // measured 8,808.6
// RawSocket after one message: the wait for the next read is an edge wait once the read
// emptied the socket (no epoll_ctl per wait), its operation from Asio's recycling allocator
// rather than the connection's pool: 45.6 bytes more (before: 1,186.4 to 1,187.1).
constexpr int64_t kRawSocketIdleBudget = 1024;      // measured 967.8
constexpr int64_t kRawSocketAfterOneBudget = 1344;  // measured 1,280.0

TEST(AllocConnectionMemory, RouterHttpHeapBytesPerConnection) {
  ASSERT_TRUE(enough_descriptors()) << "RLIMIT_NOFILE below " << 2 * kConnections + 64;
  auto started = router::http::HttpServer::start(options_under_test());
  ASSERT_TRUE(started) << started.message();
  auto& server = **started;
  static char buffer[4096];
  const Figures f = measure(
      server.endpoint().port(), [](int) { return true; },
      [](int fd) {
        return send_all(fd, "GET /bench/hello HTTP/1.1\r\nHost: t\r\n\r\n") &&
               read_http_response(fd, buffer, sizeof(buffer)) == 200;
      },
      [&] { return server.snapshot().connections_open; },
      // A connection that answered keeps its read buffer for --read-buffer-hold (5 ms), then
      // gives it back: the figure after one request is the idle connection's again.
      [&] { return server.snapshot().read_buffers_held == 0 ? 1 : 0; });
  server.stop();
  print_memory("router.http", f);
  const bool epoll = options_under_test().http_io == router::http::ServerOptions::Io::kEpoll;
  EXPECT_LE(f.idle, (epoll ? kHttpEpollIdleBudget : kHttpIdleBudget) * kConnections);
  EXPECT_LE(f.after_one, (epoll ? kHttpEpollAfterOneBudget : kHttpAfterOneBudget) * kConnections);
  EXPECT_LE(f.after_reopen, f.after_close + kConnections);  // at most a byte each more
}

constexpr std::string_view kHelloJson = R"([1,"realm1",{"roles":{"caller":{}}}])";

// Reads one WebSocket frame from the router (unmasked), true when it is a text frame.
bool read_websocket_frame(int fd) {
  unsigned char header[2];
  if (!recv_exactly(fd, reinterpret_cast<char*>(header), 2)) return false;
  uint64_t length = header[1] & 0x7F;
  if (length == 126) {
    unsigned char extended[2];
    if (!recv_exactly(fd, reinterpret_cast<char*>(extended), 2)) return false;
    length = static_cast<uint64_t>(extended[0]) << 8 | extended[1];
  } else if (length == 127) {
    return false;  // no WELCOME is that long
  }
  static char payload[65536];
  return length <= sizeof(payload) && recv_exactly(fd, payload, length) &&
         (header[0] & 0x0F) == 0x1;
}

TEST(AllocConnectionMemory, RouterWebSocketHeapBytesPerConnection) {
  ASSERT_TRUE(enough_descriptors()) << "RLIMIT_NOFILE below " << 2 * kConnections + 64;
  auto started = router::wamp::WampServer::start({});
  ASSERT_TRUE(started) << started.message();
  auto& server = **started;
  static char buffer[4096];
  const Figures f = measure(
      server.websocket_port(),
      [](int fd) {
        // The opening handshake; the idle connection is an open WebSocket with no session.
        if (!send_all(fd,
                      "GET / HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                      "Sec-WebSocket-Protocol: wamp.2.json\r\n\r\n"))
          return false;
        size_t have = 0;
        while (have < sizeof(buffer)) {
          const ssize_t n = ::recv(fd, buffer + have, 1, 0);  // byte by byte: no frame after it
          if (n <= 0) return false;
          have += 1;
          if (have >= 4 && std::string_view(buffer + have - 4, 4) == "\r\n\r\n")
            return std::string_view(buffer, have).starts_with("HTTP/1.1 101");
        }
        return false;
      },
      [](int fd) {
        // One request: HELLO in a masked text frame (mask 0), answered by WELCOME.
        char frame[6 + 64];
        frame[0] = static_cast<char>(0x81);
        frame[1] = static_cast<char>(0x80 | kHelloJson.size());
        std::memset(frame + 2, 0, 4);
        std::memcpy(frame + 6, kHelloJson.data(), kHelloJson.size());
        return send_all(fd, std::string_view(frame, 6 + kHelloJson.size())) &&
               read_websocket_frame(fd);
      },
      [&] {
        router::metrics::Snapshot snapshot;
        server.add_metrics(snapshot);
        return snapshot.wamp_connections_open[0];
      },
      [] { return 1; });
  server.stop();
  print_memory("router.websocket", f);
  EXPECT_LE(f.idle, kWebSocketIdleBudget * kConnections);
  EXPECT_LE(f.after_one, kWebSocketAfterOneBudget * kConnections);
  EXPECT_LE(f.after_reopen, f.after_close + kConnections);  // at most a byte each more
}

TEST(AllocConnectionMemory, RouterRawSocketHeapBytesPerConnection) {
  ASSERT_TRUE(enough_descriptors()) << "RLIMIT_NOFILE below " << 2 * kConnections + 64;
  auto started = router::wamp::WampServer::start({});
  ASSERT_TRUE(started) << started.message();
  auto& server = **started;
  const Figures f = measure(
      server.rawsocket_port(),
      [](int fd) {
        // The 4-byte handshake: magic, 16 MiB frames, JSON (serializer 1).
        const char hello[4] = {0x7F, static_cast<char>(0xF1), 0, 0};
        char answer[4];
        return send_all(fd, std::string_view(hello, 4)) && recv_exactly(fd, answer, 4) &&
               static_cast<unsigned char>(answer[0]) == 0x7F;
      },
      [](int fd) {
        // One request: HELLO in a regular frame, answered by a WELCOME frame.
        char frame[4 + 64];
        const size_t n = kHelloJson.size();
        frame[0] = 0;
        frame[1] = 0;
        frame[2] = static_cast<char>(n >> 8);
        frame[3] = static_cast<char>(n & 0xFF);
        std::memcpy(frame + 4, kHelloJson.data(), n);
        char header[4];
        static char payload[65536];
        if (!send_all(fd, std::string_view(frame, 4 + n)) || !recv_exactly(fd, header, 4))
          return false;
        const size_t length = static_cast<size_t>(static_cast<unsigned char>(header[1])) << 16 |
                              static_cast<size_t>(static_cast<unsigned char>(header[2])) << 8 |
                              static_cast<unsigned char>(header[3]);
        return header[0] == 0 && length <= sizeof(payload) && recv_exactly(fd, payload, length);
      },
      [&] {
        router::metrics::Snapshot snapshot;
        server.add_metrics(snapshot);
        return snapshot.wamp_connections_open[1];
      },
      [] { return 1; });
  server.stop();
  print_memory("router.rawsocket", f);
  EXPECT_LE(f.idle, kRawSocketIdleBudget * kConnections);
  EXPECT_LE(f.after_one, kRawSocketAfterOneBudget * kConnections);
  EXPECT_LE(f.after_reopen, f.after_close + kConnections);  // at most a byte each more
}

// The worker's HTTP connection: the engine's heap bytes with kConnections connections against
// with kSmall connections, over the difference (what the engine holds for itself is in both),
// once connected (idle) and after a window of closed-loop requests on every connection. The
// peer is system calls only, so the live bytes are the worker's.
constexpr uint32_t kSmall = 100;
// The default (--http1-io epoll): measured 408.0 both (the connection object, Asio's state for
// its descriptor and its slot in the load thread's array; nothing pending). The budget is that
// rounded up to a multiple of 64, without the router's 64 more: it stays below asio's 512, so
// a connection that left a wait pending again would fail here.
constexpr int64_t kWorkerIdleBudget = 448;
constexpr int64_t kWorkerAfterWindowBudget = 448;
// --http1-io asio: rounded up to a multiple of 64, plus 64, as the router's budgets. Measured
// 512.0 both, the pending readability wait (104 bytes) more (527.9
// before the connection object went from 280 to 264 bytes, and 1,760.0 before the
// connection's operations came from the thread's pool, worker/http/operation_pool.h).
constexpr int64_t kWorkerAsioIdleBudget = 576;
constexpr int64_t kWorkerAsioAfterWindowBudget = 576;

struct WorkerBytes {
  int64_t connected = 0;
  int64_t after_window = 0;
  uint64_t requests = 0;
};

WorkerBytes worker_bytes(uint32_t connections, worker::Http1Io io) {
  RawHttpPeer peer;
  worker::WorkloadSpec spec;
  spec.name = "alloc";
  spec.address = "127.0.0.1:" + std::to_string(peer.port());
  spec.connections = connections;
  spec.threads = 1;
  spec.in_flight = 1;
  spec.http.target = "/bench/hello";
  spec.http1_io = io;
  const int64_t baseline = live_bytes();
  WorkerBytes bytes;
  auto engine = worker::Engine::start(spec);
  EXPECT_TRUE(engine.ok()) << (engine.ok() ? "" : engine.message());
  if (!engine.ok()) return bytes;
  bytes.connected = live_bytes() - baseline;
  const worker::WindowCommand window{0, true, 0, 200'000'000};
  auto result = (*engine)->run_window(window, [](const worker::ProgressReport&) {});
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.message());
  // Every connection answered at least one request in the window.
  if (result.ok()) {
    EXPECT_GE(result->successes, connections);
  }
  bytes.requests = result.ok() ? result->successes : 0;
  // The result is the caller's, not the connections'.
  result = Expected<worker::WindowResult>(worker::WindowResult());
  bytes.after_window = live_bytes() - baseline;
  return bytes;
}

void check_worker_bytes(worker::Http1Io io, const char* component, int64_t idle_budget,
                        int64_t after_window_budget) {
  ASSERT_TRUE(enough_descriptors()) << "RLIMIT_NOFILE below " << 2 * kConnections + 64;
  const WorkerBytes small = worker_bytes(kSmall, io);
  const WorkerBytes large = worker_bytes(kConnections, io);
  const int64_t extra = kConnections - kSmall;
  const int64_t idle = large.connected - small.connected;
  const int64_t after = large.after_window - small.after_window;
  std::printf(
      "MEMORY| component=%s connections=%d-%u idle_bytes=%lld per_idle_connection=%.1f "
      "after_window_bytes=%lld per_connection_after_window=%.1f window_requests=%llu\n",
      component, kConnections, kSmall, static_cast<long long>(idle),
      static_cast<double>(idle) / extra, static_cast<long long>(after),
      static_cast<double>(after) / extra, static_cast<unsigned long long>(large.requests));
  std::fflush(stdout);
  EXPECT_LE(idle, idle_budget * extra);
  EXPECT_LE(after, after_window_budget * extra);
}

// The default, --http1-io epoll: the connection waits in the load thread's readiness set.
TEST(AllocConnectionMemory, WorkerHttpHeapBytesPerConnection) {
  check_worker_bytes(worker::Http1Io::kEpoll, "worker.http1", kWorkerIdleBudget,
                     kWorkerAfterWindowBudget);
}

// --http1-io asio: each idle connection has its readability wait pending in Asio.
TEST(AllocConnectionMemory, WorkerHttpAsioHeapBytesPerConnection) {
  check_worker_bytes(worker::Http1Io::kAsio, "worker.http1.asio", kWorkerAsioIdleBudget,
                     kWorkerAsioAfterWindowBudget);
}

}  // namespace
}  // namespace benchgate::alloc_test
