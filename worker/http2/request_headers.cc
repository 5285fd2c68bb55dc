#include "worker/http2/request_headers.h"

#include <algorithm>
#include <cctype>

#include "worker/http/request_builder.h"

namespace benchgate::worker::http2 {

RequestHeaders::RequestHeaders(const HttpRequestSpec& spec, const std::string& authority, bool tls)
    : body_(http::body_pattern(spec.request_body_bytes)) {
  std::string host = spec.host.empty() ? authority : spec.host;
  std::vector<std::pair<std::string, std::string>> extra;
  for (const auto& [name, value] : spec.headers) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    // HTTP/2 carries the host as :authority (RFC 9113 8.3.1); connection-specific fields are
    // not allowed at all (8.2.2).
    if (lower == "host") {
      host = value;
      continue;
    }
    if (lower == "connection" || lower == "keep-alive" || lower == "proxy-connection" ||
        lower == "upgrade" || lower == "te") {
      continue;
    }
    extra.emplace_back(std::move(lower), value);
  }
  fields_.emplace_back(":method", spec.method);
  fields_.emplace_back(":scheme", tls ? "https" : "http");
  fields_.emplace_back(":authority", host);
  fields_.emplace_back(":path", spec.target);
  for (auto& field : extra) fields_.push_back(std::move(field));
  if (!body_.empty() || spec.method == "POST" || spec.method == "PUT") {
    fields_.emplace_back("content-length", std::to_string(body_.size()));
  }
  // Pointers into fields_, which no longer changes.
  for (auto& [name, value] : fields_) {
    nva_.push_back(nghttp2_nv{reinterpret_cast<uint8_t*>(name.data()),
                              reinterpret_cast<uint8_t*>(value.data()), name.size(), value.size(),
                              NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE});
  }
}

}  // namespace benchgate::worker::http2
