// The worker's WebSocket frames (worker/wamp/websocket_framing.h): headers written and parsed
// back at every length boundary, parsed byte by byte as across reads, refused when RFC 6455
// forbids them, and masking checked against a byte-at-a-time reference at every alignment
// of source, destination and key phase.
#include "worker/wamp/websocket_framing.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace benchgate::worker::wamp::ws {
namespace {

constexpr std::array<uint8_t, 4> kKey = {0x37, 0xfa, 0x21, 0x3d};

FrameHeader parse_all(const uint8_t* data, size_t size, size_t step, size_t* taken) {
  HeaderParser parser;
  size_t at = 0;
  while (at < size && parser.state() == HeaderParser::State::kNeedMore) {
    at += parser.feed(data + at, std::min(step, size - at));
  }
  *taken = at;
  EXPECT_EQ(parser.state(), HeaderParser::State::kDone) << parser.error();
  return parser.header();
}

TEST(WebSocketFrameHeader, RoundTripsEveryLengthBoundaryWholeAndByteByByte) {
  for (uint64_t length : {0ull, 1ull, 125ull, 126ull, 127ull, 65535ull, 65536ull, 1ull << 32}) {
    for (bool masked : {false, true}) {
      FrameHeader h;
      h.fin = length % 2 == 0;
      h.opcode = kBinary;
      h.masked = masked;
      h.key = kKey;
      h.length = length;
      uint8_t bytes[kMaxHeaderBytes + 3] = {};
      const size_t n = encode_header(h, bytes);
      const size_t expected = 2 + (length < 126 ? 0 : length <= 65535 ? 2 : 8) + (masked ? 4 : 0);
      ASSERT_EQ(n, expected) << length;
      // Payload bytes after the header are not taken.
      bytes[n] = 0xaa;
      for (size_t step : {size_t{1}, size_t{3}, sizeof bytes}) {
        size_t taken = 0;
        const FrameHeader back = parse_all(bytes, sizeof bytes, step, &taken);
        EXPECT_EQ(taken, n) << length << " step " << step;
        EXPECT_EQ(back.length, length);
        EXPECT_EQ(back.fin, h.fin);
        EXPECT_EQ(back.opcode, kBinary);
        EXPECT_EQ(back.masked, masked);
        if (masked) {
          EXPECT_EQ(back.key, kKey);
        }
      }
    }
  }
}

TEST(WebSocketFrameHeader, WritesTheShortestFormInNetworkOrder) {
  uint8_t bytes[kMaxHeaderBytes];
  FrameHeader h{true, kText, false, {}, 126};
  ASSERT_EQ(encode_header(h, bytes), 4u);
  EXPECT_EQ(bytes[0], 0x81);
  EXPECT_EQ(bytes[1], 126);
  EXPECT_EQ(bytes[2], 0x00);
  EXPECT_EQ(bytes[3], 126);
  h = FrameHeader{false, kContinuation, true, kKey, 65536};
  ASSERT_EQ(encode_header(h, bytes), 14u);
  EXPECT_EQ(bytes[0], 0x00);
  EXPECT_EQ(bytes[1], 0x80 | 127);
  const uint8_t length[8] = {0, 0, 0, 0, 0, 1, 0, 0};
  EXPECT_EQ(std::memcmp(bytes + 2, length, 8), 0);
  EXPECT_EQ(std::memcmp(bytes + 10, kKey.data(), 4), 0);
}

TEST(WebSocketFrameHeader, RefusesWhatRfc6455Forbids) {
  struct Bad {
    std::vector<uint8_t> bytes;
    const char* why;
  };
  const std::vector<Bad> bad = {
      {{0xc2, 0x00}, "reserved bits"},                                  // RSV1
      {{0x83, 0x00}, "reserved opcode"},                                // 0x3
      {{0x8b, 0x00}, "reserved opcode"},                                // 0xb
      {{0x09, 0x00}, "control frame"},                                  // ping without FIN
      {{0x89, 126, 0x00, 126}, "control frame"},                        // ping of 126 bytes
      {{0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 0}, "most significant bit"}  // 2^63
  };
  for (const Bad& b : bad) {
    HeaderParser parser;
    EXPECT_EQ(parser.feed(b.bytes.data(), b.bytes.size()), b.bytes.size());
    EXPECT_EQ(parser.state(), HeaderParser::State::kError) << b.why;
    EXPECT_NE(std::string(parser.error()).find(b.why), std::string::npos) << parser.error();
  }
}

TEST(WebSocketFrameHeader, ParsesConsecutiveHeadersAfterReset) {
  uint8_t bytes[2 * kMaxHeaderBytes];
  size_t n = encode_header(FrameHeader{false, kText, false, {}, 5}, bytes);
  n += encode_header(FrameHeader{true, kContinuation, false, {}, 70000}, bytes + n);
  HeaderParser parser;
  size_t at = parser.feed(bytes, n);
  ASSERT_EQ(parser.state(), HeaderParser::State::kDone);
  EXPECT_EQ(parser.header().opcode, kText);
  EXPECT_FALSE(parser.header().fin);
  EXPECT_EQ(at, 2u);
  parser.reset();
  at += parser.feed(bytes + at, n - at);
  ASSERT_EQ(parser.state(), HeaderParser::State::kDone);
  EXPECT_EQ(parser.header().opcode, kContinuation);
  EXPECT_TRUE(parser.header().fin);
  EXPECT_EQ(parser.header().length, 70000u);
  EXPECT_EQ(at, n);
}

TEST(WebSocketMask, MatchesTheByteByByteDefinitionAtEveryAlignmentAndSize) {
  std::vector<uint8_t> source(65536 + 64);
  for (size_t i = 0; i < source.size(); ++i) source[i] = static_cast<uint8_t>(i * 131 + 7);
  std::vector<uint8_t> out(source.size() + 64);
  for (size_t size :
       {size_t{0}, size_t{1}, size_t{3}, size_t{7}, size_t{31}, size_t{32}, size_t{33}, size_t{125},
        size_t{126}, size_t{129}, size_t{1000}, size_t{65535}, size_t{65536}}) {
    for (size_t src_at = 0; src_at < 32; src_at += (size > 1000 ? 7 : 1)) {
      for (size_t dst_at : {size_t{0}, size_t{1}, size_t{5}, size_t{31}}) {
        for (size_t phase = 0; phase < 8; ++phase) {
          std::fill(out.begin(), out.end(), 0xee);
          mask_copy(out.data() + dst_at, source.data() + src_at, size, kKey, phase);
          for (size_t i = 0; i < size; ++i) {
            ASSERT_EQ(out[dst_at + i], source[src_at + i] ^ kKey[(phase + i) % 4])
                << "size " << size << " src " << src_at << " dst " << dst_at << " phase " << phase
                << " byte " << i;
          }
          // Nothing written outside the range.
          if (dst_at > 0) {
            ASSERT_EQ(out[dst_at - 1], 0xee);
          }
          ASSERT_EQ(out[dst_at + size], 0xee);
        }
      }
    }
  }
}

TEST(WebSocketMask, InPlaceTwiceGivesTheBytesBackAndPiecesJoinUp) {
  std::vector<uint8_t> bytes(65536 + 13);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i ^ (i >> 8));
  const std::vector<uint8_t> original = bytes;
  // Masked in pieces of odd sizes, each with the phase of where it starts in the frame.
  std::vector<uint8_t> pieces(bytes.size());
  size_t at = 0;
  for (size_t piece = 1; at < bytes.size(); piece = piece * 3 + 1) {
    const size_t n = std::min(piece, bytes.size() - at);
    mask_copy(pieces.data() + at, bytes.data() + at, n, kKey, at);
    at += n;
  }
  mask_copy(bytes.data(), bytes.data(), bytes.size(), kKey, 0);
  EXPECT_EQ(pieces, bytes);
  mask_copy(bytes.data(), bytes.data(), bytes.size(), kKey, 0);
  EXPECT_EQ(bytes, original);
}

}  // namespace
}  // namespace benchgate::worker::wamp::ws
