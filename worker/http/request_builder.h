// The request bytes, built once per workload: every connection writes the same bytes for
// every request, so the hot path copies nothing (docs/CONTRIBUTING.md, rule 9).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "worker/engine/workload.h"

namespace benchgate::worker::http {

// The deterministic body pattern of the proto: byte i is 'a' + i % 26.
std::string body_pattern(size_t size);

// One complete HTTP/1.1 request: request line, Host (spec.host or `default_host`), the extra
// headers, Content-Length when there is a body (or the method usually carries one), body.
// A Host among the extra headers replaces the default one.
std::string build_request(const HttpRequestSpec& spec, std::string_view default_host);

// `request` repeated `count` times back to back: writing the first k * request.size()
// bytes sends k pipelined requests in one system call.
std::string repeat_request(std::string_view request, size_t count);

}  // namespace benchgate::worker::http
