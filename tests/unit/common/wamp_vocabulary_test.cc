// The WAMP vocabulary of common/wamp: the codes and ids the router and the worker share, as
// the WAMP v2 specification numbers them.
#include <gtest/gtest.h>

#include "common/wamp/message_type.h"
#include "common/wamp/rawsocket_frame.h"
#include "common/wamp/serializers.h"

namespace benchgate::wamp {
namespace {

TEST(WampVocabulary, MessageTypeCodesAreTheSpecificationsNumbers) {
  EXPECT_EQ(code(MessageType::kHello), 1u);
  EXPECT_EQ(code(MessageType::kGoodbye), 6u);
  EXPECT_EQ(code(MessageType::kError), 8u);
  EXPECT_EQ(code(MessageType::kPublish), 16u);
  EXPECT_EQ(code(MessageType::kEvent), 36u);
  EXPECT_EQ(code(MessageType::kCall), 48u);
  EXPECT_EQ(code(MessageType::kResult), 50u);
  EXPECT_EQ(code(MessageType::kRegister), 64u);
  EXPECT_EQ(code(MessageType::kYield), 70u);
}

TEST(WampVocabulary, EachSerializerHasOneNameSubprotocolAndRawSocketId) {
  for (auto s : {Serializer::kJson, Serializer::kMsgpack, Serializer::kCbor}) {
    EXPECT_EQ(serializer_for_subprotocol(subprotocol(s)), s) << serializer_name(s);
    EXPECT_EQ(serializer_for_rawsocket_id(rawsocket_serializer_id(s)), s) << serializer_name(s);
  }
  EXPECT_EQ(subprotocol(Serializer::kCbor), "wamp.2.cbor");
  EXPECT_EQ(rawsocket_serializer_id(Serializer::kJson), 1);
  EXPECT_EQ(rawsocket_serializer_id(Serializer::kMsgpack), 2);
  EXPECT_FALSE(serializer_for_rawsocket_id(0));
  EXPECT_FALSE(serializer_for_rawsocket_id(4));
  EXPECT_FALSE(serializer_for_subprotocol("wamp.2.ubjson"));
  EXPECT_TRUE(is_text(Serializer::kJson));
  EXPECT_FALSE(is_text(Serializer::kCbor));
}

TEST(WampVocabulary, AFrameHeaderRoundTripsAndReservedBitsAreInvalid) {
  const auto bytes = frame_header(FrameType::kPing, 0x012345);
  EXPECT_EQ(bytes, (std::array<uint8_t, 4>{1, 0x01, 0x23, 0x45}));
  const auto header = parse_frame_header(bytes.data());
  EXPECT_TRUE(header.valid);
  EXPECT_EQ(header.type, FrameType::kPing);
  EXPECT_EQ(header.length, 0x012345u);
  const uint8_t reserved[4] = {0x08, 0, 0, 1};
  EXPECT_FALSE(parse_frame_header(reserved).valid);
  const uint8_t unknown_type[4] = {3, 0, 0, 1};
  EXPECT_FALSE(parse_frame_header(unknown_type).valid);
}

}  // namespace
}  // namespace benchgate::wamp
