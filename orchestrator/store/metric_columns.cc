// Metric name -> SQL expression (metric_columns.h).
#include "orchestrator/store/metric_columns.h"

namespace benchgate::store {
namespace {

struct MetricColumn {
  std::string_view metric;
  std::string_view expression;
};

constexpr MetricColumn kColumns[] = {
    {"throughput.rps", "ops_per_s"},
    {"throughput.bytes_per_s", "bytes_per_s"},
    {"latency.p50", "p50_ns / 1e9"},
    {"latency.p75", "p75_ns / 1e9"},
    {"latency.p90", "p90_ns / 1e9"},
    {"latency.p95", "p95_ns / 1e9"},
    {"latency.p99", "p99_ns / 1e9"},
    {"latency.p999", "p999_ns / 1e9"},
    {"latency.max", "max_ns / 1e9"},
    {"latency.mean", "mean_ns / 1e9"},
    {"errors.count", "CAST(errors_total AS REAL)"},
    {"errors.rate", "CASE WHEN operations > 0 THEN CAST(errors_total AS REAL) / operations END"},
    // Repetition::router_cpu_per_request: over the router's count, else the workers'.
    {"router.cpu_per_request",
     "CASE WHEN router_requests > 0 THEN router_cpu_s / router_requests "
     "WHEN router_requests IS NULL AND operations > 0 THEN router_cpu_s / operations END"},
    {"router.rss_bytes", "CAST(router_rss_bytes AS REAL)"},
    {"worker.cpu_utilization", "worker_cpu_utilization"},
    {"connect.p99", "connect_p99_ns / 1e9"},
    {"tls_handshake.p99", "tls_handshake_p99_ns / 1e9"},
    {"ttfb.p99", "ttfb_p99_ns / 1e9"},
    // Stored for new_connection_per_request workloads only (NULL otherwise).
    {"handshakes.rate", "window_connections * 1e9 / duration_ns"},
    // WAMP workloads only (NULL otherwise).
    {"session_setup.p99", "session_setup_p99_ns / 1e9"},
};

}  // namespace

std::optional<std::string_view> metric_sql_expression(std::string_view metric) {
  for (const MetricColumn& c : kColumns) {
    if (c.metric == metric) return c.expression;
  }
  return std::nullopt;
}

std::vector<std::string_view> stored_metric_names() {
  std::vector<std::string_view> names;
  for (const MetricColumn& c : kColumns) names.push_back(c.metric);
  return names;
}

}  // namespace benchgate::store
