// The HTTP/2 client connection preface (RFC 9113 3.4), which a client with prior knowledge of
// h2c sends first on the router's HTTP port instead of an HTTP/1.1 request.
#pragma once

#include <cstdint>
#include <string_view>

namespace benchgate::router::http2 {

inline constexpr std::string_view kClientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

enum class PrefaceMatch : uint8_t {
  kNo,       // not HTTP/2: an HTTP/1.1 request (or garbage for the HTTP/1.1 parser)
  kPartial,  // every byte so far matches, the preface is not complete yet: read more
  kFull,     // starts with the whole preface
};

// What the first bytes of a connection say.
constexpr PrefaceMatch match_preface(std::string_view first_bytes) {
  const size_t n =
      first_bytes.size() < kClientPreface.size() ? first_bytes.size() : kClientPreface.size();
  if (first_bytes.substr(0, n) != kClientPreface.substr(0, n)) return PrefaceMatch::kNo;
  return n == kClientPreface.size() ? PrefaceMatch::kFull : PrefaceMatch::kPartial;
}

}  // namespace benchgate::router::http2
