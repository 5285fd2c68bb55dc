// net::EdgeWait (common/net/edge_wait.h): a wait for a socket's next readability edge in
// Asio's own registration. Over a loopback TCP pair: it completes when bytes arrive after the
// socket was read empty, not before; the first wait on a socket completes at once (unless
// asio_access::clear_initial_read_edge said nothing was read yet); closing the socket completes
// it with operation_aborted; an io_context destroyed with the wait queued destroys the handler
// (and what it holds) without calling it. Handler counts, no times.
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

// What the waits' handlers saw.
struct Counting {
  int edges = 0;
  boost::system::error_code last;
};

// Queues a wait for the socket's next read edge whose handler counts into `target` and holds
// `owner` until it runs or is destroyed.
void arm(tcp::socket& socket, Counting& target, std::shared_ptr<int> owner = nullptr) {
  async_wait_edge(asio_access::reactor(socket), socket, Readiness::kRead,
                  [&target, owner = std::move(owner)](const error_code& ec) {
                    ++target.edges;
                    target.last = ec;
                  });
}

// A connected pair on 127.0.0.1: `server` accepted (non-blocking), `client` connected.
struct ServerClientPair {
  explicit ServerClientPair(asio::io_context& io) : server(io), client(io) {
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
  ServerClientPair pair(io);
  Counting target;

  // The first wait: the reactor cannot tell whether the socket was read, so it completes.
  arm(pair.server, target);
  io.poll();
  io.restart();
  EXPECT_EQ(target.edges, 1);
  EXPECT_EQ(pair.drain(), 0u);

  // Read empty: no edge, no completion, however often the loop turns.
  arm(pair.server, target);
  EXPECT_EQ(io.poll(), 0u);
  io.restart();
  EXPECT_EQ(target.edges, 1);

  // Bytes arrive: the edge completes it, once.
  asio::write(pair.client, asio::buffer("hello", 5));
  EXPECT_EQ(io.run_one(), 1u);
  io.restart();
  EXPECT_EQ(target.edges, 2);
  EXPECT_FALSE(target.last);
  EXPECT_EQ(pair.drain(), 5u);

  // And again for the next bytes, after the socket was read empty.
  arm(pair.server, target);
  EXPECT_EQ(io.poll(), 0u);
  io.restart();
  asio::write(pair.client, asio::buffer("again", 5));
  EXPECT_EQ(io.run_one(), 1u);
  EXPECT_EQ(target.edges, 3);
  EXPECT_EQ(pair.drain(), 5u);
}

TEST(EdgeWait, ANewSocketWhoseInitialEdgeIsClearedWaitsForItsFirstBytes) {
  asio::io_context io(1);
  ServerClientPair pair(io);
  Counting target;
  // Accepted, nothing read yet, no epoll_wait since: the first wait needs no read to check.
  asio_access::clear_initial_read_edge(pair.server);
  arm(pair.server, target);
  EXPECT_EQ(io.poll(), 0u);
  io.restart();
  EXPECT_EQ(target.edges, 0);
  asio::write(pair.client, asio::buffer("first", 5));
  EXPECT_EQ(io.run_one(), 1u);
  EXPECT_EQ(target.edges, 1);
  EXPECT_EQ(pair.drain(), 5u);
}

TEST(EdgeWait, ClosingTheSocketCompletesTheWaitAbortedAndReleasesWhatItHeld) {
  asio::io_context io(1);
  ServerClientPair pair(io);
  Counting target;
  arm(pair.server, target);
  io.poll();
  io.restart();
  ASSERT_EQ(target.edges, 1);

  auto owner = std::make_shared<int>(7);
  std::weak_ptr<int> watched = owner;
  arm(pair.server, target, std::move(owner));
  EXPECT_FALSE(watched.expired());
  pair.server.close();
  EXPECT_EQ(io.poll(), 1u);
  EXPECT_EQ(target.edges, 2);
  EXPECT_EQ(target.last, asio::error::operation_aborted);
  EXPECT_TRUE(watched.expired());
}

TEST(EdgeWait, AnIoContextDestroyedWithTheWaitQueuedReleasesWhatItHeldWithoutACall) {
  Counting target;
  std::weak_ptr<int> watched;
  {
    asio::io_context io(1);
    ServerClientPair pair(io);
    arm(pair.server, target);
    io.poll();
    io.restart();
    ASSERT_EQ(target.edges, 1);
    auto owner = std::make_shared<int>(7);
    watched = owner;
    arm(pair.server, target, std::move(owner));
    // `pair` goes first: its socket's close queues the wait, aborted; then the io_context is
    // destroyed with that completion still queued, never run.
  }
  EXPECT_TRUE(watched.expired());
  EXPECT_EQ(target.edges, 1);
}

}  // namespace
}  // namespace benchgate::net
