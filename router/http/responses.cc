// Response serialisation (see responses.h).
#include "router/http/responses.h"

#include <charconv>

namespace benchgate::router::http {
namespace {

constexpr size_t kPatternPeriod = 26;
constexpr size_t kPatternBlockBytes = kPatternPeriod * 2520;  // just under 64 KiB

void append_number(std::string& out, uint64_t value) {
  char digits[24];
  const auto result = std::to_chars(digits, digits + sizeof(digits), value);
  out.append(digits, result.ptr);
}

std::string build_hello_response() {
  std::string out;
  append_head(out, 200, kHelloBody.size(), "text/plain", ConnectionHeader::kNone);
  out.append(kHelloBody);
  return out;
}

std::string build_pattern_block() {
  std::string block(kPatternBlockBytes, '\0');
  for (size_t i = 0; i < block.size(); ++i) block[i] = static_cast<char>('a' + i % kPatternPeriod);
  return block;
}

}  // namespace

void append_head(std::string& out, int status, uint64_t content_length,
                 std::string_view content_type, ConnectionHeader connection,
                 std::string_view allow) {
  out.append("HTTP/1.1 ");
  append_number(out, static_cast<uint64_t>(status));
  out.push_back(' ');
  out.append(reason_phrase(status));
  out.append("\r\nServer: benchgate-router\r\n");
  if (!content_type.empty()) {
    out.append("Content-Type: ");
    out.append(content_type);
    out.append("\r\n");
  }
  if (!allow.empty()) {
    out.append("Allow: ");
    out.append(allow);
    out.append("\r\n");
  }
  if (connection == ConnectionHeader::kClose) out.append("Connection: close\r\n");
  if (connection == ConnectionHeader::kKeepAlive) out.append("Connection: keep-alive\r\n");
  out.append("Content-Length: ");
  append_number(out, content_length);
  out.append("\r\n\r\n");
}

std::string_view hello_response() {
  static const std::string response = build_hello_response();
  return response;
}

void append_error(std::string& out, int status, ConnectionHeader connection,
                  std::string_view allow) {
  const std::string_view reason = reason_phrase(status);
  append_head(out, status, reason.size() + 1, "text/plain", connection, allow);
  out.append(reason);
  out.push_back('\n');
}

std::string_view pattern_block() {
  static const std::string block = build_pattern_block();
  return block;
}

void append_pattern(std::string& out, uint64_t n) {
  const std::string_view block = pattern_block();
  while (n > 0) {
    const size_t piece = n < block.size() ? static_cast<size_t>(n) : block.size();
    out.append(block.data(), piece);
    n -= piece;
  }
}

}  // namespace benchgate::router::http
