// net::EdgeWait (common/net/edge_wait.h): a wait for a socket's next readability edge in
// Asio's own registration. Over a loopback TCP pair: it completes when bytes arrive after the
// socket was read empty, not before; the first wait on a socket completes at once; closing the
// socket completes it with operation_aborted; an io_context destroyed with the wait queued
// releases what the wait held without calling its target. Handler counts, no times.
#include "common/net/edge_wait.h"

#include <gtest/gtest.h>

#include <memory>

#include <boost/asio/error.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

namespace benchgate::net {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

struct Counting final : EdgeWait::Target {
  void on_edge(const error_code& ec) override {
    ++edges;
    last = ec;
  }
  int edges = 0;
  error_code last;
};

// A connected pair on 127.0.0.1: `server` accepted (non-blocking), `client` connected.
struct Pair {
  explicit Pair(asio::io_context& io) : server(io), client(io) {
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
    client.connect(acceptor.local_endpoint());
    acceptor.accept(server);
    server.non_blocking(true);
  }
  // Reads the server side until it would block; the bytes read.
  size_t drain() {
    size_t total = 0;
    char buffer[4096];
    for (;;) {
      error_code ec;
      const size_t n = server.read_some(asio::buffer(buffer), ec);
      if (ec == asio::error::would_block) return total;
      EXPECT_FALSE(ec) << ec.message();
      if (ec) return total;
      total += n;
    }
  }
  tcp::socket server;
  tcp::socket client;
};

TEST(EdgeWait, TheFirstWaitCompletesAtOnceAndADrainedSocketWaitsForNewBytes) {
  asio::io_context io(1);
  Pair pair(io);
  Counting target;
  EdgeWait wait(target);

  // The first wait: the reactor cannot tell whether the socket was read, so it completes.
  wait.arm(pair.server, nullptr);
  EXPECT_TRUE(wait.armed());
  io.poll();
  io.restart();
  EXPECT_EQ(target.edges, 1);
  EXPECT_FALSE(wait.armed());
  EXPECT_EQ(pair.drain(), 0u);

  // Read empty: no edge, no completion, however often the loop turns.
  wait.arm(pair.server, nullptr);
  EXPECT_EQ(io.poll(), 0u);
  io.restart();
  EXPECT_EQ(target.edges, 1);
  EXPECT_TRUE(wait.armed());

  // Bytes arrive: the edge completes it, once.
  asio::write(pair.client, asio::buffer("hello", 5));
  EXPECT_EQ(io.run_one(), 1u);
  io.restart();
  EXPECT_EQ(target.edges, 2);
  EXPECT_FALSE(target.last);
  EXPECT_EQ(pair.drain(), 5u);

  // And again for the next bytes, after the socket was read empty.
  wait.arm(pair.server, nullptr);
  EXPECT_EQ(io.poll(), 0u);
  io.restart();
  asio::write(pair.client, asio::buffer("again", 5));
  EXPECT_EQ(io.run_one(), 1u);
  EXPECT_EQ(target.edges, 3);
  EXPECT_EQ(pair.drain(), 5u);
}

TEST(EdgeWait, ClosingTheSocketCompletesTheWaitAbortedAndReleasesWhatItHeld) {
  asio::io_context io(1);
  Pair pair(io);
  Counting target;
  EdgeWait wait(target);
  wait.arm(pair.server, nullptr);
  io.poll();
  io.restart();
  ASSERT_EQ(target.edges, 1);

  auto owner = std::make_shared<int>(7);
  std::weak_ptr<int> watched = owner;
  wait.arm(pair.server, std::move(owner));
  EXPECT_FALSE(watched.expired());
  pair.server.close();
  EXPECT_EQ(io.poll(), 1u);
  EXPECT_EQ(target.edges, 2);
  EXPECT_EQ(target.last, asio::error::operation_aborted);
  EXPECT_TRUE(watched.expired());
}

TEST(EdgeWait, AnIoContextDestroyedWithTheWaitQueuedReleasesWhatItHeldWithoutACall) {
  Counting target;
  EdgeWait wait(target);
  std::weak_ptr<int> watched;
  {
    asio::io_context io(1);
    Pair pair(io);
    wait.arm(pair.server, nullptr);
    io.poll();
    io.restart();
    ASSERT_EQ(target.edges, 1);
    auto owner = std::make_shared<int>(7);
    watched = owner;
    wait.arm(pair.server, std::move(owner));
    // `pair` goes first: its socket's close queues the wait, aborted; then the io_context is
    // destroyed with that completion still queued, never run.
  }
  EXPECT_TRUE(watched.expired());
  EXPECT_EQ(target.edges, 1);
}

}  // namespace
}  // namespace benchgate::net
