// Summing of per-thread HTTP counters (see http_counters.h).
#include "router/metrics/http_counters.h"

namespace benchgate::router::metrics {

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
  for (size_t r = 0; r < requests.size(); ++r) {
    for (size_t s = 0; s < requests[r].size(); ++s) requests[r][s] += other.requests[r][s];
  }
}

}  // namespace benchgate::router::metrics
