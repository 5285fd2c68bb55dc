// A point-in-time view of every router metric, summed over the serving threads, plus the
// process's CPU time and RSS. The domain form of RouterControl.GetMetrics.
#pragma once

#include <cstdint>

#include "common/histogram/hdr_histogram.h"
#include "common/process/process_stats.h"
#include "router/metrics/http_counters.h"

namespace benchgate::router::metrics {

struct Snapshot {
  int64_t taken_at_unix_ns = 0;
  HttpCounters counters;
  int64_t connections_open = 0;
  HdrHistogram handling;
  CpuTimes cpu;
  uint64_t rss_bytes = 0;
};

}  // namespace benchgate::router::metrics
