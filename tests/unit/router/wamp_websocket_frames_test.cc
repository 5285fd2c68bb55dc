// WebSocket frames: the frame scanner on hand-built frames (split at every byte), the
// router's own frame headers against hand-built frames and a Beast client, and the router
// in-process with --ws-fragment-bytes, driven by a Beast client that fragments its own
// messages: the router reassembles them, answers in frames of the configured size, and counts
// both directions' frames exactly. FrameCountingStream passes Beast's handlers, and the
// connection's, to the socket as the handlers themselves: one bound to another executor
// completes there; a Beast write waiting for the connection's own write lets go of its handler
// once the socket closes.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket.hpp>

#include "router/wamp/websocket_frames.h"
#include "wamp_test_client.h"

namespace benchgate::router::wamp {
namespace {

namespace websocket = boost::beast::websocket;

// One frame: FIN bit, opcode, payload of `size` bytes ('x'), masked when `masked`.
std::vector<uint8_t> frame(bool fin, uint8_t opcode, size_t size, bool masked) {
  std::vector<uint8_t> out;
  out.push_back(static_cast<uint8_t>((fin ? 0x80 : 0) | opcode));
  const uint8_t mask = masked ? 0x80 : 0;
  if (size < 126) {
    out.push_back(static_cast<uint8_t>(mask | size));
  } else if (size <= 0xffff) {
    out.push_back(mask | 126);
    out.push_back(static_cast<uint8_t>(size >> 8));
    out.push_back(static_cast<uint8_t>(size));
  } else {
    out.push_back(mask | 127);
    for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(size >> shift));
  }
  if (masked) out.insert(out.end(), {1, 2, 3, 4});
  out.insert(out.end(), size, 'x');
  return out;
}

std::vector<uint8_t> stream_of_frames() {
  std::vector<uint8_t> bytes;
  auto add = [&](const std::vector<uint8_t>& f) { bytes.insert(bytes.end(), f.begin(), f.end()); };
  add(frame(true, 0x1, 10, true));      // a whole text message
  add(frame(false, 0x2, 300, true));    // a binary message in three frames...
  add(frame(true, 0x9, 4, true));       // ...with a ping between its fragments
  add(frame(false, 0x0, 70000, true));  // (64-bit length)
  add(frame(true, 0x0, 0, true));       // an empty final continuation frame
  add(frame(true, 0x2, 125, false));    // unmasked, as a server sends
  add(frame(true, 0x8, 2, false));      // close
  return bytes;
}

TEST(FrameScanner, CountsDataFramesAndFragmentedMessagesWhateverTheReadBoundaries) {
  const std::vector<uint8_t> bytes = stream_of_frames();
  for (size_t piece : {size_t{1}, size_t{3}, size_t{7}, size_t{4096}, bytes.size()}) {
    FrameScanner scanner;
    for (size_t at = 0; at < bytes.size(); at += piece) {
      scanner.feed(bytes.data() + at, std::min(piece, bytes.size() - at));
    }
    EXPECT_EQ(scanner.data_frames(), 5u) << "pieces of " << piece;
    EXPECT_EQ(scanner.fragmented_messages(), 1u) << "pieces of " << piece;
  }
}

TEST(FrameScanner, TakeReturnsWhatWasCountedSinceTheLastTake) {
  FrameScanner scanner;
  const auto one = frame(false, 0x2, 5, false);
  scanner.feed(one.data(), one.size());
  EXPECT_EQ(scanner.take(), std::make_pair(uint64_t{1}, uint64_t{1}));
  const auto two = frame(true, 0x0, 5, false);
  scanner.feed(two.data(), two.size());
  EXPECT_EQ(scanner.take(), std::make_pair(uint64_t{1}, uint64_t{0}));
  EXPECT_EQ(scanner.take(), std::make_pair(uint64_t{0}, uint64_t{0}));
}

TEST(FrameScanner, KnowsWhenAFrameIsUnderWayAndWhenACloseWentThrough) {
  FrameScanner scanner;
  EXPECT_TRUE(scanner.at_frame_boundary());
  const auto data = frame(true, 0x2, 300, false);
  scanner.feed(data.data(), 1);
  EXPECT_FALSE(scanner.at_frame_boundary()) << "inside the header";
  scanner.feed(data.data() + 1, 10);
  EXPECT_FALSE(scanner.at_frame_boundary()) << "inside the payload";
  scanner.feed(data.data() + 11, data.size() - 11);
  EXPECT_TRUE(scanner.at_frame_boundary());
  EXPECT_FALSE(scanner.close_seen());
  const auto ping = frame(true, 0x9, 3, false);
  scanner.feed(ping.data(), ping.size());
  EXPECT_FALSE(scanner.close_seen());
  const auto close = frame(true, 0x8, 2, false);
  scanner.feed(close.data(), close.size());
  EXPECT_TRUE(scanner.close_seen());
  EXPECT_TRUE(scanner.at_frame_boundary());
}

// A message counts as complete when the last byte of its final frame went through: empty
// messages and empty final continuations included, control frames between fragments not.
TEST(FrameScanner, CountsAMessageCompleteOnlyWithTheLastByteOfItsFinalFrame) {
  std::vector<uint8_t> bytes;
  auto add = [&](const std::vector<uint8_t>& f) { bytes.insert(bytes.end(), f.begin(), f.end()); };
  add(frame(true, 0x1, 0, true));    // an empty text message: 1
  add(frame(false, 0x2, 10, true));  // a binary message begins...
  add(frame(true, 0x9, 3, true));    // ...a ping between its fragments...
  add(frame(false, 0x0, 0, true));   // ...an empty continuation...
  add(frame(true, 0x0, 0, true));    // ...an empty final continuation: 2
  add(frame(true, 0x2, 300, true));  // a whole binary message: 3
  const size_t last_byte = bytes.size() - 1;
  FrameScanner scanner;
  scanner.feed(bytes.data(), last_byte);
  EXPECT_EQ(scanner.complete_messages(), 2u) << "the last message lacks its last byte";
  scanner.feed(bytes.data() + last_byte, 1);
  EXPECT_EQ(scanner.complete_messages(), 3u);
  for (size_t piece : {size_t{1}, size_t{5}}) {  // whatever the read boundaries
    FrameScanner split;
    for (size_t at = 0; at < bytes.size(); at += piece) {
      split.feed(bytes.data() + at, std::min(piece, bytes.size() - at));
    }
    EXPECT_EQ(split.complete_messages(), 3u) << "pieces of " << piece;
  }
}

// The router's own frame headers, at each length encoding's edges: the same bytes as a
// hand-built unmasked frame, and what the scanner and a Beast client read back.
TEST(ServerFrameHeader, EncodesEachLengthAsRfc6455Says) {
  for (const size_t size : {size_t{0}, size_t{1}, size_t{125}, size_t{126}, size_t{65535},
                            size_t{65536}, size_t{70000}}) {
    for (const bool text : {true, false}) {
      const ServerFrameHeader header = server_frame_header(text, size);
      const auto expected = frame(true, text ? 0x1 : 0x2, size, false);
      const size_t header_size = expected.size() - size;
      ASSERT_EQ(header.size, header_size) << size;
      EXPECT_TRUE(
          std::equal(header.bytes.begin(), header.bytes.begin() + header.size, expected.begin()))
          << "payload of " << size << (text ? ", text" : ", binary");
    }
  }
}

TEST(ServerFrameHeader, ABeastClientReadsTheFramesBack) {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor acceptor(io, {boost::asio::ip::make_address_v4("127.0.0.1"), 0});
  websocket::stream<boost::asio::ip::tcp::socket> client(io);
  client.next_layer().connect(acceptor.local_endpoint());
  boost::asio::ip::tcp::socket server = acceptor.accept();
  // The server's side of the upgrade by Beast, then frames written by hand.
  websocket::stream<boost::asio::ip::tcp::socket&> upgraded(server);
  std::thread accept([&] { upgraded.accept(); });
  client.handshake("127.0.0.1", "/");
  accept.join();
  for (const size_t size : {size_t{5}, size_t{300}, size_t{70000}}) {
    const std::vector<uint8_t> payload(size, static_cast<uint8_t>('a' + size % 26));
    const ServerFrameHeader header = server_frame_header(false, size);
    const std::array<boost::asio::const_buffer, 2> frame{
        boost::asio::buffer(header.bytes.data(), header.size), boost::asio::buffer(payload)};
    boost::asio::write(server, frame);
    boost::beast::flat_buffer buffer;
    client.read(buffer);
    EXPECT_FALSE(client.got_text());
    ASSERT_EQ(buffer.size(), size);
    EXPECT_EQ(std::memcmp(buffer.data().data(), payload.data(), size), 0) << size;
  }
}

// A FrameCountingStream over the server side of a loopback pair.
struct CountingStreamPair {
  explicit CountingStreamPair(boost::asio::io_context& io) : peer(io), stream(accepted(io, peer)) {}
  static net::Stream accepted(boost::asio::io_context& io, boost::asio::ip::tcp::socket& peer) {
    boost::asio::ip::tcp::acceptor acceptor(io, {boost::asio::ip::make_address_v4("127.0.0.1"), 0});
    peer.connect(acceptor.local_endpoint());
    net::Stream server(io.get_executor());
    acceptor.accept(server);
    return server;
  }
  boost::asio::ip::tcp::socket peer;
  FrameCountingStream<net::Stream> stream;
};

// What a handler saw, and whether it ran on `home`'s thread.
struct Completion {
  int calls = 0;
  size_t bytes = 0;
  bool on_home = false;
};
auto bound_to(boost::asio::io_context& home, Completion& seen) {
  return boost::asio::bind_executor(home.get_executor(),
                                    [&seen, &home](const boost::system::error_code& ec, size_t n) {
                                      EXPECT_FALSE(ec) << ec.message();
                                      ++seen.calls;
                                      seen.bytes = n;
                                      seen.on_home = home.get_executor().running_in_this_thread();
                                    });
}

TEST(FrameCountingStream, AReadCompletesOnTheExecutorItsHandlerIsBoundTo) {
  boost::asio::io_context io;
  boost::asio::io_context other;
  CountingStreamPair pair(io);
  boost::asio::write(pair.peer, boost::asio::buffer("abc", 3));
  std::array<char, 16> into{};
  Completion seen;
  pair.stream.async_read_some(boost::asio::buffer(into), bound_to(other, seen));
  io.run();
  EXPECT_EQ(seen.calls, 0) << "the handler ran on the socket's executor, not its own";
  other.run();
  ASSERT_EQ(seen.calls, 1);
  EXPECT_EQ(seen.bytes, 3u);
  EXPECT_TRUE(seen.on_home);
}

TEST(FrameCountingStream, ABeastWriteCompletesOnTheExecutorItsHandlerIsBoundTo) {
  boost::asio::io_context io;
  boost::asio::io_context other;
  CountingStreamPair pair(io);
  Completion seen;
  pair.stream.async_write_some(boost::asio::buffer("abc", 3), bound_to(other, seen));
  io.run();
  EXPECT_EQ(seen.calls, 0) << "the handler ran on the socket's executor, not its own";
  other.run();
  ASSERT_EQ(seen.calls, 1);
  EXPECT_EQ(seen.bytes, 3u);
  EXPECT_TRUE(seen.on_home);
}

TEST(FrameCountingStream, TheConnectionsOwnWriteCompletesOnTheExecutorItsHandlerIsBoundTo) {
  boost::asio::io_context io;
  boost::asio::io_context other;
  CountingStreamPair pair(io);
  const std::array<boost::asio::const_buffer, 2> frames{boost::asio::buffer("ab", 2),
                                                        boost::asio::buffer("c", 1)};
  Completion seen;
  pair.stream.async_write_frames(frames, bound_to(other, seen));
  io.run();
  EXPECT_EQ(seen.calls, 0) << "the handler ran on the socket's executor, not its own";
  other.run();
  ASSERT_EQ(seen.calls, 1);
  EXPECT_EQ(seen.bytes, 3u);
  EXPECT_TRUE(seen.on_home);
}

// A Beast write (a pong, a close frame) that comes during the connection's own write waits for
// it, holding Beast's handler and, through it, the connection. Closing the socket ends the own
// write, and the waiting write then starts, fails and lets its handler go: a waiting Beast
// write keeps no connection whose peer has gone.
TEST(FrameCountingStream, ABeastWriteWaitingForTheOwnWriteLetsGoOfItsHandlerWhenTheSocketCloses) {
  boost::asio::io_context io;
  CountingStreamPair pair(io);
  // The peer reads nothing: once the socket is full, the own write waits.
  pair.stream.next_layer().non_blocking(true);
  const std::vector<char> chunk(64 * 1024, 'f');
  boost::system::error_code fill_ec;
  for (int i = 0; i < 100000 && !fill_ec; ++i) {
    pair.stream.next_layer().write_some(boost::asio::buffer(chunk), fill_ec);
  }
  ASSERT_EQ(fill_ec, boost::asio::error::would_block);
  const std::array<boost::asio::const_buffer, 1> frames{boost::asio::buffer("own", 3)};
  int own_calls = 0;
  boost::system::error_code own_ec;
  pair.stream.async_write_frames(frames, [&](const boost::system::error_code& ec, size_t) {
    ++own_calls;
    own_ec = ec;
  });
  const auto connection = std::make_shared<int>(0);  // what Beast's handler holds
  int beast_calls = 0;
  boost::system::error_code beast_ec;
  pair.stream.async_write_some(
      boost::asio::buffer("pong", 4),
      [&beast_calls, &beast_ec, connection](const boost::system::error_code& ec, size_t) {
        ++beast_calls;
        beast_ec = ec;
      });
  io.poll();
  io.restart();
  ASSERT_EQ(own_calls, 0) << "the own write did not wait for the socket";
  EXPECT_EQ(beast_calls, 0);
  EXPECT_EQ(connection.use_count(), 2);
  pair.stream.next_layer().close();
  io.run();
  EXPECT_EQ(own_calls, 1);
  EXPECT_EQ(own_ec, boost::asio::error::operation_aborted);
  EXPECT_EQ(beast_calls, 1);
  EXPECT_TRUE(beast_ec) << "the waiting write succeeded on a closed socket";
  EXPECT_EQ(connection.use_count(), 1) << "the waiting write still holds its handler";
}

// A Beast client over the router's WebSocket port, fragmenting what it writes.
class FragmentingClient {
 public:
  FragmentingClient(uint16_t port, size_t fragment) : ws_(io_) {
    ws_.next_layer().connect({boost::asio::ip::make_address_v4("127.0.0.1"), port});
    ws_.set_option(websocket::stream_base::decorator([](websocket::request_type& request) {
      request.set(boost::beast::http::field::sec_websocket_protocol, "wamp.2.msgpack");
    }));
    ws_.handshake("127.0.0.1", "/");
    ws_.binary(true);
    ws_.auto_fragment(true);
    ws_.write_buffer_bytes(fragment);
  }
  size_t send(const Json& message) {
    std::vector<uint8_t> bytes;
    encode(Serializer::kMsgpack, message, bytes);
    ws_.write(boost::asio::buffer(bytes));
    return bytes.size();
  }
  Json read() {
    boost::beast::flat_buffer buffer;
    ws_.read(buffer);
    Json message;
    const auto data = buffer.data();
    decode(Serializer::kMsgpack,
           std::span<const uint8_t>(static_cast<const uint8_t*>(data.data()), data.size()),
           message);
    return message;
  }

 private:
  boost::asio::io_context io_;
  websocket::stream<boost::asio::ip::tcp::socket> ws_;
};

size_t frames_for(size_t size, size_t fragment) {
  return size <= fragment ? 1 : (size + fragment - 1) / fragment;
}

TEST(WebSocketFragmentation, TheRouterReassemblesFragmentsAndFragmentsWhatItSends) {
  constexpr size_t kFragment = 1024;
  WampOptions options;
  options.ws_fragment_bytes = kFragment;
  auto server = WampServer::start(options);
  ASSERT_TRUE(server) << server.message();
  FragmentingClient client((*server)->websocket_port(), kFragment);

  const size_t hello =
      client.send(Json::array({1, "realm1", {{"roles", {{"caller", Json::object()}}}}}));
  const Json welcome = client.read();
  ASSERT_EQ(welcome[0], 2);
  std::vector<uint8_t> welcome_bytes;
  encode(Serializer::kMsgpack, welcome, welcome_bytes);

  const Json payload = Json::binary(std::vector<uint8_t>(10'000, 'p'));
  const Json call = Json::array({48, 7, Json::object(), "bench.echo", Json::array({payload})});
  const size_t call_size = client.send(call);
  const Json result = client.read();
  ASSERT_EQ(result[0], 50);
  ASSERT_EQ(result[1], 7);
  EXPECT_EQ(result[3][0], payload) << "the reassembled argument came back byte for byte";
  std::vector<uint8_t> result_bytes;
  encode(Serializer::kMsgpack, result, result_bytes);

  const auto in = static_cast<size_t>(metrics::Direction::in);
  const auto out = static_cast<size_t>(metrics::Direction::out);
  const size_t frames_in = frames_for(hello, kFragment) + frames_for(call_size, kFragment);
  const size_t frames_out =
      frames_for(welcome_bytes.size(), kFragment) + frames_for(result_bytes.size(), kFragment);
  // The router's frame counters can trail what the client has already read (seen 10 of 11
  // frames out under load): wait for the counts to get there (or the wait to give up), then
  // check that they are exact.
  const auto snapshot = router::testing::wait_for_wamp(**server, [&](const metrics::Snapshot& s) {
    return s.wamp.calls_routed == 1 && s.wamp.websocket_frames[in] >= frames_in &&
           s.wamp.websocket_frames[out] >= frames_out;
  });
  EXPECT_EQ(snapshot.wamp.websocket_frames[in], frames_in);
  EXPECT_EQ(snapshot.wamp.websocket_fragmented_messages[in], 1u);
  EXPECT_EQ(snapshot.wamp.websocket_frames[out], frames_out);
  EXPECT_EQ(snapshot.wamp.websocket_fragmented_messages[out], 1u);
  EXPECT_EQ(frames_for(call_size, kFragment), 10u);
}

TEST(WebSocketFragmentation, WithoutTheFlagEachMessageLeavesInOneFrame) {
  auto server = WampServer::start(WampOptions{});
  ASSERT_TRUE(server) << server.message();
  FragmentingClient client((*server)->websocket_port(), 512);
  client.send(Json::array({1, "realm1", {{"roles", {{"caller", Json::object()}}}}}));
  ASSERT_EQ(client.read()[0], 2);
  client.send(Json::array({48, 1, Json::object(), "bench.echo",
                           Json::array({Json::binary(std::vector<uint8_t>(4000, 'q'))})}));
  ASSERT_EQ(client.read()[0], 50);
  const auto snapshot = router::testing::wait_for_wamp(
      **server, [](const metrics::Snapshot& s) { return s.wamp.websocket_frames[1] == 2; });
  EXPECT_EQ(snapshot.wamp.websocket_frames[1], 2u);
  EXPECT_EQ(snapshot.wamp.websocket_fragmented_messages[1], 0u);
  EXPECT_EQ(snapshot.wamp.websocket_fragmented_messages[0], 1u) << "the client's CALL was";
}

}  // namespace
}  // namespace benchgate::router::wamp
