// WAMP serializers: JSON, MessagePack and CBOR round trips, binary payloads in each format's
// WAMP form (native binary; NUL + base64 in JSON), conversion between them, and rejection of
// malformed, trailing and too deeply nested input without exceptions.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "router/wamp/serializer.h"

namespace benchgate::router::wamp {
namespace {

std::vector<uint8_t> bytes_of(std::string_view text) { return {text.begin(), text.end()}; }
std::string text_of(const std::vector<uint8_t>& bytes) { return {bytes.begin(), bytes.end()}; }

Json call_with_binary(std::vector<uint8_t> payload) {
  return Json::array({48, 7, Json::object(), "bench.echo",
                      Json::array({1, "two", Json::binary(std::move(payload))}),
                      Json{{"k", 2.5}, {"flag", true}, {"none", nullptr}}});
}

TEST(Serializer, EveryFormatRoundTripsAMessageWithBinary) {
  std::vector<uint8_t> payload(1000);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<uint8_t>(i * 7);
  const Json message = call_with_binary(payload);
  for (auto serializer : {Serializer::kJson, Serializer::kMsgpack, Serializer::kCbor}) {
    std::vector<uint8_t> encoded;
    encode(serializer, message, encoded);
    Json decoded;
    ASSERT_TRUE(decode(serializer, encoded, decoded)) << serializer_name(serializer);
    EXPECT_EQ(decoded, message) << serializer_name(serializer);
    EXPECT_TRUE(decoded[4][2].is_binary());
    EXPECT_GE(encoded_size_hint(serializer, message), encoded.size());
  }
}

TEST(Serializer, JsonWritesBinaryAsNulPrefixedBase64) {
  std::vector<uint8_t> out;
  encode(Serializer::kJson, Json::array({Json::binary({0, 1, 2, 255})}), out);
  EXPECT_EQ(text_of(out), R"(["\u0000AAEC/w=="])");
}

TEST(Serializer, JsonReadsNulPrefixedStringsAsBinary) {
  Json out;
  ASSERT_TRUE(decode(Serializer::kJson, bytes_of(R"([1, "\u0000AAEC/w==", "plain"])"), out));
  ASSERT_TRUE(out[1].is_binary());
  EXPECT_EQ(out[1].get_binary(), std::vector<uint8_t>({0, 1, 2, 255}));
  EXPECT_EQ(out[2], "plain");
}

TEST(Serializer, BinaryFromMsgpackIsNativeBinaryInCborAndBase64InJson) {
  const std::vector<uint8_t> msgpack = {0x91, 0xC4, 0x02, 0xAB, 0xCD};  // [bin(AB CD)]
  Json message;
  ASSERT_TRUE(decode(Serializer::kMsgpack, msgpack, message));
  std::vector<uint8_t> cbor;
  encode(Serializer::kCbor, message, cbor);
  EXPECT_EQ(cbor, std::vector<uint8_t>({0x81, 0x42, 0xAB, 0xCD}));  // [bytes(AB CD)]
  std::vector<uint8_t> json;
  encode(Serializer::kJson, message, json);
  EXPECT_EQ(text_of(json), R"(["\u0000q80="])");
}

TEST(Serializer, JsonEscapesControlCharactersQuotesAndBackslashes) {
  std::vector<uint8_t> out;
  encode(Serializer::kJson, Json::array({std::string("a\"b\\c\n\x01", 7), 1.5, -3, nullptr}), out);
  EXPECT_EQ(text_of(out), R"(["a\"b\\c\n\u0001",1.5,-3,null])");
  Json back;
  ASSERT_TRUE(decode(Serializer::kJson, out, back));
  EXPECT_EQ(back[0], std::string("a\"b\\c\n\x01", 7));
}

TEST(Serializer, JsonPassesWellFormedUtf8AndReplacesEachByteOfBrokenSequences) {
  // é, €, U+1F600 pass; a stray continuation byte, a truncated 3-byte sequence, an overlong
  // '/', a surrogate and a code point past U+10FFFF do not (one U+FFFD per byte).
  const std::string good = "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
  const std::string text = good + "|\x80|\xe2\x82|\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80";
  std::vector<uint8_t> out;
  encode(Serializer::kJson, Json::array({text}), out);
  EXPECT_EQ(text_of(out), "[\"" + good +
                              "|\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|"
                              "\\ufffd\\ufffd\\ufffd\\ufffd\"]");
  Json back;
  ASSERT_TRUE(decode(Serializer::kJson, out, back));  // nlohmann's parser checks UTF-8
  EXPECT_EQ(back[0].get<std::string>().substr(0, good.size()), good);
}

TEST(Serializer, MalformedInputIsRejectedWithoutThrowing) {
  Json out;
  EXPECT_FALSE(decode(Serializer::kJson, bytes_of("[48, 1, {}"), out));
  EXPECT_FALSE(decode(Serializer::kJson, bytes_of(R"(["\u0000not base64!"])"), out));
  EXPECT_FALSE(decode(Serializer::kMsgpack, std::vector<uint8_t>{0x93, 0x01}, out));  // short
  EXPECT_FALSE(decode(Serializer::kCbor, std::vector<uint8_t>{0x5A, 0xFF, 0xFF}, out));
  EXPECT_FALSE(decode(Serializer::kJson, {}, out));
}

TEST(Serializer, TrailingBytesAfterOneValueAreRejected) {
  Json out;
  EXPECT_FALSE(decode(Serializer::kJson, bytes_of("[1] [2]"), out));
  EXPECT_FALSE(decode(Serializer::kMsgpack, std::vector<uint8_t>{0x91, 0x01, 0x01}, out));
}

TEST(Serializer, NestingBeyondTheLimitIsRejectedInEveryFormat) {
  const size_t depth = 100000;  // deep enough to overflow the stack of a recursive reader
  Json out;
  EXPECT_FALSE(decode(Serializer::kJson, bytes_of(std::string(depth, '[')), out));
  EXPECT_FALSE(decode(Serializer::kMsgpack, std::vector<uint8_t>(depth, 0x91), out));
  EXPECT_FALSE(decode(Serializer::kCbor, std::vector<uint8_t>(depth, 0x81), out));
  std::string shallow = std::string(kMaxNestingDepth, '[') + std::string(kMaxNestingDepth, ']');
  EXPECT_TRUE(decode(Serializer::kJson, bytes_of(shallow), out));
}

TEST(Serializer, SubprotocolsAndRawSocketIdsNameTheSerializers) {
  EXPECT_EQ(serializer_for_subprotocol("wamp.2.json"), Serializer::kJson);
  EXPECT_EQ(serializer_for_subprotocol("wamp.2.msgpack"), Serializer::kMsgpack);
  EXPECT_EQ(serializer_for_subprotocol("wamp.2.cbor"), Serializer::kCbor);
  EXPECT_EQ(serializer_for_subprotocol("wamp.2.ubjson"), std::nullopt);
  EXPECT_EQ(serializer_for_rawsocket_id(1), Serializer::kJson);
  EXPECT_EQ(serializer_for_rawsocket_id(2), Serializer::kMsgpack);
  EXPECT_EQ(serializer_for_rawsocket_id(3), Serializer::kCbor);
  EXPECT_EQ(serializer_for_rawsocket_id(0), std::nullopt);
  EXPECT_EQ(serializer_for_rawsocket_id(4), std::nullopt);
}

}  // namespace
}  // namespace benchgate::router::wamp
