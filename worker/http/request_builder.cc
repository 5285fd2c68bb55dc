#include "worker/http/request_builder.h"

#include <cctype>

namespace benchgate::worker::http {
namespace {

bool iequals(std::string_view a, std::string_view lower) {
  if (a.size() != lower.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != lower[i]) return false;
  }
  return true;
}

bool method_has_body(std::string_view method) {
  return method == "POST" || method == "PUT" || method == "PATCH";
}

}  // namespace

std::string body_pattern(size_t size) {
  std::string body(size, '\0');
  for (size_t i = 0; i < size; ++i) body[i] = static_cast<char>('a' + i % 26);
  return body;
}

std::string build_request(const HttpRequestSpec& spec, std::string_view default_host) {
  std::string out;
  out.reserve(128 + spec.request_body_bytes);
  out.append(spec.method).append(" ").append(spec.target).append(" HTTP/1.1\r\n");
  bool host_given = false;
  for (const auto& [name, value] : spec.headers) host_given |= iequals(name, "host");
  if (!host_given) {
    out.append("Host: ").append(spec.host.empty() ? default_host : spec.host).append("\r\n");
  }
  for (const auto& [name, value] : spec.headers) {
    out.append(name).append(": ").append(value).append("\r\n");
  }
  if (spec.request_body_bytes > 0 || method_has_body(spec.method)) {
    out.append("Content-Length: ").append(std::to_string(spec.request_body_bytes)).append("\r\n");
  }
  out.append("\r\n");
  out.append(body_pattern(spec.request_body_bytes));
  return out;
}

std::string repeat_request(std::string_view request, size_t count) {
  std::string out;
  out.reserve(request.size() * count);
  for (size_t i = 0; i < count; ++i) out.append(request);
  return out;
}

}  // namespace benchgate::worker::http
