// Metric name -> SQL expressions (metric_columns.h).
#include "orchestrator/store/metric_columns.h"

namespace benchgate::store {
namespace {

struct MetricColumn {
  std::string_view metric;
  std::string_view expression;
  std::string_view nothing_to_measure = "0";
};

// Whether the workers of the row's workload time connection setup: some repetition of it set
// up a connection (the first measured window counts those of the warm-up too).
#define TIMES_CONNECTIONS_SQL                                             \
  "EXISTS (SELECT 1 FROM repetitions AS timed WHERE timed.workload_id = " \
  "repetitions.workload_id AND timed.connections > 0)"

constexpr MetricColumn kColumns[] = {
    {"throughput.rps", "ops_per_s"},
    {"throughput.bytes_per_s", "bytes_per_s"},
    // Latency is of successes only: a repetition that completed none (every request answered
    // 500) has nothing to measure (results::Repetition::has_latency_to_measure).
    {"latency.p50", "p50_ns / 1e9", "successes = 0"},
    {"latency.p75", "p75_ns / 1e9", "successes = 0"},
    {"latency.p90", "p90_ns / 1e9", "successes = 0"},
    {"latency.p95", "p95_ns / 1e9", "successes = 0"},
    {"latency.p99", "p99_ns / 1e9", "successes = 0"},
    {"latency.p999", "p999_ns / 1e9", "successes = 0"},
    {"latency.max", "max_ns / 1e9", "successes = 0"},
    {"latency.mean", "mean_ns / 1e9", "successes = 0"},
    {"errors.count", "CAST(errors_total AS REAL)"},
    {"errors.rate", "CASE WHEN operations > 0 THEN CAST(errors_total AS REAL) / operations END"},
    // Repetition::router_cpu_per_request: over the router's count, else the workers'.
    {"router.cpu_per_request",
     "CASE WHEN router_requests > 0 THEN router_cpu_s / router_requests "
     "WHEN router_requests IS NULL AND operations > 0 THEN router_cpu_s / operations END"},
    {"router.rss_bytes", "CAST(router_rss_bytes AS REAL)"},
    {"worker.cpu_utilization", "worker_cpu_utilization"},
    // A repetition whose workers reported their setups but set up none of this kind (the
    // connections were made before an earlier window; a cleartext one has no TLS handshake)
    // has nothing to measure, where its workload's workers time connections at all (some
    // repetition of it set one up: TIMES_CONNECTIONS_SQL). `connections` is NULL when a worker did
    // not report setups; the bundled worker's WAMP over TLS reports its TLS handshakes only,
    // `connections` 0 in every repetition, so its figures are not measured, as cleartext WAMP's
    // (which reports no setup) are (results::metric_values_by_repetition).
    {"connect.p99", "connect_p99_ns / 1e9",
     "connections IS NOT NULL AND connect_p99_ns IS NULL AND " TIMES_CONNECTIONS_SQL},
    {"tls_handshake.p99", "tls_handshake_p99_ns / 1e9",
     "connections IS NOT NULL AND tls_handshake_p99_ns IS NULL AND " TIMES_CONNECTIONS_SQL},
    {"ttfb.p99", "ttfb_p99_ns / 1e9",
     "connections IS NOT NULL AND ttfb_p99_ns IS NULL AND " TIMES_CONNECTIONS_SQL},
    // Stored for new_connection_per_request workloads only (NULL otherwise).
    {"handshakes.rate", "window_connections * 1e9 / duration_ns"},
    // WAMP workloads only (NULL otherwise). A repetition that set up no session (they were kept
    // from before) has nothing to measure; `sessions` is NULL when a worker did not report them.
    {"session_setup.p99", "session_setup_p99_ns / 1e9", "sessions = 0"},
};

#undef TIMES_CONNECTIONS_SQL

}  // namespace

std::optional<MetricSql> metric_sql(std::string_view metric) {
  for (const MetricColumn& c : kColumns) {
    if (c.metric == metric) return MetricSql{c.expression, c.nothing_to_measure};
  }
  return std::nullopt;
}

std::vector<std::string_view> stored_metric_names() {
  std::vector<std::string_view> names;
  for (const MetricColumn& c : kColumns) names.push_back(c.metric);
  return names;
}

}  // namespace benchgate::store
