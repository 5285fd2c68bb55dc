#include "worker/http/response_parser.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "worker/http/operation_pool.h"

namespace benchgate::worker::http {
namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + ('a' - 'A')) : c; }

bool iequals(std::string_view a, std::string_view lower_b) {
  if (a.size() != lower_b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower_b[i]) return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Does the comma-separated Connection value contain `token`?
bool has_token(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    const size_t comma = value.find(',');
    if (iequals(trim(value.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

char* ResponseParser::acquire_line() {
  if (line_ == nullptr) {
    line_ = static_cast<char*>(pool_ != nullptr ? pool_->allocate(kLineCapacity)
                                                : ::operator new(kLineCapacity));
  }
  return line_;
}

void ResponseParser::release_line() {
  if (line_ == nullptr) return;
  if (pool_ != nullptr) {
    pool_->deallocate(line_, kLineCapacity);
  } else {
    ::operator delete(line_);
  }
  line_ = nullptr;
}

void ResponseParser::reset() {
  release_line();
  line_size_ = 0;
  line_truncated_ = false;
  state_ = State::kStatusLine;
  header_bytes_ = 0;
  status_ = 0;
  http10_ = false;
  has_length_ = false;
  keep_alive_ = true;
  connection_close_ = false;
  connection_keep_alive_ = false;
  content_length_ = 0;
  body_received_ = 0;
  body_matches_ = true;
  error_ = "";
}

ResponseParser::Result ResponseParser::fail(const char* why) {
  error_ = why;
  state_ = State::kDone;
  return Result::kError;
}

ResponseParser::Result ResponseParser::feed(const char* data, size_t size, size_t& consumed) {
  size_t i = 0;
  while (i < size) {
    if (state_ == State::kBody) {
      const size_t n =
          static_cast<size_t>(std::min<uint64_t>(content_length_ - body_received_, size - i));
      if (check_body_) check_body(data + i, n);
      body_received_ += n;
      i += n;
      if (body_received_ == content_length_) {
        state_ = State::kDone;
        consumed = i;
        return Result::kComplete;
      }
      continue;
    }
    if (state_ == State::kDone) {
      consumed = i;
      return Result::kError;  // fed again without reset(): a caller bug, not a server's
    }
    // Status line or a header line: find its end.
    const char* start = data + i;
    const void* lf = std::memchr(start, '\n', size - i);
    const size_t chunk =
        lf ? static_cast<size_t>(static_cast<const char*>(lf) - start) + 1 : size - i;
    header_bytes_ += static_cast<uint32_t>(std::min(chunk, kMaxHeaderBytes + 1));
    i += chunk;
    if (header_bytes_ > kMaxHeaderBytes) {
      consumed = i;
      return fail("response header section too large (or not HTTP)");
    }
    const size_t text = lf ? chunk - 1 : chunk;  // without the LF
    if (!lf || line_size_ > 0) {
      // The line continues in a later read, or began in an earlier one: assemble it.
      const size_t room = kLineCapacity - line_size_;
      const size_t n = std::min(room, text);
      std::memcpy(acquire_line() + line_size_, start, n);
      line_size_ += static_cast<uint32_t>(n);
      line_truncated_ |= n < text;
      if (!lf) continue;
      start = line_;
    }
    size_t line_size = lf && line_size_ == 0 ? text : line_size_;
    if (line_size > 0 && start[line_size - 1] == '\r') --line_size;
    const bool ok = on_line(start, line_size);
    release_line();  // a line assembled across reads is done with
    line_size_ = 0;
    line_truncated_ = false;
    if (!ok) {
      consumed = i;
      return Result::kError;
    }
    if (state_ == State::kDone) {  // a response without a body
      consumed = i;
      return Result::kComplete;
    }
  }
  consumed = i;
  return Result::kNeedMore;
}

bool ResponseParser::on_line(const char* line, size_t size) {
  const std::string_view text(line, size);
  if (state_ == State::kStatusLine) {
    if (!parse_status_line(text)) {
      fail("malformed status line");
      return false;
    }
    state_ = State::kHeaders;
    return true;
  }
  if (text.empty()) return finish_headers();
  return parse_header(text);
}

bool ResponseParser::parse_status_line(std::string_view line) {
  // "HTTP/1.x SP DDD [SP reason]"
  if (line.size() < 12 || line.substr(0, 7) != "HTTP/1." || !is_digit(line[7]) || line[8] != ' ' ||
      !is_digit(line[9]) || !is_digit(line[10]) || !is_digit(line[11])) {
    return false;
  }
  if (line.size() > 12 && line[12] != ' ') return false;
  http10_ = line[7] == '0';
  status_ = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
  return status_ >= 100;
}

bool ResponseParser::parse_header(std::string_view line) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) {
    fail("malformed header line");
    return false;
  }
  const std::string_view name = line.substr(0, colon);
  // Only three headers matter; their lengths tell most others apart without a compare.
  switch (name.size()) {
    case 14:
      if (iequals(name, "content-length"))
        return parse_content_length(trim(line.substr(colon + 1)));
      break;
    case 17:
      if (iequals(name, "transfer-encoding")) {
        fail("Transfer-Encoding (chunked) responses are not supported");
        return false;
      }
      break;
    case 10:
      if (iequals(name, "connection")) {
        const std::string_view value = trim(line.substr(colon + 1));
        connection_close_ |= has_token(value, "close");
        connection_keep_alive_ |= has_token(value, "keep-alive");
      }
      break;
    default:
      break;
  }
  return true;
}

bool ResponseParser::parse_content_length(std::string_view value) {
  if (line_truncated_ || value.empty()) {
    fail("malformed Content-Length");
    return false;
  }
  uint64_t length = 0;
  for (char c : value) {
    if (!is_digit(c) || length > (UINT64_MAX - 9) / 10) {
      fail("malformed Content-Length");
      return false;
    }
    length = length * 10 + static_cast<uint64_t>(c - '0');
  }
  if (has_length_ && length != content_length_) {
    fail("conflicting Content-Length headers");
    return false;
  }
  has_length_ = true;
  content_length_ = length;
  return true;
}

bool ResponseParser::finish_headers() {
  if (status_ < 200) {
    // The worker never sends Expect, so an interim response is not part of the exchange.
    fail("unexpected 1xx response");
    return false;
  }
  keep_alive_ = http10_ ? (connection_keep_alive_ && !connection_close_) : !connection_close_;
  const bool no_body = status_ == 204 || status_ == 304 || no_bodies_;
  if (no_body) content_length_ = 0;
  if (!no_body && !has_length_) {
    fail("response without Content-Length (framing by close is not supported)");
    return false;
  }
  if (check_body_ && content_length_ != expected_body_.size()) body_matches_ = false;
  if (content_length_ == 0) {
    state_ = State::kDone;
  } else {
    state_ = State::kBody;
  }
  return true;
}

void ResponseParser::check_body(const char* data, size_t size) {
  if (!body_matches_) return;
  if (body_received_ + size > expected_body_.size() ||
      std::memcmp(data, expected_body_.data() + body_received_, size) != 0) {
    body_matches_ = false;
  }
}

}  // namespace benchgate::worker::http
