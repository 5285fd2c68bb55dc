// An HTTP/1.1 request parser built on Beast's basic_parser that keeps no message object: it
// classifies the request line into a Dispatch as soon as it is parsed and appends the body
// only for /bench/echo, into a buffer the connection reuses. Constructing one allocates
// nothing, so a connection builds a fresh parser in place for every request.
//
// The body's buffer grows, starts in one of the serving thread's spares and holds of the
// buffered-bytes budget as router/http/body_buffer.h says (its rule for a body of known
// length: body_capacity; for a chunked one: BodyTrust::trust_piece), and the connection gives
// it back after the answer (release_body_buffer).
#pragma once

#include <cstdint>
#include <string>

#include <boost/beast/http/basic_parser.hpp>

#include "router/http/body_buffer.h"
#include "router/http/routes.h"
#include "router/memory/buffer_budget.h"

namespace benchgate::router::http {

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
  // A Content-Length body: `needed` bytes arrived, past what is trusted. Starts in the
  // thread's largest spare, then reserves the capacity body_capacity() allows and grows body_
  // to it where it has less; false (and ec set) when the budget refuses.
  bool trust_body(uint64_t needed, error_code& ec);
  // The budget refused the body: 503, ec set.
  void refuse_for_budget(error_code& ec);

  const RouteLimits& limits_;
  std::string& body_;
  memory::Reservation& body_budget_;
  uint64_t max_body_bytes_;
  // What the body has been trusted with so far (body_budget_ follows it).
  BodyTrust trust_;
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
