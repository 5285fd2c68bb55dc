#include "orchestrator/results/results.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "common/util/joined_with_and.h"

namespace benchgate::results {
namespace {

Spread spread_of(std::vector<double> values) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  const double median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  return {median, values.front(), values.back()};
}

double seconds(int64_t ns) { return static_cast<double>(ns) / 1e9; }

// Without in-window counts (a worker that predates them), throughput is counted over the
// data window, or the configured window when the workers could not measure the data window.
int64_t span_ns(const Repetition& rep) {
  if (rep.data_window_ns > 0) return rep.data_window_ns;
  return rep.measured("data_window") ? 0 : rep.duration_ns;
}

double per_second(uint64_t count, int64_t ns) {
  return ns > 0 ? static_cast<double>(count) / seconds(ns) : 0;
}

std::optional<double> median_of(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  return spread_of(std::move(values)).median;
}

}  // namespace

std::string count_text(uint64_t count) {
  const std::string digits = std::to_string(count);
  return count_capped(count) ? "at least " + digits : digits;
}

std::string percentile_key(double percentile) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", percentile);
  return text;
}

// Each kind's count fits uint64, their sum need not (a stored run's kinds are not checked as a
// window's are): it stops at UINT64_MAX, as the store's errors_total and runs show's cell do.
uint64_t Repetition::error_count() const {
  uint64_t total = 0;
  for (const auto& [kind, count] : errors) total = saturated_sum(total, count);
  return total;
}

double Repetition::ops_per_second() const {
  if (in_window) return per_second(window_successes, duration_ns);
  return per_second(successes, span_ns(*this));
}

double Repetition::bytes_per_second() const {
  if (in_window) return per_second(window_bytes_received, duration_ns);
  return per_second(bytes_received, span_ns(*this));
}

std::optional<double> Repetition::payload_bytes_per_second() const {
  if (!in_window || !measured("payload_bytes")) return std::nullopt;
  return per_second(window_payload_bytes, duration_ns);
}

std::optional<int64_t> Repetition::max_start_skew_ns() const {
  if (worker_start_skew_ns.empty()) return stored_max_start_skew_ns;
  int64_t max = 0;
  for (int64_t skew : worker_start_skew_ns) {
    if (std::abs(skew) > std::abs(max)) max = skew;
  }
  return max;
}

bool Repetition::has_latency_to_measure() const { return successes > 0; }

const ToolLatency* Repetition::tool_latency_of_successes() const {
  // A tool times its failed requests too (h2load does): a window without a success has figures
  // that are not latency of successes, so none (as WorkloadResult's summary skips it).
  if (!tool_latency || !has_latency_to_measure()) return nullptr;
  return &*tool_latency;
}

std::optional<int64_t> Repetition::latency_at(double percentile) const {
  if (latency.total_count() > 0) {
    return percentile >= 100 ? latency.max() : latency.value_at_percentile(percentile);
  }
  const ToolLatency* tool = tool_latency_of_successes();
  if (!tool) return std::nullopt;
  if (percentile >= 100) return tool->max_ns;
  // Only a percentile the tool printed: interpolating between two printed ones would invent it.
  auto it = tool->percentiles_ns.find(percentile_key(percentile));
  if (it == tool->percentiles_ns.end()) return std::nullopt;
  return it->second;
}

std::optional<int64_t> Repetition::worker_latency_at(size_t worker, double percentile) const {
  if (worker >= workers.size()) return std::nullopt;
  const WorkerShare& share = workers[worker];
  std::optional<int64_t> own;
  if (percentile >= 100) {
    own = share.max_ns;
  } else if (percentile == 99) {
    own = share.p99_ns;
  } else if (percentile == 50) {
    own = share.p50_ns;
  }
  if (own) return own;
  // The only worker's tool figures are its own; latency_at gives them by the one rule.
  if (workers.size() != 1 || !tool_latency_of_successes()) return std::nullopt;
  if (percentile != 50 && percentile != 99 && percentile < 100) return std::nullopt;
  return latency_at(percentile);
}

std::optional<double> Repetition::latency_mean() const {
  if (latency.total_count() > 0) return latency.mean();
  const ToolLatency* tool = tool_latency_of_successes();
  if (tool && tool->mean_ns) return static_cast<double>(*tool->mean_ns);
  return std::nullopt;
}

std::optional<double> Repetition::router_cpu_per_request() const {
  if (!router.sampled) return std::nullopt;
  const uint64_t requests = router.collected ? router.requests : operations;
  if (requests == 0) return std::nullopt;
  return router.cpu_seconds / static_cast<double>(requests);
}

Spread WorkloadResult::ops_per_second() const {
  std::vector<double> values;
  for (const auto& rep : repetitions) values.push_back(rep.ops_per_second());
  return spread_of(std::move(values));
}

Spread WorkloadResult::bytes_per_second() const {
  std::vector<double> values;
  for (const auto& rep : repetitions) values.push_back(rep.bytes_per_second());
  return spread_of(std::move(values));
}

std::optional<Spread> WorkloadResult::payload_bytes_per_second() const {
  if (repetitions.empty()) return std::nullopt;
  std::vector<double> values;
  for (const auto& rep : repetitions) {
    auto value = rep.payload_bytes_per_second();
    if (!value) return std::nullopt;
    values.push_back(*value);
  }
  return spread_of(std::move(values));
}

uint64_t WorkloadResult::error_count() const {
  uint64_t total = 0;
  for (const auto& rep : repetitions) total = saturated_sum(total, rep.error_count());
  return total;
}

void WorkloadResult::merge_latency() {
  latency.reset();
  for (const auto& rep : repetitions) {
    if (!latency.add(rep.latency)) {
      latency.reset();
      return;
    }
  }
}

std::map<std::string, uint64_t> WorkloadResult::error_kinds() const {
  std::map<std::string, uint64_t> sums;
  for (const auto& rep : repetitions) {
    for (const auto& [kind, count] : rep.errors) sums[kind] = saturated_sum(sums[kind], count);
  }
  return sums;
}

std::vector<std::string> ordered_flags(std::vector<std::string> flags) {
  static constexpr std::string_view kOrder[] = {
      "worker_saturated", "worker_cpu_starved", "start_skew",
      "latency_clamped",  "throughput_span",    "router_count_mismatch",
      "rate_not_kept",    kProcessStopped,      kDegraded};
  const auto rank = [](const std::string& flag) {
    return static_cast<size_t>(std::find(std::begin(kOrder), std::end(kOrder), flag) -
                               std::begin(kOrder));
  };
  std::sort(flags.begin(), flags.end(), [&](const std::string& a, const std::string& b) {
    const size_t ra = rank(a), rb = rank(b);
    return ra != rb ? ra < rb : a < b;
  });
  flags.erase(std::unique(flags.begin(), flags.end()), flags.end());
  return flags;
}

std::vector<std::string> WorkloadResult::flags() const {
  std::set<std::string> all;
  for (const auto& rep : repetitions) all.insert(rep.flags.begin(), rep.flags.end());
  return ordered_flags({all.begin(), all.end()});
}

bool WorkloadResult::degraded() const {
  return std::any_of(repetitions.begin(), repetitions.end(), [](const Repetition& rep) {
    return std::find(rep.flags.begin(), rep.flags.end(), kDegraded) != rep.flags.end();
  });
}

bool WorkloadResult::measured(std::string_view field) const {
  return std::all_of(repetitions.begin(), repetitions.end(),
                     [&](const Repetition& rep) { return rep.measured(field); });
}

std::string WorkloadResult::latency_tool() const {
  for (const auto& rep : repetitions) {
    if (rep.tool_latency) return rep.tool_latency->tool;
  }
  return "";
}

std::optional<int64_t> WorkloadResult::latency_at(double percentile) const {
  if (latency.total_count() > 0) {
    return percentile >= 100 ? latency.max() : latency.value_at_percentile(percentile);
  }
  if (repetitions.empty() || latency_tool().empty()) return std::nullopt;
  std::vector<double> values;
  int64_t max = 0;
  for (const auto& rep : repetitions) {
    // No success: no figure of its own (latency_at), skipped as metric_values skips it.
    if (!rep.has_latency_to_measure()) continue;
    auto v = rep.latency_at(percentile);
    if (!v) return std::nullopt;
    values.push_back(static_cast<double>(*v));
    max = std::max(max, *v);
  }
  if (values.empty()) return std::nullopt;
  if (percentile >= 100) return max;
  return static_cast<int64_t>(*median_of(std::move(values)));
}

std::optional<double> WorkloadResult::latency_mean() const {
  if (latency.total_count() > 0) return latency.mean();
  if (repetitions.empty() || latency_tool().empty()) return std::nullopt;
  // Weighted by successes, as the repetitions' means are over their own successes.
  double sum = 0;
  double weight = 0;
  for (const auto& rep : repetitions) {
    if (!rep.has_latency_to_measure()) continue;  // as metric_values skips it
    auto mean = rep.latency_mean();
    if (!mean) return std::nullopt;
    sum += *mean * static_cast<double>(rep.successes);
    weight += static_cast<double>(rep.successes);
  }
  if (weight <= 0) return std::nullopt;
  return sum / weight;
}

// For connect.p99, tls_handshake.p99 and ttfb.p99: the histogram of `setup` the metric reads
// (null when the setup was not measured); nothing for any other metric.
static std::optional<const HdrHistogram*> setup_histogram(
    const std::optional<ConnectionSetup>& setup, const std::string& metric) {
  HdrHistogram ConnectionSetup::*member = nullptr;
  if (metric == "connect.p99") member = &ConnectionSetup::connect;
  if (metric == "tls_handshake.p99") member = &ConnectionSetup::tls_handshake;
  if (metric == "ttfb.p99") member = &ConnectionSetup::ttfb;
  if (!member) return std::nullopt;
  return setup ? &((*setup).*member) : nullptr;
}

std::optional<ConnectionSetup> WorkloadResult::setup() const {
  if (repetitions.empty()) return std::nullopt;
  ConnectionSetup merged;
  for (const auto& rep : repetitions) {
    if (!rep.setup) return std::nullopt;
    merged.connections = saturated_sum(merged.connections, rep.setup->connections);
    merged.handshakes = saturated_sum(merged.handshakes, rep.setup->handshakes);
    merged.resumed = saturated_sum(merged.resumed, rep.setup->resumed);
    // Samples past INT64_MAX (each repetition's fit, their sum need not) have no histogram
    // that holds them: no figure, rather than percentiles of the repetitions that fitted.
    if (!merged.connect.add(rep.setup->connect) ||
        !merged.tls_handshake.add(rep.setup->tls_handshake) || !merged.ttfb.add(rep.setup->ttfb)) {
      return std::nullopt;
    }
  }
  return merged;
}

std::optional<double> Repetition::handshakes_per_second() const {
  if (!window_connections || duration_ns <= 0) return std::nullopt;
  return static_cast<double>(*window_connections) * 1e9 / static_cast<double>(duration_ns);
}

std::optional<double> TransferSums::data_gbps() const {
  if (data_ns <= 0) return std::nullopt;
  return static_cast<double>(data_bytes) * 8 / static_cast<double>(data_ns);
}

std::optional<double> TransferSums::lifecycle_gbps() const {
  if (lifecycle_ns <= 0) return std::nullopt;
  return static_cast<double>(lifecycle_bytes) * 8 / static_cast<double>(lifecycle_ns);
}

std::optional<HdrHistogram> WorkloadResult::session_setup() const {
  if (repetitions.empty()) return std::nullopt;
  HdrHistogram merged;
  for (const auto& rep : repetitions) {
    // Samples past INT64_MAX: no figure, as setup() says.
    if (!rep.session_setup || !merged.add(*rep.session_setup)) return std::nullopt;
  }
  return merged;
}

std::optional<Spread> WorkloadResult::transfer_data_gbps() const {
  auto values = metric_values(*this, "transfer.data_gbps");
  if (!values || values->empty()) return std::nullopt;
  return spread_of(std::move(*values));
}

std::optional<Spread> WorkloadResult::transfer_lifecycle_gbps() const {
  auto values = metric_values(*this, "transfer.lifecycle_gbps");
  if (!values || values->empty()) return std::nullopt;
  return spread_of(std::move(*values));
}

std::optional<Spread> WorkloadResult::handshakes_per_second() const {
  auto values = metric_values(*this, "handshakes.rate");
  if (!values || values->empty()) return std::nullopt;
  return spread_of(std::move(*values));
}

std::optional<NegotiatedTls> WorkloadResult::tls() const {
  std::optional<NegotiatedTls> out;
  for (const auto& rep : repetitions) {
    if (rep.tls) out = rep.tls;
  }
  return out;
}

uint32_t WorkloadResult::requested_streams() const {
  uint32_t out = 0;
  for (const auto& rep : repetitions) out = std::max(out, rep.requested_streams);
  return out;
}

uint32_t WorkloadResult::effective_streams() const {
  uint32_t out = 0;
  for (const auto& rep : repetitions) {
    if (rep.effective_streams > 0 && (out == 0 || rep.effective_streams < out)) {
      out = rep.effective_streams;
    }
  }
  return out;
}

std::optional<std::vector<RepetitionValue>> metric_values_by_repetition(
    const WorkloadResult& workload, const std::string& metric) {
  if (workload.repetitions.empty()) return std::nullopt;
  const bool setup_metric =
      metric == "connect.p99" || metric == "tls_handshake.p99" || metric == "ttfb.p99";
  const bool latency_metric = metric.rfind("latency.", 0) == 0;
  static const std::vector<std::pair<std::string, double>> kPercentiles = {
      {"latency.p50", 50}, {"latency.p75", 75},    {"latency.p90", 90}, {"latency.p95", 95},
      {"latency.p99", 99}, {"latency.p999", 99.9}, {"latency.max", 100}};
  std::vector<RepetitionValue> values;
  if (metric == "session_setup.p99") {
    // As connect.p99: each repetition's own sessions' p99; a repetition that set up none (its
    // sessions were kept from before) is skipped, the metric is not measured only without any.
    for (const auto& rep : workload.repetitions) {
      if (!rep.session_setup) return std::nullopt;  // a worker did not report them
      if (rep.session_setup->total_count() == 0) continue;
      values.push_back(
          {rep.index, static_cast<double>(rep.session_setup->value_at_percentile(99)) / 1e9});
    }
    if (values.empty()) return std::nullopt;
    return values;
  }
  if (metric == "transfer.data_gbps" || metric == "transfer.lifecycle_gbps") {
    // wamp_transfer, and wamp_rpc with a session per call (docs/MEASUREMENT.md "Transfer
    // throughput").
    const bool lifecycles = workload.spec.protocol == scenario::Protocol::kWampTransfer ||
                            (workload.spec.protocol == scenario::Protocol::kWampRpc &&
                             workload.spec.wamp.session_per_operation);
    if (!lifecycles) return std::nullopt;
    const bool data = metric == "transfer.data_gbps";
    for (const auto& rep : workload.repetitions) {
      if (!rep.transfer) return std::nullopt;
      auto rate = data ? rep.transfer->data_gbps() : rep.transfer->lifecycle_gbps();
      if (!rate) return std::nullopt;
      values.push_back({rep.index, *rate});
    }
    return values;
  }
  if (metric == "handshakes.rate") {
    if (!workload.spec.new_connection_per_request) return std::nullopt;
    for (const auto& rep : workload.repetitions) {
      auto rate = rep.handshakes_per_second();
      if (!rate) return std::nullopt;
      values.push_back({rep.index, *rate});
    }
    return values;
  }
  for (const auto& rep : workload.repetitions) {
    if (metric == "throughput.rps") {
      values.push_back({rep.index, rep.ops_per_second()});
    } else if (metric == "throughput.bytes_per_s") {
      if (!rep.measured("bytes_received")) return std::nullopt;
      values.push_back({rep.index, rep.bytes_per_second()});
    } else if (metric == "errors.count") {
      values.push_back({rep.index, static_cast<double>(rep.error_count())});
    } else if (metric == "errors.rate") {
      if (rep.operations == 0) return std::nullopt;
      values.push_back({rep.index, static_cast<double>(rep.error_count()) /
                                       static_cast<double>(rep.operations)});
    } else if (latency_metric && !rep.has_latency_to_measure()) {
      // Latency is of successes only: a repetition that completed none (every request
      // answered 500, say) has nothing to measure. It is skipped, as a repetition that set up
      // no connection is for connect.p99; the metric is not measured only without any.
      continue;
    } else if (metric == "latency.mean") {
      auto mean = rep.latency_mean();
      if (!mean) return std::nullopt;
      values.push_back({rep.index, *mean / 1e9});
    } else if (metric.rfind("latency.", 0) == 0) {
      auto it = std::find_if(kPercentiles.begin(), kPercentiles.end(),
                             [&](const auto& p) { return p.first == metric; });
      if (it == kPercentiles.end()) return std::nullopt;
      auto ns = rep.latency_at(it->second);
      if (!ns) return std::nullopt;
      values.push_back({rep.index, static_cast<double>(*ns) / 1e9});
    } else if (metric == "router.cpu_per_request") {
      auto per_request = rep.router_cpu_per_request();
      if (!per_request) return std::nullopt;
      values.push_back({rep.index, *per_request});
    } else if (metric == "router.rss_bytes") {
      if (!rep.router.sampled) return std::nullopt;
      values.push_back({rep.index, static_cast<double>(rep.router.rss_bytes)});
    } else if (metric == "worker.cpu_utilization") {
      if (!rep.measured("cpu")) return std::nullopt;
      values.push_back({rep.index, rep.worker_cpu_utilization});
    } else if (auto histogram = setup_histogram(rep.setup, metric)) {
      if (!*histogram) return std::nullopt;  // a worker did not report setups
      // A repetition whose workers set up no connection (all made before an earlier window)
      // has no figure of its own; it is skipped, the metric is not measured only without any.
      if ((*histogram)->total_count() > 0) {
        values.push_back(
            {rep.index, static_cast<double>((*histogram)->value_at_percentile(99)) / 1e9});
      }
    } else {
      return std::nullopt;
    }
  }
  if ((setup_metric || latency_metric) && values.empty()) return std::nullopt;
  return values;
}

std::optional<std::vector<double>> metric_values(const WorkloadResult& workload,
                                                 const std::string& metric) {
  auto by_repetition = metric_values_by_repetition(workload, metric);
  if (!by_repetition) return std::nullopt;
  std::vector<double> values;
  values.reserve(by_repetition->size());
  for (const RepetitionValue& v : *by_repetition) values.push_back(v.value);
  return values;
}

std::optional<double> metric_figure(const WorkloadResult& workload, const std::string& metric) {
  // The per-repetition values also say whether every repetition has the metric.
  auto values = metric_values(workload, metric);
  if (!values) return std::nullopt;
  const auto& reps = workload.repetitions;
  if (metric == "throughput.rps" || metric == "throughput.bytes_per_s" ||
      metric == "handshakes.rate") {
    return median_of(std::move(*values));
  }
  // Summed as doubles: each repetition's counts fit (engine/window_merge.cc refuses a sum that
  // would not), but the workers' counts are theirs, and over repetitions they may pass 2^64.
  if (metric == "errors.count" || metric == "errors.rate") {
    double errors = 0;
    double operations = 0;
    for (const auto& rep : reps) {
      errors += static_cast<double>(rep.error_count());
      operations += static_cast<double>(rep.operations);
    }
    return metric == "errors.count" ? errors : errors / operations;
  }
  if (metric == "latency.mean") {
    auto mean = workload.latency_mean();
    if (!mean) return std::nullopt;
    return *mean / 1e9;
  }
  if (metric.rfind("latency.", 0) == 0) {
    static const std::vector<std::pair<std::string, double>> kPercentiles = {
        {"latency.p50", 50}, {"latency.p75", 75},    {"latency.p90", 90}, {"latency.p95", 95},
        {"latency.p99", 99}, {"latency.p999", 99.9}, {"latency.max", 100}};
    for (const auto& [name, percentile] : kPercentiles) {
      if (name != metric) continue;
      auto ns = workload.latency_at(percentile);
      if (!ns) return std::nullopt;
      return static_cast<double>(*ns) / 1e9;
    }
    return std::nullopt;
  }
  if (metric == "router.cpu_per_request") {
    double cpu = 0;
    double requests = 0;  // as doubles, as the errors are
    for (const auto& rep : reps) {
      // The divisor of Repetition::router_cpu_per_request: the router's own request count, or
      // the workers' operations for a system that counts none (a command, nginx).
      cpu += rep.router.cpu_seconds;
      requests += static_cast<double>(rep.router.collected ? rep.router.requests : rep.operations);
    }
    if (requests == 0) return std::nullopt;
    return cpu / requests;
  }
  if (metric == "session_setup.p99") {  // merged over repetitions, as connect.p99
    const auto sessions = workload.session_setup();
    if (!sessions || sessions->total_count() == 0) return std::nullopt;
    return static_cast<double>(sessions->value_at_percentile(99)) / 1e9;
  }
  const std::optional<ConnectionSetup> merged_setup = workload.setup();
  if (auto histogram = setup_histogram(merged_setup, metric)) {
    if (!*histogram || (*histogram)->total_count() == 0) return std::nullopt;
    return static_cast<double>((*histogram)->value_at_percentile(99)) / 1e9;
  }
  // router.rss_bytes, worker.cpu_utilization: the peak over repetitions.
  return *std::max_element(values->begin(), values->end());
}

std::string partly_measured_reason(const WorkloadResult& workload, const std::string& metric) {
  if (metric != "errors.count" && metric != "errors.rate") return "";
  std::set<std::string> kinds;
  for (const auto& rep : workload.repetitions) {
    for (const std::string& field : rep.not_measured) {
      if (field.rfind("errors.", 0) == 0) kinds.insert(field.substr(7));
    }
  }
  if (kinds.empty()) return "";
  std::string names;
  for (const std::string& kind : kinds) names += (names.empty() ? "" : ", ") + kind;
  const uint64_t counted = workload.error_count();
  return metric + " was not fully measured: the workers cannot detect errors of kind " + names +
         " (declared not measured), so the " + std::to_string(counted) +
         (counted == 1 ? " error" : " errors") + " counted are a lower bound";
}

std::string not_measured_reason(const WorkloadResult& workload, const std::string& metric) {
  if (workload.repetitions.empty() || metric_values(workload, metric)) return "";
  const std::string tool = workload.latency_tool();
  const bool latency_metric = metric.rfind("latency.", 0) == 0;
  if (latency_metric &&
      std::none_of(workload.repetitions.begin(), workload.repetitions.end(),
                   [](const Repetition& rep) { return rep.has_latency_to_measure(); })) {
    return metric +
           " was not measured: no repetition completed an operation (latency is of successes "
           "only)";
  }
  if (latency_metric && !tool.empty()) {
    return metric + " was not measured: the workers ran " + tool + ", which did not print it";
  }
  if (metric == "handshakes.rate") {
    return workload.spec.new_connection_per_request
               ? "handshakes.rate was not measured: the workers did not report their windows' "
                 "connections"
               : "handshakes.rate was not measured: it needs new_connection_per_request = true "
                 "(this workload keeps its connections)";
  }
  if (metric == "session_setup.p99") {
    return scenario::is_http(workload.spec.protocol)
               ? "session_setup.p99 was not measured: it is a WAMP figure (this workload is HTTP)"
               : "session_setup.p99 was not measured: no repetition set up a session (or the "
                 "workers did not report session setup)";
  }
  if (metric == "connect.p99" || metric == "tls_handshake.p99" || metric == "ttfb.p99") {
    return metric + " was not measured: " +
           (workload.setup() ? std::string("no connection of this kind was set up")
                             : std::string("the workers did not report connection setup"));
  }
  static const std::vector<std::pair<std::string, std::string>> kFields = {
      {"worker.cpu_utilization", "cpu"}, {"throughput.bytes_per_s", "bytes_received"}};
  for (const auto& [name, field] : kFields) {
    if (metric == name && !workload.measured(field)) {
      return metric + " was not measured: the workers could not measure " + field;
    }
  }
  return "";
}

std::string not_history_reason(const WorkloadResult& workload) {
  switch (workload.status) {
    case WorkloadStatus::kOk:
      break;
    case WorkloadStatus::kFailed:
      return "it failed";
    case WorkloadStatus::kInterrupted:
      return "it was interrupted";
    case WorkloadStatus::kNotConfigured:
      return "it is not configured";
  }
  for (const Repetition& rep : workload.repetitions) {
    const std::string repetition = "repetition " + std::to_string(rep.index + 1);
    auto flagged = [&](std::string_view flag) {
      return std::find(rep.flags.begin(), rep.flags.end(), flag) != rep.flags.end();
    };
    if (flagged(kProcessStopped)) {
      std::string who = joined_with_and(rep.stopped);
      if (who.empty()) who = "a process";
      return repetition + " was measured while " + who + " " +
             (rep.stopped.size() > 1 ? "were" : "was") + " stopped (flag " +
             std::string(kProcessStopped) + ")";
    }
    if (flagged(kDegraded)) {
      return repetition + " was measured without every worker (flag " + std::string(kDegraded) +
             ")";
    }
  }
  return "";
}

const char* status_name(WorkloadStatus status) {
  switch (status) {
    case WorkloadStatus::kOk:
      return "ok";
    case WorkloadStatus::kFailed:
      return "failed";
    case WorkloadStatus::kNotConfigured:
      return "not_configured";
    case WorkloadStatus::kInterrupted:
      return "interrupted";
  }
  return "failed";
}

}  // namespace benchgate::results
