// Base64 (common/serialization/base64.h): the standard alphabet and padding both ways, the
// appending form the worker and the JSON report use, and text that is not base64.
#include "common/serialization/base64.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace benchgate::serialization
