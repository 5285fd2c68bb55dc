// Request parsing callbacks (see request_parser.h).
#include "router/http/request_parser.h"

namespace benchgate::router::http {

RequestParser::RequestParser(const RouteLimits& limits, uint32_t max_header_bytes,
                             uint64_t max_body_bytes, std::string& body)
    : limits_(limits), body_(body) {
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

void RequestParser::on_field_impl(boost::beast::http::field, string_view, string_view,
                                  error_code&) {
  // Content-Length, Transfer-Encoding and Connection are interpreted by basic_parser itself;
  // the bench routes need no other field.
}

void RequestParser::on_header_impl(error_code&) {}

void RequestParser::on_body_init_impl(const boost::optional<std::uint64_t>& content_length,
                                      error_code&) {
  if (dispatch_.action != Action::kEcho) return;
  // The length is already checked against the body limit by basic_parser.
  if (content_length) body_.reserve(static_cast<size_t>(*content_length));
}

std::size_t RequestParser::on_body_impl(string_view body, error_code&) {
  if (dispatch_.action == Action::kEcho) body_.append(body.data(), body.size());
  return body.size();
}

void RequestParser::on_chunk_header_impl(std::uint64_t, string_view, error_code&) {}

std::size_t RequestParser::on_chunk_body_impl(std::uint64_t, string_view body, error_code&) {
  if (dispatch_.action == Action::kEcho) body_.append(body.data(), body.size());
  return body.size();
}

void RequestParser::on_finish_impl(error_code&) {}

}  // namespace benchgate::router::http
