// net::CompletionRing (common/net/completion_ring.h), the io_uring behind worker --http1-io
// uring, over loopback TCP pairs: a receive delivers every arrival with its tag until the peer's
// end of stream; a send writes its bytes; after end_receive and a shutdown nothing more is
// delivered and the peer sees the connection end; a detached
// slot gets nothing. Counts and bytes, no times (each wait is bounded only so that a broken ring
// fails instead of hanging).
#include "common/net/completion_ring.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <chrono>
#include <functional>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

namespace benchgate::net {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

// What the ring delivered to one target.
struct Recorder : RingTarget {
  virtual ~Recorder() = default;
  std::string received;
  int arrivals = 0;
  int ends = 0;
  error_code last_error;
  size_t sent = 0;
  int sends = 0;
  uint32_t last_tag = 0;

  void on_received(uint32_t tag, const error_code& ec, const char* data, size_t bytes) override {
    last_tag = tag;
    if (ec) {
      last_error = ec;
      ++ends;
    } else if (bytes == 0) {
      ++ends;
    } else {
      received.append(data, bytes);
      ++arrivals;
    }
  }
  void on_sent(uint32_t tag, const error_code& ec, size_t bytes) override {
    last_tag = tag;
    if (ec) last_error = ec;
    sent += bytes;
    ++sends;
  }
};

// A connected pair on 127.0.0.1: `local` (whose descriptor the ring uses) and `peer`.
struct LoopbackPair {
  explicit LoopbackPair(asio::io_context& io) : local(io), peer(io) {
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
    local.connect(acceptor.local_endpoint());
    acceptor.accept(peer);
  }
  tcp::socket local;
  tcp::socket peer;
};

// Runs the io_context until `done` holds; false if it did not within a generous bound.
bool run_until(asio::io_context& io, const std::function<bool()>& done) {
  for (int i = 0; i < 1000 && !done(); ++i) {
    io.restart();
    io.run_one_for(std::chrono::milliseconds(50));
  }
  return done();
}

// Runs the io_context for a while, dispatching whatever the ring still posts.
void settle(asio::io_context& io) {
  io.restart();
  io.run_for(std::chrono::milliseconds(200));
}

class CompletionRingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ring.unavailable().empty()) GTEST_SKIP() << "io_uring unavailable: " << ring.unavailable();
  }
  asio::io_context io{BOOST_ASIO_CONCURRENCY_HINT_UNSAFE_IO};
  CompletionRing& ring = asio::use_service<CompletionRing>(io);
};

TEST_F(CompletionRingTest, AReceiveDeliversEveryArrivalWithItsTagUntilTheEndOfStream) {
  LoopbackPair pair(io);
  Recorder target;
  const uint32_t slot = ring.attach(target);
  ASSERT_TRUE(ring.receive(slot, 7, pair.local.native_handle()));
  asio::write(pair.peer, asio::buffer(std::string("hello ")));
  ASSERT_TRUE(run_until(io, [&] { return target.received == "hello "; }));
  asio::write(pair.peer, asio::buffer(std::string("again")));
  ASSERT_TRUE(run_until(io, [&] { return target.received == "hello again"; }));
  EXPECT_EQ(target.last_tag, 7u);
  EXPECT_EQ(target.ends, 0);
  // 100 KiB in one go: more than one of the ring's 16 KiB buffers, all of it delivered in order.
  std::string big(100 * 1024, 'x');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>('a' + i % 26);
  asio::write(pair.peer, asio::buffer(big));
  ASSERT_TRUE(run_until(io, [&] { return target.received.size() == 11 + big.size(); }));
  EXPECT_EQ(target.received.substr(11), big);
  pair.peer.close();
  ASSERT_TRUE(run_until(io, [&] { return target.ends == 1; }));
  EXPECT_FALSE(target.last_error);
  EXPECT_GT(ring.completions(), 0u);
  ring.detach(slot);
}

TEST_F(CompletionRingTest, ASendWritesItsBytesAndReportsThem) {
  LoopbackPair pair(io);
  Recorder target;
  const uint32_t slot = ring.attach(target);
  static const std::string kMessage = "GET / HTTP/1.1\r\n\r\n";
  ASSERT_TRUE(ring.send(slot, 3, pair.local.native_handle(), kMessage.data(), kMessage.size()));
  ASSERT_TRUE(run_until(io, [&] { return target.sends == 1; }));
  EXPECT_EQ(target.sent, kMessage.size());
  EXPECT_EQ(target.last_tag, 3u);
  std::string got(kMessage.size(), '\0');
  asio::read(pair.peer, asio::buffer(got));
  EXPECT_EQ(got, kMessage);
  ring.detach(slot);
}

TEST_F(CompletionRingTest, AfterEndReceiveAndShutdownNothingIsDeliveredAndThePeerSeesTheEnd) {
  LoopbackPair pair(io);
  Recorder target;
  const uint32_t slot = ring.attach(target);
  ASSERT_TRUE(ring.receive(slot, 1, pair.local.native_handle()));
  asio::write(pair.peer, asio::buffer(std::string("one")));
  ASSERT_TRUE(run_until(io, [&] { return target.arrivals == 1; }));
  ring.end_receive(slot);
  ::shutdown(pair.local.native_handle(), SHUT_RDWR);
  pair.local.close();
  // The peer reads the end of the stream.
  char byte;
  error_code ec;
  pair.peer.read_some(asio::buffer(&byte, 1), ec);
  EXPECT_EQ(ec, asio::error::eof);
  settle(io);  // whatever the receive still posts is dispatched
  EXPECT_EQ(target.arrivals, 1);
  EXPECT_EQ(target.ends, 0);
  EXPECT_EQ(target.received, "one");
  ring.detach(slot);
}

TEST_F(CompletionRingTest, ADetachedSlotGetsNothing) {
  LoopbackPair pair(io);
  Recorder target;
  Recorder other;
  const uint32_t slot = ring.attach(target);
  ASSERT_TRUE(ring.receive(slot, 1, pair.local.native_handle()));
  ring.detach(slot);
  // The slot is reused by the next target: the old receive's arrivals reach neither.
  const uint32_t reused = ring.attach(other);
  EXPECT_EQ(reused, slot);
  asio::write(pair.peer, asio::buffer(std::string("late")));
  pair.peer.close();
  settle(io);
  EXPECT_EQ(target.arrivals + target.ends, 0);
  EXPECT_EQ(other.arrivals + other.ends, 0);
  ::shutdown(pair.local.native_handle(), SHUT_RDWR);
  ring.detach(reused);
}

}  // namespace
}  // namespace benchgate::net
