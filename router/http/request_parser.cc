// Request parsing callbacks (see request_parser.h).
#include "router/http/request_parser.h"

#include <algorithm>

#include <boost/asio/error.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>

namespace benchgate::router::http {
namespace {

std::string_view trim_ows(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

}  // namespace

RequestParser::RequestParser(const RouteLimits& limits, uint32_t max_header_bytes,
                             uint64_t max_body_bytes, std::string& body,
                             memory::Reservation& body_budget)
    : limits_(limits), body_(body), body_budget_(body_budget), max_body_bytes_(max_body_bytes) {
  header_limit(max_header_bytes);
  body_limit(max_body_bytes);
  // Parse header and body in one put() when both are already buffered.
  eager(true);
}

void RequestParser::on_request_impl(boost::beast::http::verb method, string_view,
                                    string_view target, int version, error_code&) {
  dispatch_ = http::dispatch(method, std::string_view(target.data(), target.size()), limits_);
  version_ = version;
  has_request_line_ = true;
  // An echo request without a body answers with an empty one.
  if (dispatch_.action == Action::kEcho) body_.clear();
}

void RequestParser::on_response_impl(int, string_view, int, error_code& ec) {
  // Never called for a request parser; fail loudly rather than silently accept.
  ec = boost::beast::http::error::bad_version;
}

void RequestParser::on_field_impl(boost::beast::http::field name, string_view, string_view value,
                                  error_code&) {
  // basic_parser interprets Content-Length, Transfer-Encoding and Connection itself; the
  // framing fields are also noted here to refuse what it lets through (on_header_impl). The
  // bench routes need no other field.
  using boost::beast::http::field;
  if (name == field::content_length) {
    has_content_length_ = true;
    return;
  }
  if (name != field::transfer_encoding) return;
  has_transfer_encoding_ = true;
  // A list of transfer codings, each a token with optional ";parameters"; several fields
  // make one list in order. Empty list elements are allowed and skipped.
  std::string_view rest(value.data(), value.size());
  while (true) {
    const size_t comma = rest.find(',');
    std::string_view coding = rest.substr(0, comma);
    coding = trim_ows(coding.substr(0, coding.find(';')));
    if (!coding.empty()) {
      ++transfer_codings_;
      last_coding_chunked_ = boost::beast::iequals(coding, "chunked");
      if (last_coding_chunked_) ++chunked_codings_;
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
}

void RequestParser::on_header_impl(error_code& ec) {
  // A Content-Length body reserves nothing here: its buffer grows as its bytes arrive
  // (on_body_impl).
  if (!has_transfer_encoding_) return;
  // RFC 9112 6.3: with Transfer-Encoding the body length is known only when chunked is the
  // final coding, applied once; Content-Length beside it, or Transfer-Encoding in HTTP/1.0
  // (6.1), is faulty framing. All of them are refused (400) and the connection closed, or the
  // body could be read as a request of its own (request smuggling).
  if (has_content_length_ || version_ < 11 || !last_coding_chunked_ || chunked_codings_ != 1) {
    ec = boost::beast::http::error::bad_transfer_encoding;
    return;
  }
  // chunked after codings the router does not implement (gzip, ...): the framing is sound
  // but the body cannot be decoded (RFC 9112 6.1: 501).
  if (transfer_codings_ > 1) {
    refusal_status_ = 501;
    ec = boost::beast::http::error::bad_transfer_encoding;
  }
}

uint64_t RequestParser::body_capacity(uint64_t needed, uint64_t length) {
  // The steps memory::trusted_capacity takes from an empty buffer (at most 64 KiB, then
  // 1 MiB, 16 MiB, ... and the length), not from the capacity the connection kept from an
  // earlier body: the capacity, and so what a body that stopped at some byte holds of the
  // budget, depends on nothing but how many of its bytes arrived. Each step is at most 16
  // times (the previous step plus a read), and the previous step is short of `needed`, which
  // arrived: the buffer grows to at most 16 times (what arrived plus a read).
  // (basic_parser hands over no more than the length; the max keeps the loop finite anyway.)
  const uint64_t announced = std::max(length, needed);
  uint64_t capacity = memory::trusted_capacity(0, announced);
  while (capacity < needed) capacity = memory::trusted_capacity(capacity, announced);
  return capacity;
}

void RequestParser::on_body_init_impl(const boost::optional<std::uint64_t>&, error_code&) {}

std::size_t RequestParser::on_body_impl(string_view body, error_code& ec) {
  if (dispatch_.action != Action::kEcho) return body.size();
  // The length Content-Length announces (already within the body limit, basic_parser checks
  // it) is trusted only as far as the body's bytes arrive: a header announcing 64 MiB with
  // little after it holds no more than 64 KiB, outside the budget.
  const uint64_t needed = body_.size() + body.size();
  if (needed > trust_.trusted() && !trust_body(needed, ec)) return 0;
  body_.append(body.data(), body.size());
  return body.size();
}

bool RequestParser::trust_body(uint64_t needed, error_code& ec) {
  const uint64_t length = content_length().value_or(needed);
  // A body past what the connection keeps starts in the thread's smallest spare that holds its
  // length (else the largest), when that is larger and the budget covers it.
  if (body_.empty() && length > memory::kUnbudgetedBytes) {
    trust_.start_in_spare(body_, body_budget_, length);
  }
  if (trust_.trust(body_, body_budget_, body_capacity(needed, length))) return true;
  refuse_for_budget(ec);
  return false;
}

void RequestParser::refuse_for_budget(error_code& ec) {
  refusal_status_ = 503;
  ec = boost::asio::error::no_buffer_space;
}

void RequestParser::on_chunk_header_impl(std::uint64_t, string_view, error_code&) {}

std::size_t RequestParser::on_chunk_body_impl(std::uint64_t, string_view body, error_code& ec) {
  if (dispatch_.action != Action::kEcho) return body.size();
  const uint64_t needed = body_.size() + body.size();
  if (needed > trust_.trusted() &&
      !trust_.trust_piece(body_, body_budget_, needed, max_body_bytes_)) {
    refuse_for_budget(ec);
    return 0;
  }
  body_.append(body.data(), body.size());
  return body.size();
}

void RequestParser::on_finish_impl(error_code&) {}

}  // namespace benchgate::router::http
