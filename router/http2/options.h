// Settings of the router's HTTP/2 server (h2c with prior knowledge on the HTTP port), already
// parsed and validated (router/app/config.h). Every limit here is a defence, counted in
// metrics::Http2Counters when it bites.
#pragma once

#include <cstdint>

namespace benchgate::router::http2 {

struct Http2Options {
  // SETTINGS_MAX_CONCURRENT_STREAMS. A stream opened over it before the client acknowledged
  // our SETTINGS is refused with RST_STREAM REFUSED_STREAM (nghttp2 does that; counted as
  // streams_refused); after the acknowledgement nghttp2 treats it as a connection error.
  uint32_t max_concurrent_streams = 100;
  // SETTINGS_INITIAL_WINDOW_SIZE (each stream's receive window); the connection's window is
  // this times max_concurrent_streams (at most 2^31-1), so a bench route is never throttled.
  uint32_t initial_window_bytes = 16u << 20;
  // SETTINGS_MAX_HEADER_LIST_SIZE, and the bound of a request's decoded header list (names +
  // values + 32 each, as RFC 9113 counts) and of its header block on the wire: over either
  // (an oversize block, an HPACK bomb) -> GOAWAY ENHANCE_YOUR_CALM and close.
  uint32_t max_header_list_bytes = 64u << 10;
  // CONTINUATION frames after one HEADERS frame; more -> GOAWAY ENHANCE_YOUR_CALM and close.
  uint32_t max_continuations = 4;
  // Rapid reset (CVE-2023-44487): a bucket of `reset_burst` RST_STREAMs from the client,
  // refilled at `reset_rate_per_s`; a reset with the bucket empty -> GOAWAY ENHANCE_YOUR_CALM.
  uint32_t reset_burst = 200;
  uint32_t reset_rate_per_s = 100;
};

}  // namespace benchgate::router::http2
