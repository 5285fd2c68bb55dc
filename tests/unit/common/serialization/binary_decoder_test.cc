// The MessagePack and CBOR decoders: every type and header class nlohmann's encoders write
// decodes to the value nlohmann's own decoders give (same value, same number type), and
// malformed, truncated, trailing, too deep and hostile inputs are refused without throwing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/serialization/binary_decoder.h"

namespace benchgate::serialization {
namespace {

using Json = nlohmann::json;
using Bytes = std::vector<uint8_t>;

enum class Format { msgpack, cbor };
const char* name(Format format) { return format == Format::msgpack ? "msgpack" : "cbor"; }

Bytes encode(Format format, const Json& value) {
  return format == Format::msgpack ? Json::to_msgpack(value) : Json::to_cbor(value);
}
bool decode(Format format, const Bytes& bytes, Json& out, int depth = kMaxNestingDepth) {
  return format == Format::msgpack ? decode_msgpack(bytes, out, depth)
                                   : decode_cbor(bytes, out, depth);
}
Json nlohmann_decode(Format format, const Bytes& bytes) {
  return format == Format::msgpack
             ? Json::from_msgpack(bytes, /*strict=*/true, /*allow_exceptions=*/false)
             : Json::from_cbor(bytes, /*strict=*/true, /*allow_exceptions=*/false);
}

// Same value and, recursively, the same JSON type (unsigned vs signed integers included), and
// the same binary subtype.
void expect_identical(const Json& ours, const Json& theirs, const std::string& where) {
  ASSERT_EQ(ours.type(), theirs.type()) << where << ": " << ours.dump() << " vs " << theirs.dump();
  switch (ours.type()) {
    case Json::value_t::array:
      ASSERT_EQ(ours.size(), theirs.size()) << where;
      for (size_t i = 0; i < ours.size(); ++i) {
        expect_identical(ours[i], theirs[i], where + "[" + std::to_string(i) + "]");
      }
      return;
    case Json::value_t::object:
      ASSERT_EQ(ours.size(), theirs.size()) << where;
      for (const auto& [key, value] : theirs.items()) {
        ASSERT_TRUE(ours.contains(key)) << where << "." << key;
        expect_identical(ours.at(key), value, where + "." + key);
      }
      return;
    case Json::value_t::number_float:
      if (std::isnan(theirs.get<double>())) {
        EXPECT_TRUE(std::isnan(ours.get<double>())) << where;
        return;
      }
      EXPECT_EQ(ours.get<double>(), theirs.get<double>()) << where;
      return;
    case Json::value_t::binary:
      EXPECT_EQ(ours.get_binary(), theirs.get_binary()) << where;
      EXPECT_EQ(ours.get_binary().has_subtype(), theirs.get_binary().has_subtype()) << where;
      if (theirs.get_binary().has_subtype()) {
        EXPECT_EQ(ours.get_binary().subtype(), theirs.get_binary().subtype()) << where;
      }
      return;
    default:
      EXPECT_EQ(ours, theirs) << where;
  }
}

// Encodes with nlohmann, decodes with ours and with nlohmann's, and expects the same result;
// then expects every proper prefix to be refused (the input must be one whole value).
void round_trip(Format format, const Json& value, bool check_prefixes = true) {
  const Bytes bytes = encode(format, value);
  Json ours;
  ASSERT_TRUE(decode(format, bytes, ours)) << name(format) << " " << value.dump().substr(0, 80);
  const Json theirs = nlohmann_decode(format, bytes);
  ASSERT_FALSE(theirs.is_discarded());
  expect_identical(ours, theirs, name(format));
  if (!check_prefixes) return;
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    Json partial = 5;
    const Bytes prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut));
    EXPECT_FALSE(decode(format, prefix, partial)) << name(format) << " prefix of " << cut;
    EXPECT_TRUE(partial.is_null());
  }
}

Bytes pattern(size_t size) {
  Bytes bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>(i * 31 + 7);
  return bytes;
}

class BinaryDecoder : public ::testing::TestWithParam<Format> {};

TEST_P(BinaryDecoder, IntegersOfEveryWidthAndSignMatchNlohmann) {
  const std::vector<uint64_t> unsigned_values = {0,
                                                 1,
                                                 23,
                                                 24,
                                                 0x7f,
                                                 0x80,
                                                 0xff,
                                                 0x100,
                                                 0xffff,
                                                 0x10000,
                                                 0xffffffff,
                                                 0x100000000,
                                                 0x7fffffffffffffff,
                                                 0x8000000000000000,
                                                 std::numeric_limits<uint64_t>::max()};
  for (const uint64_t value : unsigned_values) round_trip(GetParam(), Json(value));
  const std::vector<int64_t> signed_values = {-1,
                                              -24,
                                              -25,
                                              -32,
                                              -33,
                                              -128,
                                              -129,
                                              -256,
                                              -257,
                                              -32768,
                                              -32769,
                                              -65536,
                                              -65537,
                                              std::numeric_limits<int32_t>::min(),
                                              int64_t{std::numeric_limits<int32_t>::min()} - 1,
                                              -4294967296,
                                              -4294967297,
                                              std::numeric_limits<int64_t>::min(),
                                              5,
                                              300,
                                              std::numeric_limits<int64_t>::max()};
  for (const int64_t value : signed_values) round_trip(GetParam(), Json(value));
}

TEST_P(BinaryDecoder, FloatsMatchNlohmann) {
  for (const double value :
       {0.0, -0.0, 1.5, -2.25, 0.1, 1e300, -1e-300, 3.4028234663852886e38, 65504.0,
        std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
        std::numeric_limits<double>::quiet_NaN()}) {
    round_trip(GetParam(), Json(value));
  }
}

TEST_P(BinaryDecoder, NullAndBooleansMatchNlohmann) {
  for (const Json& value : {Json(nullptr), Json(true), Json(false)}) round_trip(GetParam(), value);
}

TEST_P(BinaryDecoder, StringsAndBinariesOfEveryLengthClassMatchNlohmann) {
  // 0-23 / 24-31: inline lengths (CBOR, MessagePack fixstr); 255/256 and 65535/65536: the
  // one-, two- and four-byte length headers.
  for (const size_t length : {0, 1, 23, 24, 31, 32, 255, 256, 65535, 65536, 300000}) {
    const Bytes bytes = pattern(length);
    const bool small = length <= 300;
    round_trip(GetParam(), Json(std::string(bytes.begin(), bytes.end())), small);
    round_trip(GetParam(), Json::binary(bytes), small);
  }
}

TEST_P(BinaryDecoder, ArraysAndMapsOfEveryHeaderClassMatchNlohmann) {
  for (const size_t count : {0, 1, 15, 16, 23, 24, 255, 256, 65535, 65536}) {
    Json array = Json::array();
    Json map = Json::object();
    for (size_t i = 0; i < count; ++i) {
      array.push_back(i % 3 == 0 ? Json(i) : Json(std::to_string(i)));
      map[std::to_string(i)] = i;
    }
    const bool small = count <= 256;
    round_trip(GetParam(), array, small);
    round_trip(GetParam(), map, small);
  }
}

TEST_P(BinaryDecoder, NestedWampMessageMatchesNlohmann) {
  const Json message = Json::array(
      {48, 7, Json{{"receive_progress", true}, {"timeout", 1500}}, "bench.echo",
       Json::array({1, -2, "three", Json::binary(pattern(70000)), 4.5, nullptr}),
       Json{{"k", Json::array({Json::object(), Json::array()})}, {"b", Json::binary(pattern(3))}}});
  round_trip(GetParam(), message);
}

TEST_P(BinaryDecoder, NestingUpToTheLimitDecodesAndOneDeeperIsRefused) {
  for (const bool maps : {false, true}) {
    Json value = 1;
    for (int depth = 1; depth <= kMaxNestingDepth + 1; ++depth) {
      value = maps ? Json{{"k", std::move(value)}} : Json::array({std::move(value)});
      Json out;
      EXPECT_EQ(decode(GetParam(), encode(GetParam(), value), out), depth <= kMaxNestingDepth)
          << name(GetParam()) << " depth " << depth << (maps ? " maps" : " arrays");
    }
  }
  Json out;
  const Bytes three = encode(GetParam(), Json::array({Json::array({Json::array()})}));
  EXPECT_TRUE(decode(GetParam(), three, out, 3));
  EXPECT_FALSE(decode(GetParam(), three, out, 2));
}

TEST_P(BinaryDecoder, TrailingBytesAndEmptyInputAreRefused) {
  Bytes bytes = encode(GetParam(), Json::array({1, 2}));
  bytes.push_back(0x00);
  Json out = 3;
  EXPECT_FALSE(decode(GetParam(), bytes, out));
  EXPECT_TRUE(out.is_null());
  EXPECT_FALSE(decode(GetParam(), Bytes{}, out));
}

INSTANTIATE_TEST_SUITE_P(Formats, BinaryDecoder, ::testing::Values(Format::msgpack, Format::cbor),
                         [](const auto& param_info) {
                           return std::string(name(param_info.param));
                         });

// Hand-written inputs: the decoders agree with nlohmann where nlohmann accepts them.
void expect_same_as_nlohmann(Format format, const Bytes& bytes) {
  Json ours;
  ASSERT_TRUE(decode(format, bytes, ours)) << name(format);
  const Json theirs = nlohmann_decode(format, bytes);
  ASSERT_FALSE(theirs.is_discarded());
  expect_identical(ours, theirs, name(format));
}

void expect_binary_refused(Format format, const Bytes& bytes, const char* what) {
  Json out = 1;
  EXPECT_FALSE(decode(format, bytes, out)) << name(format) << ": " << what;
  EXPECT_TRUE(out.is_null()) << what;
}

TEST(MsgpackDecoder, ExtensionTypesBecomeBinaryWithSubtypeLikeNlohmann) {
  // fixext 1/2/4/8/16, ext 8/16/32 as nlohmann writes them for a binary with a subtype.
  for (const size_t length : {1, 2, 3, 4, 8, 16, 255, 256, 65536}) {
    round_trip(Format::msgpack, Json::binary(pattern(length), 42), length <= 256);
  }
  expect_same_as_nlohmann(Format::msgpack, {0xd4, 0xff, 0x01});  // type -1
}

TEST(MsgpackDecoder, SignedFamilyKeepsPositiveValuesSigned) {
  // int 8/16/32/64 holding positive values: nlohmann makes them number_integer.
  expect_same_as_nlohmann(Format::msgpack, {0xd0, 0x05});
  expect_same_as_nlohmann(Format::msgpack, {0xd1, 0x7f, 0xff});
  expect_same_as_nlohmann(Format::msgpack, {0xd2, 0x80, 0x00, 0x00, 0x00});
  expect_same_as_nlohmann(Format::msgpack, {0xd3, 0x00, 0, 0, 0, 0, 0, 0, 0x01});
  expect_same_as_nlohmann(Format::msgpack, {0xca, 0x3f, 0xc0, 0x00, 0x00});  // float32 1.5
}

TEST(MsgpackDecoder, MalformedInputIsRefused) {
  expect_binary_refused(Format::msgpack, {0xc1}, "0xc1 is never used");
  expect_binary_refused(Format::msgpack, {0x81, 0x01, 0x02}, "integer map key");
  expect_binary_refused(Format::msgpack, {0x81, 0xc4, 0x01, 0x61, 0x02}, "binary map key");
  expect_binary_refused(Format::msgpack, {0x92, 0x01}, "array shorter than announced");
  expect_binary_refused(Format::msgpack, {0xa3, 0x61, 0x62}, "string shorter than announced");
  expect_binary_refused(Format::msgpack, {0xc7, 0x02, 0x01, 0x00}, "ext shorter than announced");
}

TEST(MsgpackDecoder, HugeAnnouncedCountsAreRefusedWithoutReserving) {
  expect_binary_refused(Format::msgpack, {0xdd, 0xff, 0xff, 0xff, 0xff, 0x01}, "array 32");
  expect_binary_refused(Format::msgpack, {0xdf, 0xff, 0xff, 0xff, 0xff, 0xa0, 0x01}, "map 32");
  expect_binary_refused(Format::msgpack, {0xdb, 0xff, 0xff, 0xff, 0xff, 0x61}, "str 32");
  expect_binary_refused(Format::msgpack, {0xc6, 0xff, 0xff, 0xff, 0xff, 0x61}, "bin 32");
  expect_binary_refused(Format::msgpack, {0xc9, 0xff, 0xff, 0xff, 0xff, 0x01, 0x61}, "ext 32");
  // A map of 2 entries needs at least 4 bytes: 3 bytes left is a lie.
  expect_binary_refused(Format::msgpack, {0x82, 0xa0, 0xc0, 0xa0}, "map count over half the bytes");
  // Exactly as many elements as bytes left is fine.
  expect_same_as_nlohmann(Format::msgpack, {0x93, 0x01, 0x02, 0x03});
}

TEST(CborDecoder, IndefiniteLengthsMatchNlohmann) {
  expect_same_as_nlohmann(Format::cbor, {0x9f, 0x01, 0x9f, 0xff, 0x82, 0x02, 0x03, 0xff});
  expect_same_as_nlohmann(Format::cbor, {0xbf, 0x61, 0x61, 0x01, 0x61, 0x62, 0x9f, 0xff, 0xff});
  expect_same_as_nlohmann(Format::cbor, {0x7f, 0x62, 0x61, 0x62, 0x60, 0x61, 0x63, 0xff});
  expect_same_as_nlohmann(Format::cbor, {0x5f, 0x42, 0x01, 0x02, 0x41, 0x03, 0xff});
  expect_same_as_nlohmann(Format::cbor, {0xa1, 0x7f, 0x61, 0x6b, 0xff, 0x01});  // chunked key
}

TEST(CborDecoder, HalfFloatsDecode) {
  expect_same_as_nlohmann(Format::cbor, {0xf9, 0x3c, 0x00});  // 1.0
  expect_same_as_nlohmann(Format::cbor, {0xf9, 0xc4, 0x00});  // -4.0
  expect_same_as_nlohmann(Format::cbor, {0xf9, 0x7b, 0xff});  // 65504
  expect_same_as_nlohmann(Format::cbor, {0xf9, 0x00, 0x01});  // smallest subnormal
  expect_same_as_nlohmann(Format::cbor, {0xf9, 0x7c, 0x00});  // infinity
  expect_same_as_nlohmann(Format::cbor, {0xf9, 0x7e, 0x00});  // NaN
  Json out;
  ASSERT_TRUE(decode_cbor(Bytes{0xf9, 0x35, 0x55}, out));
  EXPECT_DOUBLE_EQ(out.get<double>(), 0.333251953125);
}

TEST(CborDecoder, MalformedInputIsRefused) {
  expect_binary_refused(Format::cbor, {0xc1, 0x01}, "tag");
  expect_binary_refused(Format::cbor, {0xf7}, "undefined");
  expect_binary_refused(Format::cbor, {0xf0}, "simple value");
  expect_binary_refused(Format::cbor, {0xf8, 0x20}, "one-byte simple value");
  expect_binary_refused(Format::cbor, {0xff}, "break outside an indefinite item");
  expect_binary_refused(Format::cbor, {0x1c}, "reserved additional information");
  expect_binary_refused(Format::cbor, {0x1f}, "indefinite integer");
  expect_binary_refused(Format::cbor, {0xa1, 0x01, 0x02}, "integer map key");
  expect_binary_refused(Format::cbor, {0x7f, 0x41, 0x61, 0xff}, "byte chunk in a text string");
  expect_binary_refused(Format::cbor, {0x5f, 0x5f, 0xff, 0xff}, "indefinite chunk");
  expect_binary_refused(Format::cbor, {0x9f, 0x01}, "indefinite array without break");
  expect_binary_refused(Format::cbor, {0x3b, 0x80, 0, 0, 0, 0, 0, 0, 0},
                        "negative below INT64_MIN");
}

TEST(CborDecoder, HugeAnnouncedCountsAreRefusedWithoutReserving) {
  const Bytes huge = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  for (const uint8_t head : {0x9b, 0xbb, 0x5b, 0x7b}) {
    Bytes bytes = {head};
    bytes.insert(bytes.end(), huge.begin(), huge.end());
    bytes.push_back(0x01);
    expect_binary_refused(Format::cbor, bytes, "8-byte count");
  }
  expect_binary_refused(Format::cbor, {0x9a, 0x7f, 0xff, 0xff, 0xff, 0x01}, "4-byte array count");
  expect_binary_refused(Format::cbor, {0xa2, 0x60, 0xf6, 0x60}, "map count over half the bytes");
  expect_same_as_nlohmann(Format::cbor, {0x83, 0x01, 0x02, 0x03});
}

}  // namespace
}  // namespace benchgate::serialization
