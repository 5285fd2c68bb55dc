// RawSocket opening handshake and frame headers, and the choice of WebSocket subprotocol.
#include <gtest/gtest.h>

#include "router/wamp/rawsocket_framing.h"
#include "router/wamp/websocket_connection.h"

namespace benchgate::router::wamp {
namespace {

TEST(RawSocketHandshake, AcceptsEachSerializerAndReadsTheClientsMaximumLength) {
  const ClientHandshake json = parse_client_handshake({0x7F, 0xF1, 0, 0});
  EXPECT_FALSE(json.not_rawsocket);
  EXPECT_FALSE(json.error);
  EXPECT_EQ(json.serializer, Serializer::kJson);
  EXPECT_EQ(json.client_max_length, kRawSocketMaxLength);  // 2^24 capped by the 24-bit length
  const ClientHandshake msgpack = parse_client_handshake({0x7F, 0x02, 0, 0});
  EXPECT_EQ(msgpack.serializer, Serializer::kMsgpack);
  EXPECT_EQ(msgpack.client_max_length, 512u);
  EXPECT_EQ(parse_client_handshake({0x7F, 0x43, 0, 0}).serializer, Serializer::kCbor);
  EXPECT_EQ(parse_client_handshake({0x7F, 0x43, 0, 0}).client_max_length, 8192u);
}

TEST(RawSocketHandshake, RefusesWhatItCannotServe) {
  EXPECT_TRUE(parse_client_handshake({0x47, 0x45, 0x54, 0x20}).not_rawsocket);  // "GET "
  EXPECT_EQ(parse_client_handshake({0x7F, 0xF0, 0, 0}).error,
            HandshakeError::serializer_unsupported);
  EXPECT_EQ(parse_client_handshake({0x7F, 0xF9, 0, 0}).error,
            HandshakeError::serializer_unsupported);
  EXPECT_EQ(parse_client_handshake({0x7F, 0xF1, 1, 0}).error, HandshakeError::reserved_bits);
}

TEST(RawSocketHandshake, RepliesWithSerializerAndLengthOrAnErrorCode) {
  EXPECT_EQ(handshake_reply(Serializer::kCbor, 15), (std::array<uint8_t, 4>{0x7F, 0xF3, 0, 0}));
  EXPECT_EQ(handshake_reply(Serializer::kJson, 11), (std::array<uint8_t, 4>{0x7F, 0xB1, 0, 0}));
  EXPECT_EQ(handshake_error_reply(HandshakeError::serializer_unsupported),
            (std::array<uint8_t, 4>{0x7F, 0x10, 0, 0}));
  EXPECT_EQ(handshake_error_reply(HandshakeError::max_connections),
            (std::array<uint8_t, 4>{0x7F, 0x40, 0, 0}));
}

TEST(RawSocketHandshake, LengthExponentIsTheLargestPowerOfTwoWithinTheLimit) {
  EXPECT_EQ(length_exponent_for(100), 0);
  EXPECT_EQ(length_exponent_for(512), 0);
  EXPECT_EQ(length_exponent_for(1023), 0);
  EXPECT_EQ(length_exponent_for(1 << 20), 11);
  EXPECT_EQ(length_exponent_for((1 << 20) + 5), 11);
  EXPECT_EQ(length_exponent_for(65ull << 20), 15);
  EXPECT_EQ(length_for_exponent(11), 1u << 20);
  EXPECT_EQ(length_for_exponent(15), kRawSocketMaxLength);
}

TEST(RawSocketFrame, HeaderCarriesTypeAnd24BitLength) {
  const auto header = frame_header(FrameType::kMessage, 0x123456);
  EXPECT_EQ(header, (std::array<uint8_t, 4>{0x00, 0x12, 0x34, 0x56}));
  const FrameHeader parsed = parse_frame_header(header.data());
  EXPECT_TRUE(parsed.valid);
  EXPECT_EQ(parsed.type, FrameType::kMessage);
  EXPECT_EQ(parsed.length, 0x123456u);
  const auto ping = frame_header(FrameType::kPing, 3);
  EXPECT_EQ(parse_frame_header(ping.data()).type, FrameType::kPing);
  const auto pong = frame_header(FrameType::kPong, 0);
  EXPECT_EQ(parse_frame_header(pong.data()).type, FrameType::kPong);
}

TEST(RawSocketFrame, UnknownTypesAndReservedBitsAreInvalid) {
  const uint8_t unknown_type[] = {0x03, 0, 0, 1};
  EXPECT_FALSE(parse_frame_header(unknown_type).valid);
  const uint8_t reserved[] = {0x08, 0, 0, 1};
  EXPECT_FALSE(parse_frame_header(reserved).valid);
}

TEST(WebSocketSubprotocol, FirstSupportedOfTheClientsListIsChosen) {
  EXPECT_EQ(choose_subprotocol("wamp.2.cbor, wamp.2.json"), Serializer::kCbor);
  EXPECT_EQ(choose_subprotocol("chat,  wamp.2.msgpack ,wamp.2.json"), Serializer::kMsgpack);
  EXPECT_EQ(choose_subprotocol("wamp.2.json"), Serializer::kJson);
  EXPECT_EQ(choose_subprotocol("chat, wamp.2.ubjson"), std::nullopt);
  EXPECT_EQ(choose_subprotocol(""), std::nullopt);
}

}  // namespace
}  // namespace benchgate::router::wamp
