// The connection's HTTP/1.1 response parser: incremental feeding, pipelining, framing errors.
#include "worker/http/response_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace benchgate::worker::http {
namespace {

using Result = ResponseParser::Result;

struct Parsed {
  int status;
  uint64_t length;
  bool keep_alive;
  bool body_matches;
};

// Feeds `input` in pieces of `step` bytes and collects every complete response; stops at the
// first error and reports it in `error`.
std::vector<Parsed> feed_all(ResponseParser& parser, const std::string& input, size_t step,
                             std::string* error = nullptr) {
  std::vector<Parsed> out;
  size_t pos = 0;
  while (pos < input.size()) {
    const size_t n = std::min(step, input.size() - pos);
    size_t offset = 0;
    while (offset < n) {
      size_t used = 0;
      const Result r = parser.feed(input.data() + pos + offset, n - offset, used);
      offset += used;
      if (r == Result::kNeedMore) break;
      if (r == Result::kError) {
        if (error) *error = parser.error();
        return out;
      }
      out.push_back(
          {parser.status(), parser.content_length(), parser.keep_alive(), parser.body_matches()});
      parser.reset();
    }
    pos += n;
  }
  return out;
}

const std::string kHello = "HTTP/1.1 200 OK\r\nContent-Length: 12\r\nServer: x\r\n\r\nhello world!";

TEST(ResponseParser, ParsesOneResponseFedAtOnce) {
  ResponseParser parser;
  const auto got = feed_all(parser, kHello, kHello.size());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].status, 200);
  EXPECT_EQ(got[0].length, 12u);
  EXPECT_TRUE(got[0].keep_alive);
}

TEST(ResponseParser, ParsesTheSameResponseFedOneByteAtATime) {
  ResponseParser parser;
  const auto got = feed_all(parser, kHello, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].status, 200);
  EXPECT_EQ(got[0].length, 12u);
}

TEST(ResponseParser, SplitsPipelinedResponsesAtEveryChunkSize) {
  const std::string second = "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n";
  const std::string third = "HTTP/1.1 204 No Content\r\n\r\n";
  const std::string input = kHello + second + third + kHello;
  for (size_t step = 1; step <= input.size(); ++step) {
    ResponseParser parser;
    const auto got = feed_all(parser, input, step);
    ASSERT_EQ(got.size(), 4u) << "step " << step;
    EXPECT_EQ(got[0].status, 200);
    EXPECT_EQ(got[1].status, 404);
    EXPECT_EQ(got[1].length, 0u);
    EXPECT_EQ(got[2].status, 204);
    EXPECT_EQ(got[3].length, 12u);
  }
}

// The answer to HEAD has no body, whatever its Content-Length says (RFC 9112, section 6.3):
// the next pipelined answer starts right after its header section.
TEST(ResponseParser, AnswersToHeadHaveNoBodyWhateverTheirContentLength) {
  const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n";
  const std::string bare = "HTTP/1.1 200 OK\r\nServer: x\r\n\r\n";  // no length: none needed
  const std::string input = head + bare + head;
  for (size_t step = 1; step <= input.size(); ++step) {
    ResponseParser parser;
    parser.expect_no_bodies();
    std::string error;
    const auto got = feed_all(parser, input, step, &error);
    ASSERT_EQ(got.size(), 3u) << "step " << step << ": " << error;
    for (const Parsed& p : got) {
      EXPECT_EQ(p.status, 200);
      EXPECT_EQ(p.length, 0u);
      EXPECT_TRUE(p.keep_alive);
    }
  }
}

TEST(ResponseParser, ReportsTheBytesOfTheNextResponseAsUnconsumed) {
  ResponseParser parser;
  const std::string input = kHello + "HTTP/1.1";
  size_t used = 0;
  EXPECT_EQ(parser.feed(input.data(), input.size(), used), Result::kComplete);
  EXPECT_EQ(used, kHello.size());
}

TEST(ResponseParser, NeedsMoreForAShortRead) {
  ResponseParser parser;
  const std::string partial = kHello.substr(0, kHello.size() - 3);
  size_t used = 0;
  EXPECT_EQ(parser.feed(partial.data(), partial.size(), used), Result::kNeedMore);
  EXPECT_EQ(used, partial.size());
  EXPECT_TRUE(parser.in_progress());
  EXPECT_EQ(parser.feed("d!", 2, used), Result::kNeedMore);
  EXPECT_EQ(parser.feed("!", 1, used), Result::kComplete);
}

TEST(ResponseParser, IsNotInProgressBeforeTheFirstByte) {
  ResponseParser parser;
  EXPECT_FALSE(parser.in_progress());
}

TEST(ResponseParser, RejectsGarbageAsAProtocolError) {
  for (const std::string garbage : {"garbage\r\n\r\n", "HTTP/2 200\r\n\r\n", "HTTP/1.1 2x0 OK\r\n",
                                    "HTTP/1.1 200OK\r\n", "\r\n"}) {
    ResponseParser parser;
    std::string error;
    EXPECT_TRUE(feed_all(parser, garbage, 1, &error).empty());
    EXPECT_EQ(error, "malformed status line") << garbage;
  }
}

TEST(ResponseParser, RejectsEndlessBytesWithoutALineBreak) {
  ResponseParser parser;
  std::string error;
  feed_all(parser, std::string(ResponseParser::kMaxHeaderBytes + 10, 'x'), 4096, &error);
  EXPECT_EQ(error, "response header section too large (or not HTTP)");
}

TEST(ResponseParser, RejectsChunkedResponsesCleanly) {
  ResponseParser parser;
  std::string error;
  const std::string chunked =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
  EXPECT_TRUE(feed_all(parser, chunked, 7, &error).empty());
  EXPECT_EQ(error, "Transfer-Encoding (chunked) responses are not supported");
}

TEST(ResponseParser, RejectsAResponseWithoutContentLength) {
  ResponseParser parser;
  std::string error;
  EXPECT_TRUE(feed_all(parser, "HTTP/1.1 200 OK\r\nServer: x\r\n\r\nbody", 64, &error).empty());
  EXPECT_EQ(error, "response without Content-Length (framing by close is not supported)");
}

TEST(ResponseParser, RejectsMalformedAndConflictingContentLength) {
  for (const std::string bad :
       {"HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"}) {
    ResponseParser parser;
    std::string error;
    EXPECT_TRUE(feed_all(parser, bad, 3, &error).empty()) << bad;
    EXPECT_NE(error, "") << bad;
  }
}

TEST(ResponseParser, RejectsInterimResponses) {
  ResponseParser parser;
  std::string error;
  EXPECT_TRUE(feed_all(parser, "HTTP/1.1 100 Continue\r\n\r\n", 64, &error).empty());
  EXPECT_EQ(error, "unexpected 1xx response");
}

TEST(ResponseParser, ReadsConnectionCloseAndHttp10KeepAlive) {
  struct Case {
    std::string response;
    bool keep_alive;
  };
  for (const Case& c : {
           Case{"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", false},
           Case{"HTTP/1.1 200 OK\r\nConnection: Upgrade, CLOSE\r\nContent-Length: 0\r\n\r\n",
                false},
           Case{"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", false},
           Case{"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", true},
           Case{"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", true},
       }) {
    ResponseParser parser;
    const auto got = feed_all(parser, c.response, 5);
    ASSERT_EQ(got.size(), 1u) << c.response;
    EXPECT_EQ(got[0].keep_alive, c.keep_alive) << c.response;
  }
}

TEST(ResponseParser, AcceptsBareLineFeedsAndLongHeaderLinesSplitAcrossReads) {
  const std::string long_value(1000, 'v');
  const std::string response =
      "HTTP/1.1 200 OK\nX-Long: " + long_value + "\nContent-Length: 2\n\nok";
  for (size_t step : {1, 7, 300, 2000}) {
    ResponseParser parser;
    const auto got = feed_all(parser, response, step);
    ASSERT_EQ(got.size(), 1u) << step;
    EXPECT_EQ(got[0].length, 2u);
  }
}

TEST(ResponseParser, ComparesAnEchoedBodyByteForByte) {
  const std::string expected = "abcdefghij";
  struct Case {
    std::string body;
    bool matches;
  };
  for (const Case& c : {Case{"abcdefghij", true}, Case{"abcdefghiX", false},
                        Case{"abcdefghi", false}, Case{"abcdefghijk", false}}) {
    ResponseParser parser(expected);
    const std::string response =
        "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(c.body.size()) + "\r\n\r\n" + c.body;
    const auto got = feed_all(parser, response, 3);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].body_matches, c.matches) << c.body;
  }
}

}  // namespace
}  // namespace benchgate::worker::http
