// An incremental HTTP/1.1 response parser for the load generator: one per connection, fed
// whatever each read returned (one byte or many pipelined responses at a time), never
// allocating in steady state. It understands exactly what a benchmark response needs: the status
// line, Content-Length framing, Connection (keep-alive), answers without a body (204, 304, and
// every answer to HEAD), and rejects what it cannot frame (chunked or any Transfer-Encoding, no
// Content-Length) as a protocol error. When given the expected body it
// compares the body as it streams by, for echo workloads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace benchgate::worker::http {

class OperationPool;

class ResponseParser {
 public:
  enum class Result : uint8_t {
    kNeedMore,  // every byte consumed, the response is not complete yet
    kComplete,  // one response complete; `consumed` says where the next one starts
    kError,     // not a response this parser can frame; error() says why
  };

  // Longest header section accepted; garbage without line breaks fails here.
  static constexpr size_t kMaxHeaderBytes = 64 * 1024;

  // `pool`: where the line being assembled across reads is kept meanwhile (the heap without
  // one); it must outlive the parser.
  explicit ResponseParser(OperationPool* pool = nullptr) : pool_(pool) {}
  // The body must equal `expected` (kept by reference; it must outlive the parser).
  explicit ResponseParser(std::string_view expected_body, OperationPool* pool = nullptr)
      : pool_(pool), expected_body_(expected_body), check_body_(true) {}
  ResponseParser(const ResponseParser&) = delete;
  ResponseParser& operator=(const ResponseParser&) = delete;
  ~ResponseParser() { release_line(); }

  // Parses bytes of at most one response from data[0, size). Sets `consumed` to the number
  // of bytes used. After kComplete or kError, call reset() before feeding the next response.
  Result feed(const char* data, size_t size, size_t& consumed);

  // Forgets the current response (keeps the expected body and expect_no_bodies()).
  void reset();

  // The requests are HEAD: no answer has a body, whatever its Content-Length says (RFC 9112,
  // section 6.3), and content_length() is 0.
  void expect_no_bodies() { no_bodies_ = true; }

  // True once any byte of the current response has been consumed.
  bool in_progress() const { return header_bytes_ > 0; }

  // Valid after kComplete.
  int status() const { return status_; }
  uint64_t content_length() const { return content_length_; }
  bool keep_alive() const { return keep_alive_; }
  // False when an expected body was given and the body differed (in bytes or length).
  bool body_matches() const { return body_matches_; }
  // Valid after kError: a static description.
  const char* error() const { return error_; }

 private:
  enum class State : uint8_t { kStatusLine, kHeaders, kBody, kDone };

  Result fail(const char* why);
  bool on_line(const char* line, size_t size);
  bool parse_status_line(std::string_view line);
  bool parse_header(std::string_view line);
  bool parse_content_length(std::string_view value);
  bool finish_headers();
  void check_body(const char* data, size_t size);

  char* acquire_line();
  void release_line();

  // A line split over reads is assembled in a block taken from the pool while it is (at
  // most one per connection, none between responses, so an idle connection holds none);
  // longer lines keep only their start, which holds everything this parser looks at (a
  // truncated framing header is an error).
  static constexpr size_t kLineCapacity = 256;
  OperationPool* pool_ = nullptr;
  char* line_ = nullptr;
  uint32_t line_size_ = 0;
  uint32_t header_bytes_ = 0;  // at most kMaxHeaderBytes and one read past it

  std::string_view expected_body_;

  uint64_t content_length_ = 0;
  uint64_t body_received_ = 0;
  const char* error_ = "";
  int status_ = 0;
  State state_ = State::kStatusLine;
  // One byte for all of them: the parser is part of every connection.
  bool line_truncated_ : 1 = false;
  bool check_body_ : 1 = false;
  bool http10_ : 1 = false;
  bool has_length_ : 1 = false;
  bool keep_alive_ : 1 = true;
  bool connection_close_ : 1 = false;
  bool connection_keep_alive_ : 1 = false;
  bool body_matches_ : 1 = true;
  bool no_bodies_ : 1 = false;
};

}  // namespace benchgate::worker::http
