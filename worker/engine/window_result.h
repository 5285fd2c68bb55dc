// What the engine reports about a window: the whole-window result and the interval progress
// figures. Domain types; worker/service/proto_convert turns them into benchgate.v1 messages.
#pragma once

#include <cstdint>

#include "common/histogram/hdr_histogram.h"
#include "worker/engine/error_kind.h"

namespace benchgate::worker {

struct WindowResult {
  uint32_t window = 0;
  bool open_loop = false;
  uint64_t operations = 0;  // requests sent in the window that completed (response or error)
  uint64_t successes = 0;
  // Failed operations by kind, plus connection-level failures that belong to no operation
  // ("connect" when a reconnect fails, "protocol" for bytes nobody asked for).
  ErrorCounts errors{};
  uint64_t bytes_sent = 0;
  uint64_t bytes_received = 0;
  int64_t first_send_unix_ns = 0;  // 0: nothing was sent
  int64_t last_receive_unix_ns = 0;
  HdrHistogram latency;
  HdrHistogram service_time;  // open loop only
  uint64_t late_sends = 0;    // open loop only
  uint64_t unsent = 0;        // open loop only
  int64_t cpu_user_ns = 0;
  int64_t cpu_system_ns = 0;
  int64_t wall_ns = 0;
  uint32_t threads = 0;
  bool pubsub = false;  // WAMP pub/sub: the event counts below are meaningful
  uint64_t events_expected = 0;
  uint64_t events_delivered = 0;
};

// Figures of one progress interval of a running window.
struct ProgressReport {
  uint32_t window = 0;
  int64_t interval_ns = 0;
  uint64_t operations = 0;
  uint64_t errors = 0;
  HdrHistogram latency;
};

}  // namespace benchgate::worker
