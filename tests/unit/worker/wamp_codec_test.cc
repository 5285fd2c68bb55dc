// The WAMP client's encoding without a router: CALL and PUBLISH templates decode (with
// nlohmann's readers) to the messages WAMP defines in all three serializations, slots take
// any id in place, binary payloads take each serializer's form, and RawSocket handshakes and
// frame headers have the spec's bytes.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "common/serialization/base64.h"
#include "common/serialization/value_view.h"
#include "worker/wamp/codec.h"
#include "worker/wamp/message_writer.h"
#include "worker/wamp/rawsocket_framing.h"

namespace benchgate::worker::wamp {
namespace {

using serialization::ViewElement;

std::vector<uint8_t> pattern(size_t n) {
  std::vector<uint8_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>('a' + i % 26);
  return out;
}

// The template with its slots filled, as one message.
std::vector<uint8_t> assemble(Serializer s, const MessageTemplate& t,
                              const std::vector<uint64_t>& values) {
  std::vector<uint8_t> head = t.head;
  for (size_t i = 0; i < values.size(); ++i) fill_slot(s, head.data() + t.slots[i], values[i]);
  head.insert(head.end(), t.tail.begin(), t.tail.end());
  return head;
}

class WampCodec : public ::testing::TestWithParam<Serializer> {};

TEST_P(WampCodec, CallTemplateDecodesToACallWithTheIdAndTheBinaryPayload) {
  const Serializer s = GetParam();
  const auto payload = pattern(1000);
  const MessageTemplate t = call_template(s, "bench.echo", payload);
  ASSERT_EQ(t.slots.size(), 1u);
  for (uint64_t id : {uint64_t{1}, uint64_t{4096}, (uint64_t{1} << 53) - 1}) {
    Json m;
    ASSERT_TRUE(decode(s, assemble(s, t, {id}), m));
    ASSERT_TRUE(m.is_array()) << m.dump();
    ASSERT_EQ(m.size(), 5u);
    EXPECT_EQ(m[0], 48);
    EXPECT_EQ(m[1].get<uint64_t>(), id);
    EXPECT_TRUE(m[2].is_object() && m[2].empty());
    EXPECT_EQ(m[3], "bench.echo");
    ASSERT_EQ(m[4].size(), 1u);
    EXPECT_TRUE(binary_equals(m[4][0], payload, expected_json_binary(payload)));
  }
}

TEST_P(WampCodec, PublishTemplateCarriesTimestampsSequenceAndWindowBeforeThePayload) {
  const Serializer s = GetParam();
  const auto payload = pattern(70000);  // past 16-bit lengths
  const MessageTemplate t = publish_template(s, "bench.topic", true, payload);
  ASSERT_EQ(t.slots.size(), 5u);
  Json m;
  ASSERT_TRUE(decode(s, assemble(s, t, {77, 123456789012345, 123456789012999, 42, 3}), m));
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[0], 16);
  EXPECT_EQ(m[1], 77);
  EXPECT_EQ(m[2]["acknowledge"], true);
  EXPECT_EQ(m[3], "bench.topic");
  const Json& args = m[4];
  ASSERT_EQ(args.size(), 5u);
  EXPECT_EQ(args[0].get<uint64_t>(), 123456789012345u);
  EXPECT_EQ(args[1].get<uint64_t>(), 123456789012999u);
  EXPECT_EQ(args[2], 42);
  EXPECT_EQ(args[3], 3);
  EXPECT_TRUE(binary_equals(args[4], payload, expected_json_binary(payload)));
  EXPECT_FALSE(binary_equals(args[4], pattern(69999), expected_json_binary(pattern(69999))));
}

TEST_P(WampCodec, UnacknowledgedPublishHasEmptyOptions) {
  const Serializer s = GetParam();
  const MessageTemplate t = publish_template(s, "t", false, {});
  Json m;
  ASSERT_TRUE(decode(s, assemble(s, t, {1, 2, 3, 4, 5}), m));
  EXPECT_TRUE(m[2].is_object() && m[2].empty());
  EXPECT_TRUE(binary_equals(m[4][4], {}, expected_json_binary({})));
}

TEST_P(WampCodec, EncodeAndDecodeRoundTripAControlMessage) {
  const Serializer s = GetParam();
  const Json hello = Json::array({1, "realm1", {{"roles", {{"caller", Json::object()}}}}});
  std::vector<uint8_t> bytes;
  encode(s, hello, bytes);
  Json back;
  ASSERT_TRUE(decode(s, bytes, back));
  EXPECT_EQ(back, hello);
}

TEST_P(WampCodec, TruncatedBytesDoNotDecode) {
  const Serializer s = GetParam();
  std::vector<uint8_t> bytes = assemble(s, call_template(s, "p", pattern(10)), {5});
  bytes.resize(bytes.size() - 3);
  Json m;
  EXPECT_FALSE(decode(s, bytes, m));
}

// The answers the sessions read in place (worker/wamp/session.h's handle_view), as the router
// writes them: their elements agree with the document, and an echoed payload is the bytes
// binary_form() gives exactly when the document's payload is equal. A payload written in
// another form (a longer length header, JSON with spaces) is not those bytes, so the session
// leaves it to the document path, which finds it equal.
TEST_P(WampCodec, AnswersReadInPlaceAgreeWithTheirDocuments) {
  using Kind = ViewElement::Kind;
  const Serializer s = GetParam();
  for (size_t n : {size_t{0}, size_t{10}, size_t{256}, size_t{70000}}) {
    SCOPED_TRACE(n);
    const auto payload = pattern(n);
    const std::string json_form = expected_json_binary(payload);
    const Json value = s == Serializer::kJson ? Json(json_form) : Json::binary(payload);
    std::array<ViewElement, 6> view;
    size_t size = 0;
    Json doc;

    std::vector<uint8_t> result;
    encode(s, Json::array({50, 4097, Json::object(), Json::array({value})}), result);
    ASSERT_TRUE(serialization::read_elements(s, result, view, size));
    ASSERT_EQ(size, 4u);
    EXPECT_EQ(view[1].kind, Kind::unsigned_int);
    EXPECT_EQ(view[1].number, 4097u);
    EXPECT_EQ(view[3].kind, Kind::list);
    const std::vector<uint8_t> args(view[3].bytes.begin(), view[3].bytes.end());
    EXPECT_EQ(args, binary_form(s, payload, /*as_list=*/true));
    ASSERT_TRUE(decode(s, result, doc));
    EXPECT_TRUE(binary_equals(doc[3][0], payload, json_form));

    std::vector<uint8_t> event;
    encode(s,
           Json::array({36, 5, 6, Json::object(), Json::array({uint64_t{1} << 62, 7, 8, 9, value}),
                        Json{{"k", "v"}}}),
           event);
    ASSERT_TRUE(serialization::read_elements(s, event, view, size));
    ASSERT_EQ(size, 6u);
    EXPECT_EQ(view[5].kind, Kind::dict);
    std::array<ViewElement, 6> inner;
    size_t inner_size = 0;
    ASSERT_TRUE(serialization::read_elements(s, view[4].bytes, inner, inner_size));
    ASSERT_EQ(inner_size, 5u);
    EXPECT_EQ(inner[0].number, uint64_t{1} << 62);
    EXPECT_EQ(inner[3].kind, Kind::unsigned_int);
    EXPECT_EQ(inner[3].number, 9u);
    const std::vector<uint8_t> element(inner[4].bytes.begin(), inner[4].bytes.end());
    EXPECT_EQ(element, binary_form(s, payload, /*as_list=*/false));

    // One byte of the payload changed: other bytes, and another value.
    if (n > 0) {
      auto other = payload;
      other[n / 2] ^= 1;
      const Json changed =
          s == Serializer::kJson ? Json(expected_json_binary(other)) : Json::binary(other);
      encode(s, Json::array({50, 4097, Json::object(), Json::array({changed})}), result);
      ASSERT_TRUE(serialization::read_elements(s, result, view, size));
      EXPECT_NE(std::vector<uint8_t>(view[3].bytes.begin(), view[3].bytes.end()),
                binary_form(s, payload, true));
      ASSERT_TRUE(decode(s, result, doc));
      EXPECT_FALSE(binary_equals(doc[3][0], payload, json_form));
    }
  }

  // The same 10-byte payload in another form: MessagePack bin16, CBOR's one-byte length
  // header, JSON with spaces inside the list.
  const auto payload = pattern(10);
  const std::string json_form = expected_json_binary(payload);
  std::vector<uint8_t> result;
  if (s == Serializer::kMsgpack) {
    result = {0x94, 0x32, 0xcd, 0x10, 0x01, 0x80, 0x91, 0xc5, 0x00, 0x0a};
  } else if (s == Serializer::kCbor) {
    result = {0x84, 0x18, 0x32, 0x19, 0x10, 0x01, 0xa0, 0x81, 0x58, 0x0a};
  } else {
    const std::string text = "[50, 4097, {}, [ \"\\u0000" + json_form.substr(1) + "\" ]]";
    result.assign(text.begin(), text.end());
  }
  if (s != Serializer::kJson) result.insert(result.end(), payload.begin(), payload.end());
  std::array<ViewElement, 6> view;
  size_t size = 0;
  ASSERT_TRUE(serialization::read_elements(s, result, view, size));
  ASSERT_EQ(size, 4u);
  EXPECT_EQ(view[1].number, 4097u);
  EXPECT_NE(std::vector<uint8_t>(view[3].bytes.begin(), view[3].bytes.end()),
            binary_form(s, payload, true));
  Json doc;
  ASSERT_TRUE(decode(s, result, doc));
  EXPECT_TRUE(binary_equals(doc[3][0], payload, json_form));
}

INSTANTIATE_TEST_SUITE_P(AllSerializers, WampCodec,
                         ::testing::Values(Serializer::kJson, Serializer::kMsgpack,
                                           Serializer::kCbor),
                         [](const auto& p) { return std::string(serializer_name(p.param)); });

TEST(WampJson, BinaryIsANulFollowedByBase64) {
  const std::vector<uint8_t> bytes = {'f', 'o', 'o', 'b', 'a'};
  EXPECT_EQ(expected_json_binary(bytes), std::string("\0Zm9vYmE=", 9));
  std::string out;
  serialization::append_base64(std::vector<uint8_t>{'f', 'o', 'o', 'b'}, out);
  EXPECT_EQ(out, "Zm9vYg==");
  const MessageTemplate t = call_template(Serializer::kJson, "a\"b", bytes);
  const std::string text(t.tail.begin(), t.tail.end());
  EXPECT_EQ(text, "\"\\u0000Zm9vYmE=\"]]");
}

TEST(WampRawSocket, HandshakeAsksForTheLargestLengthAndTheSerializer) {
  EXPECT_EQ(client_handshake(Serializer::kJson), (std::array<uint8_t, 4>{0x7F, 0xF1, 0, 0}));
  EXPECT_EQ(client_handshake(Serializer::kMsgpack), (std::array<uint8_t, 4>{0x7F, 0xF2, 0, 0}));
  EXPECT_EQ(client_handshake(Serializer::kCbor), (std::array<uint8_t, 4>{0x7F, 0xF3, 0, 0}));
}

TEST(WampRawSocket, ReplyGivesTheRoutersLimitOrSaysWhyItRefused) {
  const HandshakeReply ok = parse_handshake_reply({0x7F, 0xF3, 0, 0}, Serializer::kCbor);
  EXPECT_TRUE(ok.ok);
  EXPECT_EQ(ok.router_max_length, kRawSocketMaxLength);
  const HandshakeReply small = parse_handshake_reply({0x7F, 0x03, 0, 0}, Serializer::kCbor);
  EXPECT_TRUE(small.ok);
  EXPECT_EQ(small.router_max_length, 512u);
  const HandshakeReply refused = parse_handshake_reply({0x7F, 0x10, 0, 0}, Serializer::kCbor);
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.error.find("serializer unsupported"), std::string::npos) << refused.error;
  EXPECT_FALSE(parse_handshake_reply({0x7F, 0xF2, 0, 0}, Serializer::kCbor).ok);
  EXPECT_FALSE(parse_handshake_reply({0x00, 0xF3, 0, 0}, Serializer::kCbor).ok);
}

TEST(WampRawSocket, FrameHeadersCarryTypeAnd24BitLength) {
  const auto h = frame_header(FrameType::kMessage, 0x123456);
  EXPECT_EQ(h, (std::array<uint8_t, 4>{0, 0x12, 0x34, 0x56}));
  const FrameHeader parsed = parse_frame_header(h.data());
  EXPECT_TRUE(parsed.valid);
  EXPECT_EQ(parsed.type, FrameType::kMessage);
  EXPECT_EQ(parsed.length, 0x123456u);
  const auto ping = frame_header(FrameType::kPing, 3);
  EXPECT_EQ(parse_frame_header(ping.data()).type, FrameType::kPing);
  const uint8_t reserved[4] = {0x08, 0, 0, 1};
  EXPECT_FALSE(parse_frame_header(reserved).valid);
  const uint8_t unknown_type[4] = {0x03, 0, 0, 1};
  EXPECT_FALSE(parse_frame_header(unknown_type).valid);
}

}  // namespace
}  // namespace benchgate::worker::wamp
