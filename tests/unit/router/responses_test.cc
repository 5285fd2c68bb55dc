// Serialisation of responses into a connection's output buffer.
#include "router/http/responses.h"

#include <gtest/gtest.h>

namespace benchgate::router::http {
namespace {

TEST(Responses, HelloIsSerialisedOnceWithExactBody) {
  const std::string_view hello = hello_response();
  EXPECT_EQ(hello,
            "HTTP/1.1 200 OK\r\nServer: benchgate-router\r\nContent-Type: text/plain\r\n"
            "Content-Length: 12\r\n\r\nHello, world");
  EXPECT_EQ(hello.data(), hello_response().data());
}

TEST(Responses, HeadNamesConnectionFateOnlyWhenNotTheDefault) {
  std::string out;
  append_head(out, 200, 0, {}, ConnectionHeader::kClose);
  EXPECT_NE(out.find("Connection: close\r\n"), std::string::npos);
  out.clear();
  append_head(out, 200, 0, {}, ConnectionHeader::kKeepAlive);
  EXPECT_NE(out.find("Connection: keep-alive\r\n"), std::string::npos);
  out.clear();
  append_head(out, 200, 0, {}, ConnectionHeader::kNone);
  EXPECT_EQ(out.find("Connection"), std::string::npos);
}

TEST(Responses, MethodNotAllowedCarriesAllow) {
  std::string out;
  append_error(out, 405, ConnectionHeader::kNone, "POST");
  EXPECT_TRUE(out.starts_with("HTTP/1.1 405 Method Not Allowed\r\n"));
  EXPECT_NE(out.find("Allow: POST\r\n"), std::string::npos);
  EXPECT_TRUE(out.ends_with("\r\n\r\nMethod Not Allowed\n"));
}

TEST(Responses, PatternByteIIsLetterIModulo26AcrossBlocks) {
  std::string out;
  const uint64_t n = pattern_block().size() * 2 + 7;
  append_pattern(out, n);
  ASSERT_EQ(out.size(), n);
  for (size_t i = 0; i < out.size(); ++i) {
    ASSERT_EQ(out[i], static_cast<char>('a' + i % 26)) << i;
  }
  EXPECT_EQ(pattern_block().size() % 26, 0u);
}

}  // namespace
}  // namespace benchgate::router::http
