// An HTTP/1.1 request parser built on Beast's basic_parser that keeps no message object: it
// classifies the request line into a Dispatch as soon as it is parsed and appends the body
// only for /bench/echo, into a buffer the connection reuses. Constructing one allocates
// nothing, so a connection builds a fresh parser in place for every request.
//
// A body up to memory::kUnbudgetedBytes goes into a buffer the connection keeps. A longer one
// (by Content-Length; a chunked one on a connection that holds no body buffer, having given
// back a large one) starts in the serving thread's spare body buffer (SpareBody), which the
// connection gives back after the answer (release_body_buffer), the thread keeping the larger
// buffer up to memory::kSpareBufferBytes: a stream of large bodies, of either framing,
// allocates nothing per request. What a body holds of the budget still follows its bytes alone
// (body_capacity; doubling for a chunked one): a spare larger than that is counted, as a
// parked one is, only as far as the bytes that arrived make it trusted.
#pragma once

#include <cstdint>
#include <string>

#include <boost/beast/http/basic_parser.hpp>

#include "common/util/thread_spare.h"
#include "router/http/routes.h"
#include "router/memory/buffer_budget.h"

namespace benchgate::router::http {

// The serving thread's spare body buffer (common/util/thread_spare.h).
struct SpareBodyTag {};
using SpareBody = ThreadSpare<SpareBodyTag, std::string>;

// After an echo answer is written or refused: a body buffer past memory::kUnbudgetedBytes goes
// back to the thread (the larger of it and the spare is kept, up to memory::kSpareBufferBytes;
// the other is freed) and `reservation`, which followed it, gives its bytes back to the budget.
void release_body_buffer(std::string& body, memory::Reservation& reservation);

class RequestParser final : public boost::beast::http::basic_parser<true> {
 public:
  // `body` receives the body of an echo request and `body_budget` follows its capacity past
  // memory::kUnbudgetedBytes; both must outlive the parser.
  RequestParser(const RouteLimits& limits, uint32_t max_header_bytes, uint64_t max_body_bytes,
                std::string& body, memory::Reservation& body_budget);

  // True once the request line was parsed (so an error can be attributed to a route).
  bool has_request_line() const { return has_request_line_; }
  // Valid when has_request_line().
  const Dispatch& dispatch() const { return dispatch_; }
  // 10 for HTTP/1.0, 11 for HTTP/1.1.
  int http_version() const { return version_; }
  // After an error: the status the request is refused with when the parser decided it (501
  // for a transfer coding other than chunked, 503 when the buffered-bytes budget cannot hold
  // the body), 0 when the error code decides.
  int refusal_status() const { return refusal_status_; }

 private:
  using error_code = boost::system::error_code;
  using string_view = boost::beast::string_view;

  void on_request_impl(boost::beast::http::verb method, string_view method_str, string_view target,
                       int version, error_code& ec) override;
  void on_response_impl(int code, string_view reason, int version, error_code& ec) override;
  void on_field_impl(boost::beast::http::field name, string_view name_string, string_view value,
                     error_code& ec) override;
  void on_header_impl(error_code& ec) override;
  void on_body_init_impl(const boost::optional<std::uint64_t>& content_length,
                         error_code& ec) override;
  std::size_t on_body_impl(string_view body, error_code& ec) override;
  void on_chunk_header_impl(std::uint64_t size, string_view extensions, error_code& ec) override;
  std::size_t on_chunk_body_impl(std::uint64_t remain, string_view body, error_code& ec) override;
  void on_finish_impl(error_code& ec) override;
  // The capacity a body of `length` bytes (Content-Length) grows to when `needed` of its
  // bytes have arrived and do not fit (memory::trusted_capacity's rule).
  static uint64_t body_capacity(uint64_t needed, uint64_t length);
  // A Content-Length body: `needed` bytes arrived, past what is trusted_. Reserves the
  // capacity body_capacity() allows, and grows body_ to it where it has less; false (and ec
  // set) when the budget refuses.
  bool trust_body(uint64_t needed, error_code& ec);
  // A chunked body: `needed` bytes arrived, past what is trusted_. The first chunk trusts the
  // capacity of the buffer the connection kept (nothing grows or is reserved while the bytes
  // fit in it); past what is trusted, reserves a capacity of at least double that (within the
  // body limit), and grows body_ to it where it has less; false (and ec set) when the budget
  // refuses.
  bool trust_chunk(uint64_t needed, error_code& ec);
  // Reserves `capacity` of the budget and grows body_ to it where it has less; false (refusal
  // 503, ec set) when the budget refuses.
  bool trust(uint64_t capacity, error_code& ec);
  // Gives body_ a capacity of exactly `capacity` where it has less; the buffer it outgrew goes
  // to the thread's spare (or is freed).
  void grow_to(uint64_t capacity);

  const RouteLimits& limits_;
  std::string& body_;
  memory::Reservation& body_budget_;
  uint64_t max_body_bytes_;
  // The capacity the body has been trusted with so far (what body_budget_ holds past
  // kUnbudgetedBytes); body_ may be larger (the thread's spare).
  uint64_t trusted_ = 0;
  // Whether a chunk's data has arrived (trust_chunk then knows where the body started).
  bool chunk_started_ = false;
  Dispatch dispatch_;
  int version_ = 11;
  bool has_request_line_ = false;
  int refusal_status_ = 0;
  // Message framing as the header fields state it, judged once the header is complete
  // (RFC 9112 6.1 and 6.3; basic_parser alone reads a Transfer-Encoding that does not end in
  // chunked as "no body", so the body would be parsed as the next request).
  bool has_content_length_ = false;
  bool has_transfer_encoding_ = false;
  int transfer_codings_ = 0;
  int chunked_codings_ = 0;
  bool last_coding_chunked_ = false;
};

}  // namespace benchgate::router::http
