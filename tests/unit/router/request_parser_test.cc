// The request parser alone: message framing. A Transfer-Encoding whose final coding is not
// chunked, or one beside Content-Length, or in HTTP/1.0, leaves the body length unknown
// (RFC 9112 6.1, 6.3): refused with 400 so that the body is never parsed as a request of its
// own; chunked after a coding the router does not implement is refused with 501. And how an
// echo body draws on the buffered-bytes budget: as its bytes arrive, not from Content-Length.
#include "router/http/request_parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/beast/http/error.hpp>

#include "router/http/parser_slots.h"

namespace benchgate::router::http {
namespace {

struct Parsed {
  // An error decides, whatever is_done() says (basic_parser marks a request without a body
  // done before it asks on_header_impl).
  boost::system::error_code ec;
  bool done = false;
  int refusal_status = 0;
  std::string body;
};

// Feeds the whole request at once, as the session does with what one read brought.
Parsed parse(std::string_view request, memory::BufferBudget* budget = nullptr) {
  Parsed out;
  const RouteLimits limits;
  memory::Reservation reservation(budget, memory::BudgetUser::http);
  RequestParser parser(limits, 8192, 1 << 20, out.body, reservation);
  size_t offset = 0;
  while (offset < request.size()) {
    const size_t used =
        parser.put(boost::asio::buffer(request.data() + offset, request.size() - offset), out.ec);
    offset += used;
    if (out.ec || parser.is_done() || used == 0) break;
  }
  out.done = parser.is_done();
  out.refusal_status = parser.refusal_status();
  return out;
}

std::string echo_with(std::string_view fields, std::string_view version = "HTTP/1.1") {
  return "POST /bench/echo " + std::string(version) + "\r\nHost: t\r\n" + std::string(fields) +
         "\r\n5\r\nhello\r\n0\r\n\r\n";
}

TEST(RequestParserFraming, ChunkedAloneIsReadAsTheBody) {
  for (std::string_view te : {"chunked", "Chunked", "CHUNKED", " chunked ", ", chunked"}) {
    const Parsed parsed = parse(echo_with("Transfer-Encoding: " + std::string(te) + "\r\n"));
    EXPECT_FALSE(parsed.ec) << te << ": " << parsed.ec.message();
    EXPECT_TRUE(parsed.done) << te;
    EXPECT_EQ(parsed.body, "hello") << te;
  }
}

TEST(RequestParserFraming, TransferEncodingNotEndingInChunkedIsBadRequest) {
  for (std::string_view te : {"xchunked", "gzip", "identity", "chunked, identity", "chunked, gzip",
                              "chunkedx", "chunked;x=1, gzip", "", " , "}) {
    const Parsed parsed = parse(echo_with("Transfer-Encoding: " + std::string(te) + "\r\n"));
    EXPECT_EQ(parsed.ec, boost::beast::http::error::bad_transfer_encoding) << "'" << te << "'";
    EXPECT_EQ(parsed.refusal_status, 0) << te;  // the error code decides: 400
  }
}

TEST(RequestParserFraming, ChunkedTwiceIsBadRequest) {
  for (std::string_view fields :
       {"Transfer-Encoding: chunked, chunked\r\n",
        "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
        "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked, chunked\r\n"}) {
    const Parsed parsed = parse(echo_with(fields));
    EXPECT_TRUE(parsed.ec) << fields;
    EXPECT_EQ(parsed.refusal_status, 0) << fields;
  }
}

TEST(RequestParserFraming, CodingsSplitOverSeveralFieldsAreOneList) {
  // "chunked" then "gzip": chunked is not the final coding.
  Parsed parsed = parse(echo_with("Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n"));
  EXPECT_TRUE(parsed.ec);
  // "identity" then "chunked": chunked is final, after a coding the router does not decode.
  parsed = parse(echo_with("Transfer-Encoding: identity\r\nTransfer-Encoding: chunked\r\n"));
  EXPECT_EQ(parsed.ec, boost::beast::http::error::bad_transfer_encoding);
  EXPECT_EQ(parsed.refusal_status, 501);
}

TEST(RequestParserFraming, TransferEncodingWithContentLengthIsBadRequestInEitherOrder) {
  for (std::string_view fields : {"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n",
                                  "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
                                  "Transfer-Encoding: gzip\r\nContent-Length: 5\r\n",
                                  "Content-Length: 5\r\nTransfer-Encoding: gzip\r\n",
                                  "Transfer-Encoding: identity\r\nContent-Length: 0\r\n"}) {
    const Parsed parsed = parse(echo_with(fields));
    EXPECT_TRUE(parsed.ec) << fields;
    EXPECT_EQ(parsed.refusal_status, 0) << fields;
  }
}

TEST(RequestParserFraming, TransferEncodingInHttp10IsBadRequest) {
  const Parsed parsed = parse(echo_with("Transfer-Encoding: chunked\r\n", "HTTP/1.0"));
  EXPECT_EQ(parsed.ec, boost::beast::http::error::bad_transfer_encoding);
}

TEST(RequestParserFraming, OtherCodingBeforeChunkedIsNotImplemented) {
  for (std::string_view te : {"gzip, chunked", "identity, chunked", "deflate,chunked"}) {
    const Parsed parsed = parse(echo_with("Transfer-Encoding: " + std::string(te) + "\r\n"));
    EXPECT_EQ(parsed.ec, boost::beast::http::error::bad_transfer_encoding) << te;
    EXPECT_EQ(parsed.refusal_status, 501) << te;
  }
}

TEST(RequestParserFraming, ContentLengthAloneStillFramesTheBody) {
  const Parsed parsed =
      parse("POST /bench/echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello");
  EXPECT_FALSE(parsed.ec) << parsed.ec.message();
  EXPECT_TRUE(parsed.done);
  EXPECT_EQ(parsed.body, "hello");
}

// A body's first 64 KiB are outside the budget; once more arrive, its buffer is reserved
// before it grows (here to its length, within 16 times 64 KiB plus a read).
TEST(RequestParserBudget, BodyOverWhatTheBudgetHoldsIsRefusedWith503BeforeItsBufferGrows) {
  memory::BufferBudget budget(256 * 1024);
  ASSERT_TRUE(budget.try_reserve(200 * 1024, memory::BudgetUser::websocket));  // others' share
  const std::string body(100 * 1024, 'x');
  const Parsed parsed = parse("POST /bench/echo HTTP/1.1\r\nHost: t\r\nContent-Length: " +
                                  std::to_string(body.size()) + "\r\n\r\n" + body,
                              &budget);
  EXPECT_EQ(parsed.ec, boost::asio::error::no_buffer_space);
  EXPECT_EQ(parsed.refusal_status, 503);
  EXPECT_TRUE(parsed.body.empty());  // one read brought it all: nothing was buffered
  EXPECT_EQ(budget.refusals(memory::BudgetUser::http), 1u);
  EXPECT_EQ(budget.in_use(), 200u * 1024);
}

TEST(RequestParserBudget, ChunkedBodyIsRefusedWhenItsNextGrowthDoesNotFit) {
  memory::BufferBudget budget(256 * 1024);
  std::string request =
      "POST /bench/echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n";
  // 8 chunks of 40 KiB: the buffer doubles 40 -> 80 -> 160 -> 320 KiB; the last is refused.
  for (int i = 0; i < 8; ++i) request += "a000\r\n" + std::string(0xa000, 'y') + "\r\n";
  request += "0\r\n\r\n";
  const Parsed parsed = parse(request, &budget);
  EXPECT_EQ(parsed.refusal_status, 503);
  EXPECT_EQ(budget.refusals(memory::BudgetUser::http), 1u);
  EXPECT_EQ(budget.in_use(), 0u);  // the parser's reservation went with it
}

TEST(RequestParserBudget, BodyWithinTheBudgetIsReadAndHeldUntilReleased) {
  memory::BufferBudget budget(256 * 1024);
  const std::string body(100 * 1024, 'x');
  const RouteLimits limits;
  std::string echo;
  memory::Reservation reservation(&budget, memory::BudgetUser::http);
  RequestParser parser(limits, 8192, 1 << 20, echo, reservation);
  const std::string request =
      "POST /bench/echo HTTP/1.1\r\nHost: t\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\n\r\n" + body;
  boost::system::error_code ec;
  parser.put(boost::asio::buffer(request), ec);
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_TRUE(parser.is_done());
  EXPECT_EQ(echo, body);
  EXPECT_EQ(budget.in_use(), body.size());  // exactly its Content-Length
}

// The length Content-Length announces is trusted only as far as the body's bytes arrive
// (memory::trusted_capacity): a header announcing 64 MiB reserves nothing, and its buffer
// grows only when what arrived does not fit, to at most 16 times that plus a read. A 64 MiB
// body fed in the session's 16 KiB reads takes four buffers (64 KiB outside the budget, then
// 1 MiB, 16 MiB and 64 MiB reserved before each is allocated): three reallocations, which
// copy 17 MiB and 64 KiB in all.
TEST(RequestParserBudget, AnnouncedLengthIsReservedOnlyAsItsBytesArrive) {
  constexpr uint64_t kLength = 64ull << 20;
  SpareBodies::clear();  // no spare left by another test: steps from nothing
  memory::BufferBudget budget(512ull << 20);
  const RouteLimits limits;
  std::string echo;
  memory::Reservation reservation(&budget, memory::BudgetUser::http);
  RequestParser parser(limits, 8192, kLength, echo, reservation);
  boost::system::error_code ec;
  const std::string head =
      "POST /bench/echo HTTP/1.1\r\nHost: t\r\nContent-Length: " + std::to_string(kLength) +
      "\r\n\r\n";
  EXPECT_EQ(parser.put(boost::asio::buffer(head), ec), head.size());
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_EQ(echo.capacity(), std::string().capacity());  // the header allocated nothing
  EXPECT_EQ(budget.in_use(), 0u);

  // Feeds `bytes` more of the body in 16 KiB reads; answers the capacities the buffer took.
  const std::string piece(16 * 1024, 'b');
  uint64_t fed = 0;
  std::vector<uint64_t> capacities;
  const auto feed = [&](uint64_t bytes) {
    for (const uint64_t end = fed + bytes; fed < end;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(piece.size(), end - fed));
      ASSERT_EQ(parser.put(boost::asio::buffer(piece.data(), n), ec), n);
      ASSERT_FALSE(ec) << ec.message();
      fed += n;
      if (capacities.empty() || capacities.back() != echo.capacity()) {
        capacities.push_back(echo.capacity());
      }
    }
  };
  feed(64 * 1024);  // fills the first buffer, outside the budget
  EXPECT_EQ(budget.in_use(), 0u);
  feed(1);  // one byte past it: 16 x 64 KiB
  EXPECT_EQ(budget.in_use(), 1u << 20);
  feed((1u << 20) - fed);
  EXPECT_EQ(budget.in_use(), 1u << 20);
  feed(1);  // 16 x 1 MiB
  EXPECT_EQ(budget.in_use(), 16u << 20);
  feed((16u << 20) + 1 - fed);  // 16 x (16 MiB) + a read is past the length: the length
  EXPECT_EQ(budget.in_use(), kLength);
  feed(kLength - fed);
  EXPECT_TRUE(parser.is_done());
  EXPECT_EQ(echo.size(), kLength);
  EXPECT_EQ(capacities, (std::vector<uint64_t>{64 * 1024, 1u << 20, 16u << 20, kLength}));
  EXPECT_EQ(budget.in_use(), kLength);
  EXPECT_EQ(budget.refusals(memory::BudgetUser::http), 0u);
}

// What a stalled body holds depends only on how many of its bytes arrived, not on the buffer
// the connection kept from an earlier, smaller body.
TEST(RequestParserBudget, WhatABodyHoldsDependsOnlyOnTheBytesThatArrived) {
  memory::BufferBudget budget(64ull << 20);
  const RouteLimits limits;
  std::string echo;
  echo.reserve(60 * 1024);  // kept from an earlier body (16 x 60 KiB would be 960 KiB)
  memory::Reservation reservation(&budget, memory::BudgetUser::http);
  RequestParser parser(limits, 8192, 8u << 20, echo, reservation);
  const std::string request = "POST /bench/echo HTTP/1.1\r\nHost: t\r\nContent-Length: 8000000" +
                              std::string("\r\n\r\n") + std::string(100'000, 'c');
  boost::system::error_code ec;
  EXPECT_EQ(parser.put(boost::asio::buffer(request), ec), request.size());
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_EQ(echo.size(), 100'000u);
  EXPECT_EQ(budget.in_use(), 1u << 20);  // 16 x 64 KiB, as from an empty buffer
}

// A body past 64 KiB starts in the thread's spare body buffer and gives it back after the
// answer: the next one reuses it, no allocation, no copy. The budget covers the whole spare from
// the moment the body takes it, whatever its bytes: a body that stalls holds nothing outside it.
TEST(RequestParserBudget, ALargeBodyStartsInTheThreadsSpareWhichTheBudgetCoversInFull) {
  // A spare from an earlier body, smaller than this one's length.
  SpareBodies::clear();
  std::string earlier;
  earlier.reserve(70'000);
  SpareBodies::give_back(earlier);
  memory::BufferBudget budget(64ull << 20);
  const RouteLimits limits;
  std::string echo;
  memory::Reservation reservation(&budget, memory::BudgetUser::http);
  const std::string body(100'000, 'd');
  const std::string head = "POST /bench/echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n";
  boost::system::error_code ec;
  {
    RequestParser parser(limits, 8192, 8u << 20, echo, reservation);
    const std::string request = head + body;
    EXPECT_EQ(parser.put(boost::asio::buffer(request), ec), request.size());
    EXPECT_FALSE(ec) << ec.message();
  }
  EXPECT_EQ(echo, body);
  EXPECT_EQ(echo.capacity(), body.size());  // outgrew the spare, which went back to the thread
  EXPECT_EQ(SpareBodies::count(), 1u);
  EXPECT_EQ(SpareBodies::largest(), 70'000u);
  release_body_buffer(echo, reservation);
  // The thread keeps both buffers, the larger one first in line; the connection holds none.
  EXPECT_EQ(echo.capacity(), std::string().capacity());
  EXPECT_EQ(budget.in_use(), 0u);
  ASSERT_EQ(SpareBodies::count(), 2u);
  ASSERT_EQ(SpareBodies::largest(), body.size());

  RequestParser parser(limits, 8192, 8u << 20, echo, reservation);
  EXPECT_EQ(parser.put(boost::asio::buffer(head), ec), head.size());
  EXPECT_EQ(parser.put(boost::asio::buffer(body.data(), 1000), ec), 1000u);
  EXPECT_EQ(echo.capacity(), body.size());  // the body starts in the largest spare
  EXPECT_EQ(SpareBodies::count(), 1u);
  const char* spare = echo.data();
  EXPECT_EQ(budget.in_use(), body.size());  // the spare in full, for 1000 bytes
  EXPECT_EQ(parser.put(boost::asio::buffer(body.data() + 1000, 65'000), ec), 65'000u);
  EXPECT_EQ(budget.in_use(), body.size());
  EXPECT_EQ(parser.put(boost::asio::buffer(body.data() + 66'000, 34'000), ec), 34'000u);
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_TRUE(parser.is_done());
  EXPECT_EQ(echo, body);
  EXPECT_EQ(echo.data(), spare);  // not reallocated
  release_body_buffer(echo, reservation);
  EXPECT_EQ(SpareBodies::count(), 2u);
  EXPECT_EQ(SpareBodies::largest(), body.size());
  EXPECT_EQ(budget.in_use(), 0u);
  SpareBodies::clear();
}

// A chunked body on a connection that holds no echo buffer (it gave a large one back) starts
// in the thread's spare too, instead of allocating its way up to the same size again, and the
// budget covers the whole spare from its first byte.
TEST(RequestParserBudget, AChunkedBodyStartsInTheThreadsSpareWhichTheBudgetCoversInFull) {
  SpareBodies::clear();
  std::string earlier;
  earlier.reserve(1u << 20);
  const char* spare = earlier.data();
  SpareBodies::give_back(earlier);
  memory::BufferBudget budget(64ull << 20);
  const RouteLimits limits;
  std::string echo;
  memory::Reservation reservation(&budget, memory::BudgetUser::http);
  RequestParser parser(limits, 8192, 8u << 20, echo, reservation);
  boost::system::error_code ec;
  const std::string head =
      "POST /bench/echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n";
  EXPECT_EQ(parser.put(boost::asio::buffer(head), ec), head.size());
  // Each piece one chunk (and the CRLF ending the one before). The reservation after each: the
  // 1 MiB spare.
  const std::string data(25'000, 'e');
  const uint64_t reserved[] = {1u << 20, 1u << 20, 1u << 20, 1u << 20};
  for (int i = 0; i < 4; ++i) {
    const std::string piece = (i == 0 ? "" : "\r\n") + std::string("61a8\r\n") + data;
    EXPECT_EQ(parser.put(boost::asio::buffer(piece), ec), piece.size());
    ASSERT_FALSE(ec) << ec.message();
    EXPECT_EQ(echo.data(), spare);  // never reallocated
    EXPECT_EQ(budget.in_use(), reserved[i]) << echo.size();
  }
  const std::string last = "\r\n0\r\n\r\n";
  EXPECT_EQ(parser.put(boost::asio::buffer(last), ec), last.size());
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_TRUE(parser.is_done());
  EXPECT_EQ(echo, std::string(100'000, 'e'));
  release_body_buffer(echo, reservation);
  EXPECT_EQ(SpareBodies::count(), 1u);
  SpareBodies::take_largest(echo);
  EXPECT_EQ(echo.data(), spare);  // back with the thread
  release_body_buffer(echo, reservation);
  EXPECT_EQ(budget.in_use(), 0u);
  SpareBodies::clear();
}

// A chunked body that fits in the buffer the connection kept from an earlier body (at most
// 64 KiB, outside the budget) is appended there: no new buffer, nothing reserved. Only bytes
// past that capacity make it grow, to double what it was trusted with.
TEST(RequestParserBudget, ASmallChunkedBodyFitsInTheBufferTheConnectionKeptAndReservesNothing) {
  SpareBodies::clear();
  memory::BufferBudget budget(64ull << 20);
  const RouteLimits limits;
  std::string echo;
  memory::Reservation reservation(&budget, memory::BudgetUser::http);
  boost::system::error_code ec;
  {
    // A Content-Length body of 40,000 bytes leaves the connection a buffer of that capacity.
    RequestParser parser(limits, 8192, 8u << 20, echo, reservation);
    const std::string request = "POST /bench/echo HTTP/1.1\r\nHost: t\r\nContent-Length: 40000" +
                                std::string("\r\n\r\n") + std::string(40'000, 'f');
    EXPECT_EQ(parser.put(boost::asio::buffer(request), ec), request.size());
    ASSERT_FALSE(ec) << ec.message();
  }
  release_body_buffer(echo, reservation);
  ASSERT_EQ(echo.capacity(), 40'000u);
  ASSERT_EQ(budget.in_use(), 0u);
  const char* kept = echo.data();

  RequestParser parser(limits, 8192, 8u << 20, echo, reservation);
  const std::string small = "POST /bench/echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked" +
                            std::string("\r\n\r\n64\r\n") + std::string(100, 'g');
  EXPECT_EQ(parser.put(boost::asio::buffer(small), ec), small.size());
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(echo.size(), 100u);
  EXPECT_EQ(echo.capacity(), 40'000u);
  EXPECT_EQ(echo.data(), kept);
  EXPECT_EQ(budget.in_use(), 0u);
  // 40,100 bytes: past the kept 40,000, which doubles.
  const std::string more = "\r\n9c40\r\n" + std::string(40'000, 'g');
  EXPECT_EQ(parser.put(boost::asio::buffer(more), ec), more.size());
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(echo.capacity(), 80'000u);
  EXPECT_EQ(budget.in_use(), 80'000u);
  const std::string last = "\r\n0\r\n\r\n";
  EXPECT_EQ(parser.put(boost::asio::buffer(last), ec), last.size());
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_TRUE(parser.is_done());
  EXPECT_EQ(echo, std::string(40'100, 'g'));
  release_body_buffer(echo, reservation);
  EXPECT_EQ(budget.in_use(), 0u);
  SpareBodies::clear();
}

// The serving thread's spare body buffers (router/http/body_buffer.h): every buffer past
// 64 KiB and up to 1 MiB that bodies give back is kept, up to SpareBodies::kMaxBytes in all,
// so that as many large bodies at once as they hold start in one each; past that the thread
// keeps the larger buffers.
TEST(SpareBodies, KeepEveryLargeBufferGivenBackWithinTheirBoundTheLargerFirst) {
  SpareBodies::clear();
  const auto buffer = [](size_t capacity) {
    std::string made;
    made.reserve(capacity);
    return made;
  };
  // Three bodies at once each give back their 128 KiB: three spares, three bodies next.
  for (int i = 0; i < 3; ++i) {
    std::string given = buffer(128 * 1024);
    SpareBodies::give_back(given);
    EXPECT_EQ(given.capacity(), std::string().capacity()) << "the body holds no memory after";
  }
  EXPECT_EQ(SpareBodies::count(), 3u);
  EXPECT_EQ(SpareBodies::bytes(), 3u * 128 * 1024);
  std::vector<std::string> bodies(3);
  std::set<const char*> taken;
  for (std::string& body : bodies) {
    SpareBodies::take_largest(body);
    EXPECT_EQ(body.capacity(), 128u * 1024);
    taken.insert(body.data());
  }
  EXPECT_EQ(taken.size(), 3u) << "three buffers, one per body";
  EXPECT_EQ(SpareBodies::count(), 0u);
  EXPECT_EQ(SpareBodies::bytes(), 0u);
  for (std::string& body : bodies) SpareBodies::give_back(body);
  EXPECT_EQ(SpareBodies::count(), 3u);
  SpareBodies::clear();

  // A buffer a connection keeps itself (64 KiB) or past 1 MiB is not kept.
  std::string small = buffer(64 * 1024);
  std::string huge = buffer((1u << 20) + 1);
  SpareBodies::give_back(small);
  SpareBodies::give_back(huge);
  EXPECT_EQ(SpareBodies::count(), 0u);

  // 4 MiB in all: 32 buffers of 128 KiB fill it; a 1 MiB one then takes the room of the
  // eight smallest, and a 128 KiB one finds none (every spare that could go is as large).
  for (int i = 0; i < 32; ++i) {
    std::string given = buffer(128 * 1024);
    SpareBodies::give_back(given);
  }
  EXPECT_EQ(SpareBodies::bytes(), SpareBodies::kMaxBytes);
  std::string large = buffer(1u << 20);
  SpareBodies::give_back(large);
  EXPECT_EQ(SpareBodies::count(), 25u);
  EXPECT_EQ(SpareBodies::bytes(), SpareBodies::kMaxBytes);
  EXPECT_EQ(SpareBodies::largest(), 1u << 20);
  std::string another = buffer(128 * 1024);
  SpareBodies::give_back(another);
  EXPECT_EQ(SpareBodies::count(), 25u);
  EXPECT_EQ(another.capacity(), std::string().capacity());
  // A body takes the largest first.
  std::string body;
  SpareBodies::take_largest(body);
  EXPECT_EQ(body.capacity(), 1u << 20);
  EXPECT_EQ(SpareBodies::bytes(), SpareBodies::kMaxBytes - (1u << 20));
  // Not when its own buffer is as large: nothing changes then.
  SpareBodies::take_largest(body);
  EXPECT_EQ(body.capacity(), 1u << 20);
  EXPECT_EQ(SpareBodies::count(), 24u);
  SpareBodies::clear();
  EXPECT_EQ(SpareBodies::count(), 0u);
  EXPECT_EQ(SpareBodies::bytes(), 0u);
}

// Room for a buffer given back is made only where the smaller spares can make it together: a
// buffer that would not fit after all is freed without freeing any spare first (128 KiB went,
// and then the 512 KiB buffer too).
TEST(SpareBodies, NoSpareIsFreedForABufferThatCannotBeKeptAfterAll) {
  SpareBodies::clear();
  for (const size_t capacity : {128u * 1024, 1u << 20, 1u << 20, 1u << 20, 896u * 1024}) {
    std::string given;
    given.reserve(capacity);
    SpareBodies::give_back(given);
  }
  ASSERT_EQ(SpareBodies::count(), 5u);
  ASSERT_EQ(SpareBodies::bytes(), SpareBodies::kMaxBytes);
  std::string back;
  back.reserve(512 * 1024);
  SpareBodies::give_back(back);
  EXPECT_EQ(SpareBodies::count(), 5u);
  EXPECT_EQ(SpareBodies::bytes(), SpareBodies::kMaxBytes);
  SpareBodies::clear();
}

// A body of known length takes the smallest spare that holds it, leaving the larger ones for
// larger bodies; where none holds it, the largest.
TEST(SpareBodies, ABodyTakesTheSmallestSpareThatHoldsIt) {
  SpareBodies::clear();
  for (const size_t capacity : {1u << 20, 128u * 1024, 256u * 1024}) {
    std::string given;
    given.reserve(capacity);
    SpareBodies::give_back(given);
  }
  std::string small, middle, large;
  SpareBodies::take_for(small, 100'000);
  EXPECT_EQ(small.capacity(), 128u * 1024);
  SpareBodies::take_for(large, 2u << 20);
  EXPECT_EQ(large.capacity(), 1u << 20);
  SpareBodies::take_for(middle, 200'000);
  EXPECT_EQ(middle.capacity(), 256u * 1024);
  EXPECT_EQ(SpareBodies::count(), 0u);
  SpareBodies::clear();
}

// A body takes a spare only where the budget covers the whole of it; otherwise the spare stays
// with the thread, the body grows its own buffer, and no refusal is counted.
TEST(RequestParserBudget, ASpareTheBudgetCannotCoverIsNotTaken) {
  SpareBodies::clear();
  std::string earlier;
  earlier.reserve(1u << 20);
  SpareBodies::give_back(earlier);
  memory::BufferBudget budget(512 * 1024);
  const RouteLimits limits;
  std::string echo;
  memory::Reservation reservation(&budget, memory::BudgetUser::http);
  RequestParser parser(limits, 8192, 8u << 20, echo, reservation);
  boost::system::error_code ec;
  const std::string request =
      "POST /bench/echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
      "3e8\r\n" +
      std::string(1000, 'f');
  EXPECT_EQ(parser.put(boost::asio::buffer(request), ec), request.size());
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_EQ(SpareBodies::count(), 1u) << "the spare stays with the thread";
  EXPECT_LT(echo.capacity(), 1u << 20);
  EXPECT_EQ(budget.in_use(), 0u);
  EXPECT_EQ(budget.refusals(memory::BudgetUser::http), 0u);
  SpareBodies::clear();
}

// The serving thread's parser slots (router/http/parser_slots.h): a request done gives its
// slot back and the next request takes that same slot, so a busy connection allocates nothing
// per request; requests in progress at once have slots of their own.
TEST(ParserSlots, TheSlotGivenBackIsTheNextTakenAndRequestsInProgressHaveTheirOwn) {
  const RouteLimits limits;
  std::string body;
  memory::Reservation reservation(nullptr, memory::BudgetUser::http);
  RequestParser* first = ParserSlots::make(limits, 8192, 1 << 20, body, reservation);
  RequestParser* second = ParserSlots::make(limits, 8192, 1 << 20, body, reservation);
  EXPECT_NE(first, second);
  ParserSlots::destroy(second);
  RequestParser* again = ParserSlots::make(limits, 8192, 1 << 20, body, reservation);
  EXPECT_EQ(again, second);
  // A parser made in a slot that held another works as a new one.
  boost::system::error_code ec;
  const std::string_view request = "GET /bench/hello HTTP/1.1\r\nHost: t\r\n\r\n";
  EXPECT_EQ(again->put(boost::asio::buffer(request.data(), request.size()), ec), request.size());
  EXPECT_FALSE(ec);
  EXPECT_TRUE(again->is_done());
  EXPECT_EQ(again->dispatch().route, Route::kHello);
  ParserSlots::destroy(again);
  ParserSlots::destroy(first);
}

}  // namespace
}  // namespace benchgate::router::http
