// The worker's WebSocket client (worker/wamp/websocket_channel.cc) against a peer written
// here on a blocking socket, byte by byte where it matters: the upgrade (key, accept,
// subprotocol) with a first frame in the same packet as the 101 answer; payloads of 0, 125,
// 126, 65535 and 65536 bytes; a header sent one byte per write; a fragmented message with a
// ping between its frames (answered with a pong that echoes it); the worker's own messages,
// masked and, with fragment_bytes, split into continuation frames; messages queued together
// (written together) arriving whole and in order; a close frame ending the
// link as a short read; and frames a router must not send (too long, masked, a continuation
// without a first frame, a new message inside one) ending it as a protocol error.
#include <gtest/gtest.h>
#include <openssl/sha.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/serialization/base64.h"
#include "worker/wamp/channel.h"
#include "worker/wamp/websocket_framing.h"

namespace benchgate::worker::wamp {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

std::vector<uint8_t> pattern(size_t size, uint8_t seed) {
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>(i * 7 + seed);
  return bytes;
}

// An unmasked server frame, its header in the RFC's shortest form (written here by hand, not
// with the code under test).
std::vector<uint8_t> server_frame(bool fin, uint8_t opcode, const std::vector<uint8_t>& payload) {
  std::vector<uint8_t> f = {static_cast<uint8_t>((fin ? 0x80 : 0) | opcode)};
  const uint64_t n = payload.size();
  if (n < 126) {
    f.push_back(static_cast<uint8_t>(n));
  } else if (n <= 0xffff) {
    f.insert(f.end(), {126, static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n)});
  } else {
    f.push_back(127);
    for (int i = 7; i >= 0; --i) f.push_back(static_cast<uint8_t>(n >> (8 * i)));
  }
  f.insert(f.end(), payload.begin(), payload.end());
  return f;
}

struct ClientFrame {
  bool fin;
  uint8_t opcode;
  std::vector<uint8_t> payload;  // unmasked
  bool masked;
};

ClientFrame read_client_frame(tcp::socket& s) {
  uint8_t h[2];
  asio::read(s, asio::buffer(h));
  ClientFrame f{(h[0] & 0x80) != 0, static_cast<uint8_t>(h[0] & 0x0f), {}, (h[1] & 0x80) != 0};
  uint64_t n = h[1] & 0x7f;
  if (n == 126) {
    uint8_t e[2];
    asio::read(s, asio::buffer(e));
    n = (uint64_t{e[0]} << 8) | e[1];
  } else if (n == 127) {
    uint8_t e[8];
    asio::read(s, asio::buffer(e));
    n = 0;
    for (uint8_t b : e) n = (n << 8) | b;
  }
  uint8_t key[4] = {};
  if (f.masked) asio::read(s, asio::buffer(key));
  f.payload.resize(n);
  asio::read(s, asio::buffer(f.payload));
  for (size_t i = 0; i < n; ++i) f.payload[i] ^= key[i % 4];
  return f;
}

// A client frame's size on the wire: its header (with the 4-byte mask key) and payload.
size_t wire_size(const ClientFrame& f) {
  const size_t n = f.payload.size();
  return 2 + (n < 126 ? 0 : n <= 0xffff ? 2 : 8) + (f.masked ? 4 : 0) + n;
}

// Reads the upgrade request into `request` and answers 101 for wamp.2.msgpack, with `after`
// in the same write.
void accept_upgrade(tcp::socket& s, std::string& request, const std::vector<uint8_t>& after) {
  asio::streambuf head;
  asio::read_until(s, head, "\r\n\r\n");
  request.assign(asio::buffers_begin(head.data()), asio::buffers_end(head.data()));
  const std::string marker = "Sec-WebSocket-Key: ";
  const size_t at = request.find(marker);
  const std::string key = request.substr(at + marker.size(), 24);
  const std::string text = key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  uint8_t digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  std::string accept(28, '\0');
  serialization::base64_encode(digest, accept.data());
  std::string answer =
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Accept: " +
      accept + "\r\nSec-WebSocket-Protocol: wamp.2.msgpack\r\n\r\n";
  answer.append(after.begin(), after.end());
  asio::write(s, asio::buffer(answer));
}

struct Recorder : ChannelEvents {
  void on_message(std::span<const uint8_t> bytes, int64_t) override {
    messages.emplace_back(bytes.begin(), bytes.end());
    if (on_each) on_each();
  }
  void on_link_failed(ErrorKind kind) override {
    failed = kind;
    io->stop();
  }
  std::vector<std::vector<uint8_t>> messages;
  std::optional<ErrorKind> failed;
  std::function<void()> on_each;
  asio::io_context* io = nullptr;
};

// A MessagePack link to the peer at `endpoint`, messages up to 1 MiB.
ChannelOptions options_for(const tcp::endpoint& endpoint, size_t fragment_bytes = 0) {
  ChannelOptions options;
  options.endpoint = endpoint;
  options.host = "127.0.0.1:" + std::to_string(endpoint.port());
  options.serializer = Serializer::kMsgpack;
  options.max_message_bytes = 1 << 20;
  options.fragment_bytes = fragment_bytes;
  return options;
}

TEST(WebSocketChannel, ReadsFramesOfEverySizeAndFragmentsAndWritesMaskedFragments) {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  const auto endpoint = acceptor.local_endpoint();

  const std::vector<size_t> sizes = {0, 125, 126, 65535, 65536};
  const auto first = pattern(100, 1);
  const auto middle = pattern(1, 2);
  const auto last = pattern(70000, 3);
  const std::vector<uint8_t> ping = {'p', 'i', 'n', 'g'};
  const auto sent = pattern(65536 + 3, 9);
  std::string request;
  std::vector<ClientFrame> from_client;
  std::string server_error;

  std::thread server([&] {
    try {
      asio::io_context sio;
      tcp::socket s(sio);
      acceptor.accept(s);
      s.set_option(tcp::no_delay(true));
      // The first frame travels with the 101 answer.
      accept_upgrade(s, request, server_frame(true, ws::kBinary, pattern(sizes[0], 0)));
      for (size_t i = 1; i < sizes.size(); ++i) {
        const auto f = server_frame(true, ws::kBinary, pattern(sizes[i], static_cast<uint8_t>(i)));
        if (i == 3) {  // 65535 bytes: the header one byte per write, then the payload in two
          for (size_t b = 0; b < 4; ++b) asio::write(s, asio::buffer(&f[b], 1));
          asio::write(s, asio::buffer(f.data() + 4, 1000));
          asio::write(s, asio::buffer(f.data() + 1004, f.size() - 1004));
        } else {
          asio::write(s, asio::buffer(f));
        }
      }
      // A fragmented message with a ping between its frames.
      auto bytes = server_frame(false, ws::kBinary, first);
      const auto p = server_frame(true, ws::kPing, ping);
      const auto c1 = server_frame(false, ws::kContinuation, middle);
      const auto c2 = server_frame(true, ws::kContinuation, last);
      bytes.insert(bytes.end(), p.begin(), p.end());
      bytes.insert(bytes.end(), c1.begin(), c1.end());
      bytes.insert(bytes.end(), c2.begin(), c2.end());
      asio::write(s, asio::buffer(bytes));
      // The pong and the worker's message, 1000-byte frames.
      bool fin = false;
      while (!fin || from_client.empty() || from_client.front().opcode != ws::kPong) {
        from_client.push_back(read_client_frame(s));
        if (from_client.back().opcode != ws::kPong) {
          fin = from_client.back().fin;
        }
        if (from_client.size() > 200) break;
      }
      const auto close = server_frame(true, ws::kClose, {0x03, 0xe8});
      asio::write(s, asio::buffer(close));
      uint8_t rest[64];
      boost::system::error_code ec;
      while (!ec) s.read_some(asio::buffer(rest), ec);
    } catch (const std::exception& e) {
      server_error = e.what();
    }
  });

  ThreadStats stats;
  Recorder events;
  events.io = &io;
  const ChannelOptions options = options_for(endpoint, 1000);
  auto channel = make_websocket_channel(io, options, events, stats, true);
  boost::system::error_code opened = asio::error::would_block;
  channel->open([&](const boost::system::error_code& ec) { opened = ec; });
  events.on_each = [&] {
    if (events.messages.size() == sizes.size() + 1)
      channel->send(std::span(sent).first(5), std::span(sent).subspan(5));
  };
  io.run_for(std::chrono::seconds(20));
  channel->close();
  server.join();

  ASSERT_EQ(server_error, "");
  EXPECT_FALSE(opened);
  EXPECT_NE(request.find("Sec-WebSocket-Protocol: wamp.2.msgpack"), std::string::npos) << request;
  EXPECT_NE(request.find("Sec-WebSocket-Version: 13"), std::string::npos);
  ASSERT_EQ(events.messages.size(), sizes.size() + 1);
  for (size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(events.messages[i], pattern(sizes[i], static_cast<uint8_t>(i))) << sizes[i];
  }
  std::vector<uint8_t> whole = first;
  whole.insert(whole.end(), middle.begin(), middle.end());
  whole.insert(whole.end(), last.begin(), last.end());
  EXPECT_EQ(events.messages.back(), whole);
  ASSERT_TRUE(events.failed.has_value());
  EXPECT_EQ(*events.failed, ErrorKind::kShortRead);  // the close frame

  // The pong came first (no message was under way), echoing the ping; then the message in
  // 1000-byte frames: binary first, continuations after, FIN on the last only; all masked.
  ASSERT_FALSE(from_client.empty());
  EXPECT_EQ(from_client.front().opcode, ws::kPong);
  EXPECT_EQ(from_client.front().payload, ping);
  std::vector<uint8_t> received;
  for (size_t i = 1; i < from_client.size(); ++i) {
    const ClientFrame& f = from_client[i];
    EXPECT_TRUE(f.masked);
    EXPECT_EQ(f.opcode, i == 1 ? ws::kBinary : ws::kContinuation) << i;
    EXPECT_EQ(f.fin, i + 1 == from_client.size()) << i;
    EXPECT_EQ(f.payload.size(), i + 1 == from_client.size() ? sent.size() % 1000 : 1000u) << i;
    received.insert(received.end(), f.payload.begin(), f.payload.end());
  }
  EXPECT_EQ(from_client.size(), 1 + (sent.size() + 999) / 1000);
  EXPECT_EQ(received, sent);
  size_t wire = 0;  // the pong's frame too
  for (const ClientFrame& f : from_client) wire += wire_size(f);
  EXPECT_EQ(stats.bytes_sent, wire);
}

// Wire bytes (docs/MEASUREMENT.md, "Throughput") are every byte read from the socket once the
// link is up and every byte written: frame headers, masks and control frames included, not only
// the messages' payload. The upgrade itself is not counted, as RawSocket's handshake is not.
TEST(WebSocketChannel, CountsEveryFrameByteItReadsAndWrites) {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  const auto endpoint = acceptor.local_endpoint();
  // 200 bytes (header 4), a 4-byte ping (header 2), a message in two frames of 100 and 1 bytes
  // (headers 2 each), and a close frame with its 2-byte code (header 2).
  const auto one = server_frame(true, ws::kBinary, pattern(200, 1));
  const auto ping = server_frame(true, ws::kPing, {'p', 'i', 'n', 'g'});
  const auto first = server_frame(false, ws::kBinary, pattern(100, 2));
  const auto last = server_frame(true, ws::kContinuation, pattern(1, 3));
  const auto close = server_frame(true, ws::kClose, {0x03, 0xe8});
  const size_t server_bytes = one.size() + ping.size() + first.size() + last.size() + close.size();
  ASSERT_EQ(server_bytes, 204u + 6 + 102 + 3 + 4);
  const auto sent = pattern(300, 4);
  std::string request;
  std::vector<ClientFrame> from_client;
  std::string server_error;
  std::thread server([&] {
    try {
      asio::io_context sio;
      tcp::socket s(sio);
      acceptor.accept(s);
      accept_upgrade(s, request, one);  // the first frame with the 101 answer
      std::vector<uint8_t> rest = ping;
      rest.insert(rest.end(), first.begin(), first.end());
      rest.insert(rest.end(), last.begin(), last.end());
      asio::write(s, asio::buffer(rest));
      // The pong and the worker's message, in either order.
      while (from_client.size() < 2) from_client.push_back(read_client_frame(s));
      asio::write(s, asio::buffer(close));
      uint8_t drain[64];
      boost::system::error_code ec;
      while (!ec) s.read_some(asio::buffer(drain), ec);
    } catch (const std::exception& e) {
      server_error = e.what();
    }
  });
  ThreadStats stats;
  stats.window_end_ns = std::numeric_limits<int64_t>::max();
  Recorder events;
  events.io = &io;
  auto channel = make_websocket_channel(io, options_for(endpoint), events, stats, true);
  channel->open([](const boost::system::error_code&) {});
  events.on_each = [&] {
    if (events.messages.size() == 2)
      channel->send(std::span(sent).first(5), std::span(sent).subspan(5));
  };
  io.run_for(std::chrono::seconds(20));
  channel->close();
  server.join();

  ASSERT_EQ(server_error, "");
  ASSERT_EQ(events.messages.size(), 2u);
  EXPECT_EQ(events.messages[0].size(), 200u);
  EXPECT_EQ(events.messages[1].size(), 101u);
  ASSERT_TRUE(events.failed.has_value());
  EXPECT_EQ(*events.failed, ErrorKind::kShortRead);  // the close frame
  EXPECT_EQ(stats.bytes_received, server_bytes);
  EXPECT_EQ(stats.window_bytes_received, server_bytes);
  // The pong (header 2, mask 4, 4 bytes) and the message (header 4, mask 4, 300 bytes).
  ASSERT_EQ(from_client.size(), 2u);
  EXPECT_EQ(stats.bytes_sent, 10u + 308);
}

// Messages queued while a write is under way leave together in the next one, each in frames
// of its own with a key of its own: whatever the sizes (one larger than a frame), with and
// without fragment_bytes, they arrive whole and in order.
TEST(WebSocketChannel, MessagesQueuedTogetherArriveWholeAndInOrder) {
  std::vector<size_t> sizes;
  for (size_t i = 0; i < 40; ++i) sizes.push_back(i == 20 ? 70000 : 3 + i * 5);
  for (const size_t fragment : {size_t{0}, size_t{1000}}) {
    asio::io_context io;
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    const auto endpoint = acceptor.local_endpoint();
    std::string request;
    std::vector<std::vector<uint8_t>> messages;
    size_t frames = 0;
    size_t wire = 0;
    bool all_masked = true;
    std::string server_error;
    std::thread server([&] {
      try {
        asio::io_context sio;
        tcp::socket s(sio);
        acceptor.accept(s);
        accept_upgrade(s, request, {});
        std::vector<uint8_t> message;
        while (messages.size() < sizes.size()) {
          const ClientFrame f = read_client_frame(s);
          ++frames;
          wire += wire_size(f);
          all_masked = all_masked && f.masked;
          message.insert(message.end(), f.payload.begin(), f.payload.end());
          if (f.fin) messages.push_back(std::exchange(message, {}));
        }
        const auto close = server_frame(true, ws::kClose, {0x03, 0xe8});
        asio::write(s, asio::buffer(close));
        uint8_t rest[64];
        boost::system::error_code ec;
        while (!ec) s.read_some(asio::buffer(rest), ec);
      } catch (const std::exception& e) {
        server_error = e.what();
      }
    });
    ThreadStats stats;
    Recorder events;
    events.io = &io;
    const ChannelOptions options = options_for(endpoint, fragment);
    auto channel = make_websocket_channel(io, options, events, stats, true);
    std::vector<std::vector<uint8_t>> sent;
    for (size_t i = 0; i < sizes.size(); ++i) {
      sent.push_back(pattern(sizes[i], static_cast<uint8_t>(i)));
    }
    channel->open([&](const boost::system::error_code& ec) {
      if (ec) return;
      // The first goes out at once; the rest queue behind it and leave together.
      for (const auto& m : sent) channel->send(std::span(m).first(2), std::span(m).subspan(2));
    });
    io.run_for(std::chrono::seconds(20));
    channel->close();
    server.join();

    ASSERT_EQ(server_error, "") << "fragment_bytes " << fragment;
    ASSERT_EQ(messages.size(), sent.size()) << "fragment_bytes " << fragment;
    for (size_t i = 0; i < sent.size(); ++i) {
      EXPECT_EQ(messages[i], sent[i]) << "message " << i << ", fragment_bytes " << fragment;
    }
    EXPECT_TRUE(all_masked);
    size_t expected_frames = 0;
    size_t total = 0;
    for (const size_t size : sizes) {
      expected_frames += fragment == 0 ? 1 : std::max<size_t>(1, (size + fragment - 1) / fragment);
      total += size;
    }
    EXPECT_EQ(frames, expected_frames) << "fragment_bytes " << fragment;
    EXPECT_EQ(stats.bytes_sent, wire) << "fragment_bytes " << fragment;
    ASSERT_TRUE(events.failed.has_value());
    EXPECT_EQ(*events.failed, ErrorKind::kShortRead);  // the close frame
  }
}

// What a router must not send ends the link as a protocol error: a frame longer than the
// largest message, a masked frame, a continuation without a first frame.
TEST(WebSocketChannel, RefusesOversizedMaskedAndStrayFramesAsProtocolErrors) {
  std::vector<std::vector<uint8_t>> bad;
  bad.push_back({0x82, 127, 0, 0, 0, 0, 0, 0x20, 0, 0});  // 2 MiB, the limit is 1 MiB
  bad.push_back({0x82, 0x81, 1, 2, 3, 4, 0x55});          // masked
  bad.push_back({0x80, 0x01, 0x55});                      // continuation first
  bad.push_back({0x02, 0x01, 0x55, 0x82, 0x01, 0x55});    // a new message inside one
  for (const auto& frame : bad) {
    asio::io_context io;
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    const auto endpoint = acceptor.local_endpoint();
    std::string request;
    std::thread server([&] {
      try {
        asio::io_context sio;
        tcp::socket s(sio);
        acceptor.accept(s);
        accept_upgrade(s, request, frame);
        uint8_t rest[64];
        boost::system::error_code ec;
        while (!ec) s.read_some(asio::buffer(rest), ec);
      } catch (const std::exception&) {
      }
    });
    ThreadStats stats;
    Recorder events;
    events.io = &io;
    const ChannelOptions options = options_for(endpoint);
    auto channel = make_websocket_channel(io, options, events, stats, true);
    channel->open([](const boost::system::error_code&) {});
    io.run_for(std::chrono::seconds(20));
    channel->close();
    server.join();
    ASSERT_TRUE(events.failed.has_value()) << int(frame[0]);
    EXPECT_EQ(*events.failed, ErrorKind::kProtocol) << int(frame[0]);
    EXPECT_TRUE(events.messages.empty());
  }
}

}  // namespace
}  // namespace benchgate::worker::wamp
