// Everything one serving thread measures: counters, the open-connections gauge and the
// server-side handling-time histogram. Only the owning thread touches it; other threads read
// or reset it by posting work to that thread's io_context.
#pragma once

#include <cstdint>

#include "common/histogram/hdr_histogram.h"
#include "router/metrics/http_counters.h"
#include "router/metrics/tls_counters.h"

namespace benchgate::router::metrics {

struct ThreadStats {
  HttpCounters counters;
  // A gauge: connections of this thread open now. Reset leaves it alone.
  int64_t connections_open = 0;
  // A gauge: connections of this thread holding their read buffer between requests
  // (--read-buffer-hold, router/http/read_hold.h). Reset leaves it alone.
  int64_t read_buffers_held = 0;
  // Parsed-to-written time of each request, nanoseconds.
  HdrHistogram handling;
  // TLS handshakes of this thread's connections (a listener with a certificate only).
  TlsCounters tls;

  // Zeroes the counters and the histogram (not the gauges).
  void reset() {
    counters = HttpCounters{};
    tls = TlsCounters{};
    handling.reset();
  }
};

}  // namespace benchgate::router::metrics
