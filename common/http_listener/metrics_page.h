// The answer of a /metrics: metric families in Prometheus' text format (prometheus-cpp's
// TextSerializer), served by benchgate's HTTP listener (http_listener.h). One definition for
// the orchestrator's /metrics (its registry) and the router's (a snapshot's families), so they
// answer alike.
#pragma once

#include <prometheus/metric_family.h>

#include <functional>
#include <vector>

#include "common/http_listener/exchange.h"

namespace benchgate::http_listener {

// The families to serve, asked once per GET or HEAD of /metrics.
using CollectFamilies = std::function<std::vector<prometheus::MetricFamily>()>;

// GET or HEAD /metrics: 200 and every family `collect` gives; another method there: 405 with
// `Allow: GET, HEAD`; any other path: 404. `collect` is asked only for a 200.
Answer metrics_page(const Request& request, const CollectFamilies& collect);

}  // namespace benchgate::http_listener
