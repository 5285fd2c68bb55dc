// The one HTTP/2 request every stream of a workload repeats, built once per workload: the header
// list handed to nghttp2 (names and values point into this object, which outlives every
// session) and the request body.
#pragma once

#include <nghttp2/nghttp2.h>

#include <string>
#include <vector>

#include "worker/engine/workload.h"

namespace benchgate::worker::http2 {

class RequestHeaders {
 public:
  // `authority`: spec.host or the address; `tls`: https.
  RequestHeaders(const HttpRequestSpec& spec, const std::string& authority, bool tls);
  RequestHeaders(const RequestHeaders&) = delete;
  RequestHeaders& operator=(const RequestHeaders&) = delete;

  const nghttp2_nv* nva() const { return nva_.data(); }
  size_t size() const { return nva_.size(); }
  const std::string& body() const { return body_; }

 private:
  std::vector<std::pair<std::string, std::string>> fields_;  // lower-case names
  std::vector<nghttp2_nv> nva_;
  std::string body_;
};

}  // namespace benchgate::worker::http2
