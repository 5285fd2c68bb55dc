// The counters and histograms one load thread fills during a window. Only its own thread
// touches them while the window runs (wrk's one-thread-one-loop design), so nothing here is
// atomic; the engine takes them over by swapping at progress ticks and at the window's end.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "common/histogram/hdr_histogram.h"
#include "worker/engine/error_kind.h"
#include "worker/engine/session_end.h"

namespace benchgate::worker {

struct ThreadStats {
  uint64_t operations = 0;
  uint64_t successes = 0;
  ErrorCounts errors{};
  uint64_t bytes_sent = 0;
  uint64_t bytes_received = 0;
  // What completed (was read) before the window's end: throughput is counted over the window
  // (docs/MEASUREMENT.md "Throughput"); what completes in the drain is in the totals above.
  int64_t window_end_ns = 0;  // steady clock; set by the load thread at each window
  uint64_t window_successes = 0;
  uint64_t window_bytes_received = 0;
  uint64_t window_payload_bytes = 0;  // payload bytes of window_successes' responses
  // Connections set up (TCP connect, TLS handshake, HTTP/2 SETTINGS) between the window's
  // start and end: new_connection_per_request's handshakes per second.
  uint64_t window_connections = 0;
  int64_t first_send_ns = std::numeric_limits<int64_t>::max();  // steady clock; max: none
  int64_t last_receive_ns = 0;                                  // steady clock; 0: none
  HdrHistogram latency;
  HdrHistogram service_time;
  uint64_t late_sends = 0;
  uint64_t unsent = 0;
  // The thread's own view of the window (its start to its end, the drain excluded): when it
  // started sending, its CPU time and how long it waited for a CPU (-1: not measured).
  int64_t started_ns = 0;  // steady clock; 0: the window never started
  int64_t window_wall_ns = 0;
  int64_t window_cpu_ns = 0;
  int64_t window_run_delay_ns = -1;
  // wamp_transfer: the rates' parts (WindowResult::Transfer).
  uint64_t transfers = 0;
  uint64_t transfer_data_bytes = 0;
  int64_t transfer_data_ns = 0;
  uint64_t transfer_lifecycle_bytes = 0;
  int64_t transfer_lifecycle_ns = 0;
  // The sessions the peer ended in the window, by its words (worker/engine/session_end.h).
  std::vector<SessionEnd> sessions_ended;

  // Since the previous progress tick.
  uint64_t interval_operations = 0;
  uint64_t interval_errors = 0;
  HdrHistogram interval_latency;

  void reset() {
    operations = successes = 0;
    errors = {};
    bytes_sent = bytes_received = 0;
    window_successes = window_bytes_received = window_payload_bytes = 0;
    window_connections = 0;
    first_send_ns = std::numeric_limits<int64_t>::max();
    last_receive_ns = 0;
    latency.reset();
    service_time.reset();
    late_sends = unsent = 0;
    started_ns = window_wall_ns = window_cpu_ns = 0;
    window_run_delay_ns = -1;
    sessions_ended.clear();
    interval_operations = interval_errors = 0;
    interval_latency.reset();
  }

  // A success completed at `now` (steady clock) whose response carried `payload_bytes` of
  // payload. `for_progress`: also into the interval histogram (only when progress events
  // are on).
  void record_success(int64_t now, int64_t latency_ns, uint64_t payload_bytes, bool for_progress) {
    ++operations;
    ++successes;
    ++interval_operations;
    if (now < window_end_ns) {
      ++window_successes;
      window_payload_bytes += payload_bytes;
    }
    latency.record(latency_ns);
    if (for_progress) interval_latency.record(latency_ns);
  }
  // Bytes read from the wire at `now`.
  void count_received(uint64_t bytes, int64_t now) {
    bytes_received += bytes;
    if (now < window_end_ns) window_bytes_received += bytes;
  }
  void record_failure(ErrorKind kind) {
    ++operations;
    ++interval_operations;
    ++errors[static_cast<size_t>(kind)];
    ++interval_errors;
  }
  // A failure that belongs to no request (a reconnect that failed, bytes nobody asked for).
  void record_connection_error(ErrorKind kind) {
    ++errors[static_cast<size_t>(kind)];
    ++interval_errors;
  }
};

}  // namespace benchgate::worker
