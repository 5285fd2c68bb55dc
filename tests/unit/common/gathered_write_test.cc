// net::async_write_gathered (common/net/gathered_write.h) passes the caller's handler to Asio
// as the handler itself (common/net/wrapped_handler.h): one bound to another executor runs
// there, whether the socket took everything at once or the rest waited for it, and one bound
// to a cancellation slot is cancelled through it while it waits. Over a loopback TCP pair;
// handler counts and where the handler ran, no times.
#include "common/net/gathered_write.h"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

namespace benchgate::net {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using boost::system::error_code;

// A connected pair on 127.0.0.1, both sides non-blocking.
struct LoopbackPair {
  explicit LoopbackPair(asio::io_context& io) : writer(io), reader(io) {
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
    writer.connect(acceptor.local_endpoint());
    acceptor.accept(reader);
    writer.non_blocking(true);
    reader.non_blocking(true);
  }
  // Writes until the writer's socket takes nothing more: a write now waits for the reader.
  void fill() {
    std::vector<char> chunk(64 * 1024, 'f');
    for (int i = 0; i < 100000; ++i) {
      error_code ec;
      writer.write_some(asio::buffer(chunk), ec);
      if (ec == asio::error::would_block) return;
      ASSERT_FALSE(ec) << ec.message();
    }
    FAIL() << "the socket never filled";
  }
  // Reads what the reader's socket holds.
  void drain() {
    std::array<char, 64 * 1024> buffer;
    for (;;) {
      error_code ec;
      reader.read_some(asio::buffer(buffer), ec);
      if (ec) return;
    }
  }
  tcp::socket writer;
  tcp::socket reader;
};

// What a handler saw, and whether it ran on `home`'s thread.
struct Outcome {
  int calls = 0;
  error_code ec;
  size_t bytes = 0;
  bool on_home = false;
};

auto recording(Outcome& outcome, asio::io_context& home) {
  return [&outcome, &home](const error_code& ec, size_t bytes) {
    ++outcome.calls;
    outcome.ec = ec;
    outcome.bytes = bytes;
    outcome.on_home = home.get_executor().running_in_this_thread();
  };
}

// Two small buffers, a header and a payload: 9 bytes.
struct Message {
  std::array<char, 4> header{'h', 'e', 'a', 'd'};
  std::array<char, 5> payload{'b', 'o', 'd', 'y', '!'};
  std::array<asio::const_buffer, 2> buffers{asio::buffer(header), asio::buffer(payload)};
  std::span<const asio::const_buffer> view() const { return buffers; }
};

TEST(GatheredWrite, AHandlerBoundToAnotherExecutorRunsThereWhenTheSocketTookEverything) {
  asio::io_context io;
  asio::io_context other;
  LoopbackPair pair(io);
  const Message message;
  Outcome outcome;
  async_write_gathered(pair.writer, message.view(),
                       asio::bind_executor(other.get_executor(), recording(outcome, other)));
  io.run();
  EXPECT_EQ(outcome.calls, 0) << "the handler ran on the socket's executor, not its own";
  other.run();
  ASSERT_EQ(outcome.calls, 1);
  EXPECT_FALSE(outcome.ec) << outcome.ec.message();
  EXPECT_EQ(outcome.bytes, 9u);
  EXPECT_TRUE(outcome.on_home);
}

TEST(GatheredWrite, AHandlerBoundToAnotherExecutorRunsThereAfterTheRestWaitedForTheSocket) {
  asio::io_context io;
  asio::io_context other;
  LoopbackPair pair(io);
  pair.fill();
  const Message message;
  Outcome outcome;
  async_write_gathered(pair.writer, message.view(),
                       asio::bind_executor(other.get_executor(), recording(outcome, other)));
  for (int i = 0; i < 10000 && outcome.calls == 0; ++i) {
    pair.drain();
    io.poll();
    io.restart();
    other.poll();
    other.restart();
  }
  ASSERT_EQ(outcome.calls, 1);
  EXPECT_FALSE(outcome.ec) << outcome.ec.message();
  EXPECT_EQ(outcome.bytes, 9u);
  EXPECT_TRUE(outcome.on_home) << "the handler ran on the socket's executor, not its own";
}

TEST(GatheredWrite, AWriteWaitingForTheSocketIsCancelledThroughItsHandlersSlot) {
  asio::io_context io;
  LoopbackPair pair(io);
  pair.fill();
  const Message message;
  Outcome outcome;
  asio::cancellation_signal cancel;
  async_write_gathered(pair.writer, message.view(),
                       asio::bind_cancellation_slot(cancel.slot(), recording(outcome, io)));
  io.poll();
  io.restart();
  ASSERT_EQ(outcome.calls, 0) << "the write did not wait for the socket";
  cancel.emit(asio::cancellation_type::terminal);
  io.poll();
  io.restart();
  EXPECT_EQ(outcome.calls, 1) << "the cancellation did not reach the write";
  EXPECT_EQ(outcome.ec, asio::error::operation_aborted);
  EXPECT_EQ(outcome.bytes, 0u);
  // Without the cancellation, the write ends here (a test of the old code must not hang).
  pair.writer.close();
  io.run();
  EXPECT_EQ(outcome.calls, 1);
}

}  // namespace
}  // namespace benchgate::net
