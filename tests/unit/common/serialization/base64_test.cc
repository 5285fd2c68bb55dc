// Base64 (common/serialization/base64.h): the standard alphabet and padding both ways, the
// appending form the worker and the JSON report use, and text that is not base64; every
// length and every byte value against a bit-by-bit reference, so that the vector loop (AVX2
// CPUs, 24 bytes / 32 characters per step) and the scalar loop agree wherever they split.
#include "common/serialization/base64.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace benchgate::serialization {
namespace {

std::vector<uint8_t> bytes_of(std::string_view text) { return {text.begin(), text.end()}; }
std::string text_of(const std::vector<uint8_t>& bytes) { return {bytes.begin(), bytes.end()}; }

std::string appended(std::vector<uint8_t> bytes) {
  std::string out;
  append_base64(bytes, out);
  return out;
}

TEST(Base64, EncodesAndDecodesEveryPaddingLength) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foob", "Zm9vYg=="}};
  for (const auto& [plain, encoded] : cases) {
    std::string out(base64_size(plain.size()), '?');
    base64_encode(bytes_of(plain), out.data());
    EXPECT_EQ(out, encoded);
    std::vector<uint8_t> decoded;
    ASSERT_TRUE(base64_decode(encoded, decoded)) << encoded;
    EXPECT_EQ(text_of(decoded), plain);
  }
}

TEST(Base64, RejectsTextThatIsNotBase64) {
  std::vector<uint8_t> out;
  EXPECT_FALSE(base64_decode("Zm9", out));       // length
  EXPECT_FALSE(base64_decode("Zm9!", out));      // alphabet
  EXPECT_FALSE(base64_decode("Z===", out));      // padding too early
  EXPECT_FALSE(base64_decode("Zg==Zm9v", out));  // data after padding
}

TEST(Base64, MatchesTheStandardAlphabetAndPadding) {
  EXPECT_EQ(appended({}), "");
  EXPECT_EQ(appended({'f'}), "Zg==");
  EXPECT_EQ(appended({'f', 'o'}), "Zm8=");
  EXPECT_EQ(appended({'f', 'o', 'o'}), "Zm9v");
  EXPECT_EQ(appended({'f', 'o', 'o', 'b', 'a', 'r'}), "Zm9vYmFy");
}

TEST(Base64, AppendsAfterWhatIsThere) {
  std::string out("\0", 1);
  append_base64(bytes_of("foob"), out);
  EXPECT_EQ(out, std::string("\0Zm9vYg==", 9));
}

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// RFC 4648 taken literally: the bits in order, six at a time, then '=' to a multiple of 4.
std::string reference_encode(const std::vector<uint8_t>& bytes) {
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (uint8_t byte : bytes) {
    for (int b = 7; b >= 0; --b) {
      bits = (bits << 1) | ((byte >> b) & 1);
      if (++count == 6) {
        out += kAlphabet[bits];
        bits = 0;
        count = 0;
      }
    }
  }
  if (count > 0) out += kAlphabet[bits << (6 - count)];
  while (out.size() % 4 != 0) out += '=';
  return out;
}

// Deterministic bytes that are not a repeating pattern.
std::vector<uint8_t> noise(size_t size, uint32_t seed) {
  std::vector<uint8_t> out(size);
  uint32_t x = seed * 2654435761u + 1;
  for (auto& byte : out) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    byte = static_cast<uint8_t>(x >> 11);
  }
  return out;
}

TEST(Base64, EveryLengthMatchesTheReferenceBothWays) {
  std::vector<size_t> sizes;
  for (size_t n = 0; n <= 300; ++n) sizes.push_back(n);
  for (size_t n : {1000, 4095, 65535, 65536, 65537, 1 << 20}) sizes.push_back(n);
  for (size_t n : sizes) {
    const auto bytes = noise(n, static_cast<uint32_t>(n));
    const std::string expected = reference_encode(bytes);
    std::string out(base64_size(n) + 8, '?');  // the bytes past the end must stay untouched
    base64_encode(bytes, out.data());
    ASSERT_EQ(out.substr(0, expected.size()), expected) << "size " << n;
    ASSERT_EQ(out.substr(expected.size()), std::string(8, '?')) << "size " << n;
    std::vector<uint8_t> appended_bytes{'x'};  // the byte-buffer form appends after what is there
    append_base64(bytes, appended_bytes);
    ASSERT_EQ(std::string(appended_bytes.begin() + 1, appended_bytes.end()), expected) << n;
    std::vector<uint8_t> decoded{1, 2, 3};
    ASSERT_TRUE(base64_decode(expected, decoded)) << "size " << n;
    ASSERT_EQ(decoded, bytes) << "size " << n;
    EXPECT_EQ(base64_decoded_size(expected), n);
  }
}

TEST(Base64, EveryByteValueAtEveryPlaceOfAStepIsJudgedAsTheAlphabetSays) {
  // 128 characters: the first 80 go through the vector loop where there is one.
  const std::string valid = reference_encode(noise(96, 7));
  ASSERT_EQ(valid.size(), 128u);
  for (int c = 0; c < 256; ++c) {
    const bool in_alphabet = kAlphabet.find(static_cast<char>(c)) != std::string_view::npos;
    for (size_t at : {0, 5, 15, 16, 31, 32, 47, 63, 79, 80, 100, 124}) {
      std::string text = valid;
      text[at] = static_cast<char>(c);
      std::vector<uint8_t> out;
      ASSERT_EQ(base64_decode(text, out), in_alphabet) << "byte " << c << " at " << at;
      if (in_alphabet) {
        // Decoded like the reference: encoding the result gives the text back.
        EXPECT_EQ(reference_encode(out), text) << "byte " << c << " at " << at;
      } else {
        EXPECT_TRUE(out.empty());
      }
    }
  }
}

TEST(Base64, PaddingIsAllowedOnlyAtTheEnd) {
  const std::string long_text = reference_encode(noise(150, 3));  // 200 characters
  for (size_t at = 0; at < long_text.size(); ++at) {
    std::string text = long_text;
    text[at] = '=';
    std::vector<uint8_t> out;
    // One '=' as the very last character is padding (the text then holds 149 bytes).
    EXPECT_EQ(base64_decode(text, out), at == long_text.size() - 1) << "at " << at;
  }
  std::vector<uint8_t> out;
  EXPECT_FALSE(base64_decode(long_text.substr(0, 196) + "A=A=", out));
  EXPECT_FALSE(base64_decode(long_text.substr(0, 196) + "===A", out));
  EXPECT_FALSE(base64_decode(long_text.substr(0, 196) + "====", out));
  EXPECT_TRUE(base64_decode(long_text.substr(0, 196) + "AA==", out));
  EXPECT_EQ(out.size(), 148u);
  EXPECT_FALSE(base64_decode(long_text.substr(0, 197), out));  // length
  EXPECT_EQ(base64_decoded_size(long_text.substr(0, 197)), SIZE_MAX);
}

TEST(Base64, PaddingAtTheEndOfAnInnerChunkIsRefused) {
  // Long text is decoded into a vector chunk by chunk: '=' ending a chunk that is not the
  // last is misplaced padding, not the end. Chunks hold 2,048 characters.
  const std::string long_text = reference_encode(noise(4500, 5));  // 6,000 characters
  for (size_t at : {2046, 2047, 4094, 4095, 5998, 5999}) {
    std::string text = long_text;
    text[at] = '=';
    std::vector<uint8_t> out;
    EXPECT_EQ(base64_decode(text, out), at == 5999) << "at " << at;
    std::vector<uint8_t> direct(base64_decoded_size(text));
    EXPECT_EQ(base64_decode(text, direct.data()), at == 5999) << "at " << at;
  }
}

}  // namespace
}  // namespace benchgate::serialization
