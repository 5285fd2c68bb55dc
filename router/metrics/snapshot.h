// A point-in-time view of every router metric, summed over the serving threads, plus the
// process's CPU time and RSS. The domain form of RouterControl.GetMetrics.
#pragma once

#include <array>
#include <cstdint>

#include "common/histogram/hdr_histogram.h"
#include "common/process/process_stats.h"
#include "router/memory/buffer_budget.h"
#include "router/metrics/http_counters.h"
#include "router/metrics/tls_counters.h"
#include "router/metrics/wamp_counters.h"

namespace benchgate::router::metrics {

struct Snapshot {
  int64_t taken_at_unix_ns = 0;
  HttpCounters counters;
  int64_t connections_open = 0;
  // HTTP/1.1 connections holding their read buffer between requests now (a gauge).
  int64_t read_buffers_held = 0;
  HdrHistogram handling;
  // The WAMP router's counters and gauges; reported only when it runs (wamp_present).
  bool wamp_present = false;
  WampCounters wamp;
  int64_t wamp_sessions = 0;
  std::array<int64_t, kWampTransports> wamp_connections_open{};
  // The buffered-bytes budget (--max-buffered-bytes), when the router has one: bytes
  // reserved now (a gauge), the limit, and the refusals by transport (counters).
  bool budget_present = false;
  uint64_t buffered_bytes = 0;
  uint64_t buffered_bytes_limit = 0;
  std::array<uint64_t, memory::kBudgetUsers> budget_refusals{};
  // TLS handshakes by listener; reported only when the listeners have a certificate.
  bool tls_present = false;
  TlsCountersByListener tls{};
  CpuTimes cpu;
  uint64_t rss_bytes = 0;
  int64_t inject_work_ns = 0;  // --inject-work-ns: busy work per request and call (0: none)
};

}  // namespace benchgate::router::metrics
