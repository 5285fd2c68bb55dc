// The JSON decoder (common/serialization/json_decoder.h): the same value and number types as
// nlohmann's parser for valid text, refusal of what it refuses, and WAMP's binary strings
// ("\u0000" + base64) decoded into binary values or kept as strings.
#include "common/serialization/json_decoder.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/serialization/base64.h"

namespace benchgate::serialization {
namespace {

using Json = nlohmann::json;
using Bytes = std::vector<uint8_t>;

std::span<const uint8_t> span_of(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

bool ours(std::string_view text, Json& out, NulStrings nul = NulStrings::kKeep,
          int depth = kMaxNestingDepth) {
  return decode_json(span_of(text), out, nul, depth);
}

Json theirs(std::string_view text) {
  return Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

// Same value and, recursively, the same JSON type (unsigned vs signed vs float numbers).
void expect_same_value(const Json& a, const Json& b, const std::string& where) {
  ASSERT_EQ(a.type(), b.type()) << where << ": " << a.dump() << " vs " << b.dump();
  if (a.is_array()) {
    ASSERT_EQ(a.size(), b.size()) << where;
    for (size_t i = 0; i < a.size(); ++i)
      expect_same_value(a[i], b[i], where + "[" + std::to_string(i) + "]");
  } else if (a.is_object()) {
    ASSERT_EQ(a.size(), b.size()) << where;
    for (const auto& [key, value] : b.items()) {
      ASSERT_TRUE(a.contains(key)) << where << "." << key;
      expect_same_value(a.at(key), value, where + "." + key);
    }
  } else {
    ASSERT_EQ(a, b) << where;
  }
}

void expect_as_nlohmann(std::string_view text) {
  const Json expected = theirs(text);
  ASSERT_FALSE(expected.is_discarded()) << text;
  Json out;
  ASSERT_TRUE(ours(text, out)) << text;
  expect_same_value(out, expected, std::string(text));
}

void expect_json_refused(std::string_view text) {
  EXPECT_TRUE(theirs(text).is_discarded()) << "nlohmann accepts " << text;
  for (auto nul : {NulStrings::kKeep, NulStrings::kBinary}) {
    Json out = 5;
    EXPECT_FALSE(ours(text, out, nul)) << text;
    EXPECT_TRUE(out.is_null()) << text;
  }
}

std::string base64_of(const Bytes& bytes) {
  std::string out;
  append_base64(bytes, out);
  return out;
}

Bytes byte_pattern(size_t size) {
  Bytes out(size);
  for (size_t i = 0; i < size; ++i) out[i] = static_cast<uint8_t>(i * 7 + (i >> 8));
  return out;
}

TEST(JsonDecoder, ValidTextDecodesAsNlohmannDecodesIt) {
  for (const char* text : {"null",
                           "true",
                           "false",
                           "0",
                           "-0",
                           "7",
                           "-7",
                           "1.5",
                           "-1.5e-3",
                           "1E2",
                           "1e+2",
                           "0.1e1",
                           "18446744073709551615",
                           "18446744073709551616",
                           "-9223372036854775808",
                           "-9223372036854775809",
                           "123456789012345678901234567890",
                           "1e-400",
                           "-1e-400",
                           "2.2250738585072011e-308",
                           "1.7976931348623157e308",
                           "4.9e-324",
                           R"("")",
                           R"("plain")",
                           R"("\"\\\/\b\f\n\r\t")",
                           R"("\u0041\u00e9\u20AC\ud83d\ude00")",
                           "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\x7f\"",
                           R"("a\u0000b")",
                           "[]",
                           "{}",
                           " [ 1 , [ ] , { } , \"x\" ] ",
                           "\t\r\n{\"a\" : 1, \"b\":[true,false,null]}\n",
                           R"({"a":1,"a":2})",
                           R"({"\u0000k":"\u0000QUJD"})",
                           "\xef\xbb\xbf[1]",
                           R"([48,1,{},"bench.echo",["\u0000aGVsbG8="],{"k":2.5}])"}) {
    expect_as_nlohmann(text);
  }
}

TEST(JsonDecoder, InvalidTextIsRefusedAsNlohmannRefusesIt) {
  for (const char* text : {"",
                           " ",
                           "[",
                           "]",
                           "[1,]",
                           "[,1]",
                           "[1 2]",
                           "{\"a\"}",
                           "{\"a\":}",
                           "{\"a\":1,}",
                           "{1:2}",
                           "{\"a\" 1}",
                           "01",
                           "-01",
                           "1.",
                           ".5",
                           "-",
                           "+1",
                           "1e",
                           "1e+",
                           "0x10",
                           "NaN",
                           "Infinity",
                           "-Infinity",
                           "1e400",
                           "-1e400",
                           "tru",
                           "nul",
                           "truex",
                           "True",
                           "\"abc",
                           "\"\\x\"",
                           "\"\\u12\"",
                           "\"\\uZZZZ\"",
                           "\"\\ud83d\"",
                           "\"\\ud83dx\"",
                           "\"\\ud83d\\u0041\"",
                           "\"\\ude00\"",
                           "\"a\tb\"",
                           "\"a\nb\"",
                           "\"\x01\"",
                           "\"\xc0\x80\"",
                           "\"\xed\xa0\x80\"",
                           "\"\xf4\x90\x80\x80\"",
                           "\"\xe2\x82\"",
                           "\"\x80\"",
                           "\"\xff\"",
                           "[1] [2]",
                           "[1]x",
                           "\xef\xbb[1]",
                           "[1]\xef\xbb\xbf",
                           "\"\\u0000",
                           "[\"\\u0000QUJD"}) {
    expect_json_refused(text);
  }
  // A raw NUL is a control character inside a string.
  expect_json_refused(std::string_view("\"a\0\"", 4));
}

TEST(JsonDecoder, ANulByteAfterTheValueIsRefusedWhereNlohmannStopsReading) {
  // nlohmann's lexer takes a NUL byte for the end of the input (for C strings), so it accepts
  // anything after one; this decoder reads all the bytes it is given: a WAMP message is the
  // whole frame.
  for (std::string_view text : {std::string_view("[1]\0", 4), std::string_view("[1]\0[2]", 7),
                                std::string_view("[1] \0 x", 7)}) {
    EXPECT_FALSE(theirs(text).is_discarded());
    Json out;
    EXPECT_FALSE(ours(text, out));
  }
}

TEST(JsonDecoder, SpecialCharactersAtEveryPlaceOfTheWideScan) {
  // The plain-run scan reads 16 bytes at a time: an escape, a multi-byte character and the
  // closing quote at every offset across two steps.
  for (size_t at = 0; at < 40; ++at) {
    for (std::string special : {"\\\"", "\\n", "\\u00e9", "\xc3\xa9", "\xf0\x9f\x98\x80"}) {
      const std::string text =
          "[\"" + std::string(at, 'a') + special + std::string(40 - at, 'b') + "\"]";
      expect_as_nlohmann(text);
    }
    expect_json_refused("[\"" + std::string(at, 'a') + "\x01" + std::string(40 - at, 'b') + "\"]");
    expect_json_refused("[\"" + std::string(at, 'a') + "\xc3" + std::string(40 - at, 'b') + "\"]");
    expect_as_nlohmann(std::string("\"").append(at, 'x').append("\""));
  }
}

TEST(JsonDecoder, NulStringsBecomeBinaryOfEveryLength) {
  std::vector<size_t> sizes;
  for (size_t n = 0; n <= 200; ++n) sizes.push_back(n);  // every length mod 3 and mod 4
  for (size_t n : {65536, 65537, 1 << 20}) sizes.push_back(n);
  for (size_t n : sizes) {
    const Bytes payload = byte_pattern(n);
    const std::string text = "[48,1,{},\"p\",[\"\\u0000" + base64_of(payload) + "\",\"x\"]]";
    Json out;
    ASSERT_TRUE(ours(text, out, NulStrings::kBinary)) << n;
    ASSERT_TRUE(out[4][0].is_binary()) << n;
    ASSERT_EQ(static_cast<const Bytes&>(out[4][0].get_binary()), payload) << n;
    EXPECT_EQ(out[4][1], "x");
    // Kept: the string itself, NUL and base64, as nlohmann has it.
    Json kept;
    ASSERT_TRUE(ours(text, kept, NulStrings::kKeep)) << n;
    ASSERT_EQ(kept, theirs(text)) << n;
    ASSERT_EQ(kept[4][0].get_ref<const std::string&>(), std::string(1, '\0') + base64_of(payload));
  }
}

TEST(JsonDecoder, NulStringsAnywhereAndEscapedBase64AreBinary) {
  Json out;
  ASSERT_TRUE(ours(R"("\u0000QUJD")", out, NulStrings::kBinary));  // the whole document
  EXPECT_EQ(out, Json::binary({'A', 'B', 'C'}));
  ASSERT_TRUE(ours(R"({"a":{"b":["\u0000"]}})", out, NulStrings::kBinary));
  EXPECT_EQ(out["a"]["b"][0], Json::binary({}));
  // A JSON writer may escape '/' (PHP does) or any character: the string is unescaped first.
  ASSERT_TRUE(ours(R"(["\u0000QUJD\/w==", "\u0000\u0051UJD", "\u0000QUI\u003d"])", out,
                   NulStrings::kBinary));
  EXPECT_EQ(out[0], Json::binary({'A', 'B', 'C', 0xff}));
  EXPECT_EQ(out[1], Json::binary({'A', 'B', 'C'}));
  EXPECT_EQ(out[2], Json::binary({'A', 'B'}));
  // "QUJD==" is not base64 (6 characters), whichever way its '=' are written.
  EXPECT_FALSE(ours(R"(["\u0000QUJD\u003d\u003D"])", out, NulStrings::kBinary));
  EXPECT_FALSE(ours(R"(["\u0000QUJD=="])", out, NulStrings::kBinary));
}

TEST(JsonDecoder, StringsThatDoNotStartWithNulStayStrings) {
  Json out;
  ASSERT_TRUE(ours(R"(["\u0001QUJD", "a\u0000QUJD", "", "QUJD", "\\u0000QUJD", "\u00000"])", out,
                   NulStrings::kKeep));
  ASSERT_TRUE(ours(R"(["\u0001QUJD", "a\u0000QUJD", "", "QUJD", "\\u0000QUJD"])", out,
                   NulStrings::kBinary));
  EXPECT_EQ(out[0], std::string("\x01QUJD"));
  EXPECT_EQ(out[1], std::string("a\0QUJD", 6));
  EXPECT_EQ(out[2], "");
  EXPECT_EQ(out[3], "QUJD");
  EXPECT_EQ(out[4], "\\u0000QUJD");  // an escaped backslash, then text
  // Keys are never binary.
  ASSERT_TRUE(ours(R"({"\u0000QUJD":1})", out, NulStrings::kBinary));
  EXPECT_EQ(out.begin().key(), std::string("\0QUJD", 5));
}

TEST(JsonDecoder, NulStringsThatAreNotBase64AreRefusedAsBinary) {
  const std::string long_base64 = base64_of(byte_pattern(300));  // 400 characters
  const std::vector<std::string> bads = {
      "QUJ",
      "Q",
      "QU!D",
      "Q===",
      "QQ==QUJD",
      "QUJD=",
      "QU JD",
      "QUJD\\n",
      "QUJD\\u0000",
      "\\u00e9QUJ",
      long_base64 + "A",
      long_base64.substr(0, 100) + "*" + long_base64.substr(101),
      long_base64.substr(0, 100) + "=" + long_base64.substr(101),
      long_base64.substr(0, 200) + "\\\"" + long_base64.substr(200)};
  for (const std::string& bad : bads) {
    const std::string text = "[1,\"\\u0000" + bad + "\"]";
    Json out;
    EXPECT_FALSE(ours(text, out, NulStrings::kBinary)) << bad;
    EXPECT_TRUE(out.is_null());
    // As a plain string it is fine (the JSON is valid).
    EXPECT_TRUE(ours(text, out, NulStrings::kKeep)) << bad;
  }
}

TEST(JsonDecoder, NestingIsBoundedAtTheLimit) {
  Json out;
  const std::string at_limit =
      std::string(kMaxNestingDepth, '[') + std::string(kMaxNestingDepth, ']');
  EXPECT_TRUE(ours(at_limit, out));
  const std::string past =
      std::string(kMaxNestingDepth + 1, '[') + std::string(kMaxNestingDepth + 1, ']');
  EXPECT_FALSE(ours(past, out));
  EXPECT_FALSE(ours(std::string(100000, '['), out));  // no recursion past the limit
  std::string objects;
  for (int i = 0; i < kMaxNestingDepth; ++i) objects += "{\"a\":";
  objects += "1" + std::string(kMaxNestingDepth, '}');
  EXPECT_TRUE(ours(objects, out));
  EXPECT_FALSE(ours("[" + objects + "]", out));
  EXPECT_FALSE(ours("[[1]]", out, NulStrings::kKeep, 1));
  EXPECT_TRUE(ours("[1]", out, NulStrings::kKeep, 1));
}

}  // namespace
}  // namespace benchgate::serialization
