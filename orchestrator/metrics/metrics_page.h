// The answer of the orchestrator's /metrics: the registry in Prometheus' text format
// (prometheus-cpp's TextSerializer), served by the orchestrator's HTTP listener
// (orchestrator/http_listener/http_listener.h).
#pragma once

#include "orchestrator/http_listener/exchange.h"

namespace prometheus {
class Registry;
}  // namespace prometheus

namespace benchgate::metrics {

// GET or HEAD /metrics: 200 and every family of `registry` that has a series; another method
// there: 405 with `Allow: GET, HEAD`; any other path: 404.
http_listener::Answer metrics_page(const http_listener::Request& request,
                                   prometheus::Registry& registry);

}  // namespace benchgate::metrics
