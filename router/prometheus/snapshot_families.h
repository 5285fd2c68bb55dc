// The router's metrics snapshot as Prometheus metric families (what its /metrics serves):
// benchgate_router_http_* counters and gauges, plus the conventional process_* families.
#pragma once

#include <vector>

#include <prometheus/metric_family.h>

#include "router/metrics/snapshot.h"

namespace benchgate::router::prometheus_export {

std::vector<prometheus::MetricFamily> to_families(const metrics::Snapshot& snapshot);

}  // namespace benchgate::router::prometheus_export
