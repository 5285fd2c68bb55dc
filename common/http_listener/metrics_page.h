// The answer of a /metrics: metric families in Prometheus' text format (prometheus-cpp's
// TextSerializer), served by benchgate's HTTP listener (http_listener.h). One definition for
// the orchestrator's /metrics (its registry) and the router's (a snapshot's families), so they
// answer alike.
#pragma once

#include <prometheus/metric_family.h>

#include <functional>
#include <string_view>
#include <vector>

#include "common/http_listener/exchange.h"

namespace benchgate::http_listener {

// The families to serve, asked once per GET or HEAD of /metrics.
using CollectFamilies = std::function<std::vector<prometheus::MetricFamily>()>;

// The content type of Prometheus' text exposition format, version 0.0.4 (what
// prometheus-cpp's TextSerializer writes): a scraper reads the format from the version.
inline constexpr std::string_view kExpositionContentType =
    "text/plain; version=0.0.4; charset=utf-8";

// GET or HEAD /metrics: 200 and every family `collect` gives, as kExpositionContentType;
// another method there: 405 with `Allow: GET, HEAD`; any other path: 404 (both plain text,
// no exposition). `collect` is asked only for a 200.
Answer metrics_page(const Request& request, const CollectFamilies& collect);

}  // namespace benchgate::http_listener
