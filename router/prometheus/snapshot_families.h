// The router's metrics snapshot as Prometheus metric families (what its /metrics serves):
// benchgate_router_http_*, benchgate_router_wamp_* and benchgate_router_tls_* counters and
// gauges (the WAMP and TLS ones from the same counters RouterControl.GetMetrics reports), plus
// the conventional process_* families.
#pragma once

#include <vector>

#include <prometheus/metric_family.h>

#include "router/metrics/snapshot.h"

namespace benchgate::router::prometheus_export {

std::vector<prometheus::MetricFamily> to_families(const metrics::Snapshot& snapshot);

}  // namespace benchgate::router::prometheus_export
