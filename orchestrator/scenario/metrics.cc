// The gate metric catalogue.
#include "orchestrator/scenario/metrics.h"

#include <string>

#include "common/workload/adapter_limits.h"

namespace benchgate::scenario {
namespace {

struct MetricInfo {
  std::string_view name;
  MetricKind kind;
  bool higher_is_worse;
};

constexpr MetricInfo kMetrics[] = {
    {"throughput.rps", MetricKind::kNumber, false},
    {"throughput.bytes_per_s", MetricKind::kBytes, false},
    {"latency.p50", MetricKind::kDuration, true},
    {"latency.p75", MetricKind::kDuration, true},
    {"latency.p90", MetricKind::kDuration, true},
    {"latency.p95", MetricKind::kDuration, true},
    {"latency.p99", MetricKind::kDuration, true},
    {"latency.p999", MetricKind::kDuration, true},
    {"latency.max", MetricKind::kDuration, true},
    {"latency.mean", MetricKind::kDuration, true},
    {"errors.count", MetricKind::kNumber, true},
    {"errors.rate", MetricKind::kRatio, true},
    {"router.cpu_per_request", MetricKind::kDuration, true},
    {"router.rss_bytes", MetricKind::kBytes, true},
    {"worker.cpu_utilization", MetricKind::kRatio, true},
    // Connection setup (docs/MEASUREMENT.md, "Connections and TLS").
    {"connect.p99", MetricKind::kDuration, true},
    {"tls_handshake.p99", MetricKind::kDuration, true},
    {"ttfb.p99", MetricKind::kDuration, true},
    {"handshakes.rate", MetricKind::kNumber, false},
    // WAMP: TCP connect to WELCOME (docs/MEASUREMENT.md, "Session establishment").
    {"session_setup.p99", MetricKind::kDuration, true},
};

const MetricInfo* find(std::string_view name) {
  for (const MetricInfo& m : kMetrics) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

}  // namespace

const std::vector<std::string_view>& metric_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out;
    for (const MetricInfo& m : kMetrics) out.push_back(m.name);
    return out;
  }();
  return names;
}

std::optional<MetricKind> metric_kind(std::string_view name) {
  const MetricInfo* m = find(name);
  if (!m) return std::nullopt;
  return m->kind;
}

bool metric_higher_is_worse(std::string_view name) {
  const MetricInfo* m = find(name);
  return m ? m->higher_is_worse : true;
}

std::string unmeasurable_reason(std::string_view metric, const Workload& workload) {
  if (metric == "tls_handshake.p99" && !workload.tls.enabled) {
    return "it is cleartext, so no connection makes a TLS handshake (tls = true asks for TLS)";
  }
  if (metric == "session_setup.p99" && is_http(workload.protocol)) {
    return std::string("it is a WAMP figure and the workload is ") + to_string(workload.protocol);
  }
  // new_connection_per_request, which this figure needs, is an HTTP key (workload_section.cc):
  // a WAMP workload is told so rather than to set a key its protocol refuses.
  if (metric == "handshakes.rate" && !is_http(workload.protocol)) {
    return std::string(
               "it is an HTTP figure (with new_connection_per_request = true) and the "
               "workload is ") +
           to_string(workload.protocol);
  }
  if (metric == "handshakes.rate" && !workload.new_connection_per_request) {
    return "the workload keeps its connections; it needs new_connection_per_request = true";
  }
  return "";
}

std::string bundled_worker_unmeasurable_reason(std::string_view metric, const Workload& workload) {
  if (is_http(workload.protocol)) return "";
  // The bundled worker's WAMP sessions report no connection setup (worker/engine/engine.cc:
  // only the HTTP drivers do), only session_setup.
  std::string which;
  if (metric == "connect.p99") which = "HTTP workloads (http1, http2)";
  if (metric == "tls_handshake.p99") which = "HTTP workloads with tls = true";
  if (metric == "ttfb.p99") which = "HTTP workloads (http1, http2)";
  if (which.empty()) return "";
  return std::string("it is ") + to_string(workload.protocol) +
         " run by the bundled worker, which times a WAMP session's setup only as a whole "
         "(session_setup.p99: TCP connect to WELCOME); " +
         std::string(metric) + " is measured for " + which +
         ", and for a workload whose [worker_impls] program reports connection setup";
}

std::string adapter_unmeasurable_reason(std::string_view metric, std::string_view adapter,
                                        std::string_view worker) {
  const std::string runs = "it is run by worker '" + std::string(worker) + "', the " +
                           std::string(adapter) + " adapter, ";
  const std::string others = "the bundled worker and a [worker_impls] program";
  // Neither tool reports connection setup (worker/adapters/tool_session.cc: a window result
  // has no setup figures).
  if (metric == "connect.p99" || metric == "tls_handshake.p99" || metric == "ttfb.p99") {
    return runs + "which reports no connection setup; " + std::string(metric) + " is measured by " +
           others + " that reports it";
  }
  // Nor the connections it sets up: a tool keeps its connections (common/workload/
  // adapter_limits.h refuses new_connection_per_request), and its window result counts no
  // handshakes.
  if (metric == "handshakes.rate") {
    return runs +
           "which keeps its connections and counts no handshakes (it runs no "
           "new_connection_per_request); handshakes.rate is measured by " +
           others + " that reports connection setup";
  }
  const bool percentile = metric.starts_with("latency.p");
  // wrk's summary script prints these (worker/adapters/wrk_output.cc), h2load none
  // (worker/adapters/h2load_output.cc: min, max, mean and sd of its request times).
  if (percentile && adapter == "wrk" && metric != "latency.p50" && metric != "latency.p75" &&
      metric != "latency.p90" && metric != "latency.p99" && metric != "latency.p999") {
    return runs +
           "which prints latency at p50, p75, p90, p99 and p99.9 only (and its mean and "
           "max); " +
           std::string(metric) + " is measured by " + others;
  }
  if (percentile && adapter == "h2load") {
    return runs +
           "which prints no latency percentile (only the min, max, mean and standard "
           "deviation of its request times: latency.max and latency.mean); " +
           std::string(metric) + " is measured by " + others;
  }
  return "";
}

std::string adapter_error_count_reason(std::string_view metric, std::string_view adapter,
                                       std::string_view worker, bool body_length_checked) {
  if (metric != "errors.count" && metric != "errors.rate") return "";
  const auto tool = adapter_limits::tool_named(adapter);
  if (!tool) return "";
  std::string kinds;
  for (std::string_view kind : adapter_limits::unmeasured_error_kinds(*tool, body_length_checked)) {
    kinds += (kinds.empty() ? "" : " and ") + std::string(kind);
  }
  if (kinds.empty()) return "";
  return "it is run by worker '" + std::string(worker) + "', the " + std::string(adapter) +
         " adapter, which cannot detect errors of kind " + kinds + ", so " + std::string(metric) +
         " would count a lower bound, which a gate cannot pass on; " + std::string(metric) +
         " is measured by the bundled worker and a [worker_impls] program";
}

std::string external_router_unmeasurable_reason(std::string_view metric, std::string_view section) {
  if (metric != "router.cpu_per_request" && metric != "router.rss_bytes") return "";
  return "its system under test is " + std::string(section) +
         " impl = \"external\", whose CPU and memory benchgate does not sample (it samples only "
         "a process it started); " +
         std::string(metric) + " is measured for impl = \"builtin\" and impl = \"command\"";
}

}  // namespace benchgate::scenario
