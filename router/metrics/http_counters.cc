// Summing of per-thread HTTP counters (see http_counters.h).
#include "router/metrics/http_counters.h"

namespace benchgate::router::metrics {

void Http2Counters::add(const Http2Counters& other) {
  connections += other.connections;
  streams += other.streams;
  streams_refused += other.streams_refused;
  client_resets += other.client_resets;
  rapid_reset_closes += other.rapid_reset_closes;
  continuation_flood_closes += other.continuation_flood_closes;
  header_list_closes += other.header_list_closes;
  protocol_error_closes += other.protocol_error_closes;
  flow_control_resets += other.flow_control_resets;
  flow_control_closes += other.flow_control_closes;
}

uint64_t HttpCounters::total_requests() const {
  uint64_t total = 0;
  for (const auto& by_status : requests) {
    for (uint64_t count : by_status) total += count;
  }
  return total;
}

void HttpCounters::add(const HttpCounters& other) {
  connections_accepted += other.connections_accepted;
  bytes_received += other.bytes_received;
  bytes_sent += other.bytes_sent;
  parse_errors += other.parse_errors;
  timed_out += other.timed_out;
  h2.add(other.h2);
  for (size_t r = 0; r < requests.size(); ++r) {
    for (size_t s = 0; s < requests[r].size(); ++s) requests[r][s] += other.requests[r][s];
  }
}

}  // namespace benchgate::router::metrics
