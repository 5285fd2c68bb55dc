// The pages' links and query parameters are coded as CivetWeb coded them when it served the
// pages (CivetServer::urlEncode, getParam), so every link and filter reads as before.
#include "common/http_listener/url_coding.h"

#include <gtest/gtest.h>

namespace benchgate::http_listener {
namespace {

TEST(UrlCoding, EncodingKeepsLettersDigitsAndAFewMarks) {
  EXPECT_EQ(url_encode("Az09$(),-.;_~"), "Az09$(),-.;_~");
  EXPECT_EQ(url_encode("a b&c=d/e?f#g+h%"), "a%20b%26c%3dd%2fe%3ff%23g%2bh%25");
  EXPECT_EQ(url_encode("\xc3\xa9"), "%c3%a9");
  EXPECT_EQ(url_encode(std::string("a\0b", 3)), "a%00b");
}

TEST(UrlCoding, DecodingTurnsPercentHexIntoBytesAndLeavesTheRest) {
  EXPECT_EQ(url_decode("/runs/%31", false), "/runs/1");
  EXPECT_EQ(url_decode("a+b%2B%2b", false), "a+b++");
  EXPECT_EQ(url_decode("a+b", true), "a b");
  EXPECT_EQ(url_decode("%zz%4%", true), "%zz%4%");
  EXPECT_EQ(url_decode(url_encode("x y/&=\xff"), true), "x y/&=\xff");
}

TEST(UrlCoding, AQueryParameterIsTheFirstOfItsNameInEitherCase) {
  const std::string query = "scenario=a+b%26c&Status=failed&status=ok&empty=&flag&before=2";
  EXPECT_EQ(query_param(query, "scenario"), "a b&c");
  EXPECT_EQ(query_param(query, "status"), "failed");
  EXPECT_EQ(query_param(query, "empty"), "");
  EXPECT_EQ(query_param(query, "flag"), "");  // no '=': no value
  EXPECT_EQ(query_param(query, "before"), "2");
  EXPECT_EQ(query_param(query, "missing"), "");
  EXPECT_EQ(query_param("", "a"), "");
  EXPECT_EQ(query_param("ab=1&b=2", "b"), "2");
}

}  // namespace
}  // namespace benchgate::http_listener
