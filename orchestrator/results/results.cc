#include "orchestrator/results/results.h"

#include <algorithm>
#include <set>

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

}  // namespace

uint64_t Repetition::error_count() const {
  uint64_t total = 0;
  for (const auto& [kind, count] : errors) total += count;
  return total;
}

double Repetition::ops_per_second() const {
  return data_window_ns > 0 ? static_cast<double>(successes) / seconds(data_window_ns) : 0;
}

double Repetition::bytes_per_second() const {
  return data_window_ns > 0 ? static_cast<double>(bytes_received) / seconds(data_window_ns) : 0;
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

uint64_t WorkloadResult::error_count() const {
  uint64_t total = 0;
  for (const auto& rep : repetitions) total += rep.error_count();
  return total;
}

std::vector<std::string> WorkloadResult::flags() const {
  std::set<std::string> all;
  for (const auto& rep : repetitions) all.insert(rep.flags.begin(), rep.flags.end());
  return {all.begin(), all.end()};
}

std::optional<std::vector<double>> metric_values(const WorkloadResult& workload,
                                                 const std::string& metric) {
  if (workload.repetitions.empty()) return std::nullopt;
  static const std::vector<std::pair<std::string, double>> kPercentiles = {
      {"latency.p50", 50}, {"latency.p75", 75},    {"latency.p90", 90}, {"latency.p95", 95},
      {"latency.p99", 99}, {"latency.p999", 99.9}, {"latency.max", 100}};
  std::vector<double> values;
  for (const auto& rep : workload.repetitions) {
    if (metric == "throughput.rps") {
      values.push_back(rep.ops_per_second());
    } else if (metric == "throughput.bytes_per_s") {
      values.push_back(rep.bytes_per_second());
    } else if (metric == "errors.count") {
      values.push_back(static_cast<double>(rep.error_count()));
    } else if (metric == "errors.rate") {
      if (rep.operations == 0) return std::nullopt;
      values.push_back(static_cast<double>(rep.error_count()) /
                       static_cast<double>(rep.operations));
    } else if (metric == "latency.mean") {
      if (rep.latency.total_count() == 0) return std::nullopt;
      values.push_back(rep.latency.mean() / 1e9);
    } else if (metric.rfind("latency.", 0) == 0) {
      auto it = std::find_if(kPercentiles.begin(), kPercentiles.end(),
                             [&](const auto& p) { return p.first == metric; });
      if (it == kPercentiles.end() || rep.latency.total_count() == 0) return std::nullopt;
      const double ns = it->second >= 100
                            ? static_cast<double>(rep.latency.max())
                            : static_cast<double>(rep.latency.value_at_percentile(it->second));
      values.push_back(ns / 1e9);
    } else if (metric == "router.cpu_per_request") {
      if (!rep.router.collected || rep.router.requests == 0) return std::nullopt;
      values.push_back(rep.router.cpu_seconds / static_cast<double>(rep.router.requests));
    } else if (metric == "router.rss_bytes") {
      if (!rep.router.collected) return std::nullopt;
      values.push_back(static_cast<double>(rep.router.rss_bytes));
    } else if (metric == "worker.cpu_utilization") {
      values.push_back(rep.worker_cpu_utilization);
    } else {
      return std::nullopt;
    }
  }
  return values;
}

const char* status_name(WorkloadStatus status) {
  switch (status) {
    case WorkloadStatus::kOk:
      return "ok";
    case WorkloadStatus::kFailed:
      return "failed";
    case WorkloadStatus::kNotConfigured:
      return "not_configured";
  }
  return "failed";
}

}  // namespace benchgate::results
