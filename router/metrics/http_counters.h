// The router's HTTP counters as plain integers. Each serving thread owns one instance and is
// its only writer (no atomics, no sharing); snapshots are taken on the owning thread and
// summed with add() (see router/metrics/thread_stats.h).
#pragma once

#include <array>
#include <cstdint>

#include "router/http/routes.h"

namespace benchgate::router::metrics {

// Every status the router answers with; the "status" label of http_requests.
inline constexpr std::array<int, 9> kStatuses = {200, 400, 404, 405, 413, 431, 500, 501, 503};

// Index of `status` in kStatuses; a status not listed counts as 500 (never expected).
constexpr size_t status_slot(int status) {
  for (size_t i = 0; i < kStatuses.size(); ++i) {
    if (kStatuses[i] == status) return i;
  }
  return 6;
}
static_assert(kStatuses[status_slot(599)] == 500);

// HTTP/2 connections and the defences of router/http2/options.h. Requests that arrive over
// HTTP/2 are counted in HttpCounters::requests like HTTP/1.1 ones.
struct Http2Counters {
  uint64_t connections = 0;  // connections that sent the client preface (h2c)
  uint64_t streams = 0;      // request streams opened by clients
  // Streams over SETTINGS_MAX_CONCURRENT_STREAMS answered with RST_STREAM REFUSED_STREAM.
  uint64_t streams_refused = 0;
  // RST_STREAMs received from clients, and connections closed for resetting too fast.
  uint64_t client_resets = 0;
  uint64_t rapid_reset_closes = 0;
  // Connections closed for a header block of too many CONTINUATION frames, for a header block
  // or decoded header list over --h2-max-header-list-bytes.
  uint64_t continuation_flood_closes = 0;
  uint64_t header_list_closes = 0;
  // Connections nghttp2 ended with a GOAWAY for a protocol error of the client (other than a
  // flow-control one, below).
  uint64_t protocol_error_closes = 0;
  // Flow control (RFC 9113 6.9): streams nghttp2 reset with RST_STREAM FLOW_CONTROL_ERROR (a
  // WINDOW_UPDATE that took the router's send window of the stream past 2^31-1, or DATA over
  // the stream's receive window), and connections it ended with GOAWAY FLOW_CONTROL_ERROR (the
  // same on the connection's windows, or a SETTINGS_INITIAL_WINDOW_SIZE over 2^31-1).
  uint64_t flow_control_resets = 0;
  uint64_t flow_control_closes = 0;

  void add(const Http2Counters& other);
};

struct HttpCounters {
  uint64_t connections_accepted = 0;
  uint64_t bytes_received = 0;
  uint64_t bytes_sent = 0;
  // Requests the parser rejected (malformed, header too large, body too large); each is also
  // counted in `requests` with the status it was answered with.
  uint64_t parse_errors = 0;
  // Connections closed because the idle or header-read timeout expired.
  uint64_t timed_out = 0;
  Http2Counters h2;
  // Requests answered, by route and status slot.
  std::array<std::array<uint64_t, kStatuses.size()>, http::kRouteCount> requests{};

  void count_request(http::Route route, int status) {
    ++requests[static_cast<size_t>(route)][status_slot(status)];
  }
  uint64_t requests_for(http::Route route, int status) const {
    return requests[static_cast<size_t>(route)][status_slot(status)];
  }
  uint64_t total_requests() const;
  void add(const HttpCounters& other);
};

}  // namespace benchgate::router::metrics
