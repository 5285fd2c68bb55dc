// Between-run noise of an A/A series (calibration.h).
#include "orchestrator/gates/calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "orchestrator/gates/metrics.h"
#include "orchestrator/gates/statistics.h"

namespace benchgate::gates {

namespace {

// The pooled within-run spread of the repetitions (each about its own run's mean) in log space,
// or nothing when a run has fewer than two repetitions or a bad value.
std::optional<NoiseEstimate::WithinRuns> within_runs(
    std::span<const std::vector<double>> repetitions, double sign, double floor, double alpha) {
  if (repetitions.empty()) return std::nullopt;
  std::vector<std::vector<double>> logs;
  size_t fewest = SIZE_MAX;
  for (const auto& run : repetitions) {
    if (run.size() < 2) return std::nullopt;
    auto& run_logs = logs.emplace_back();
    for (double v : run) {
      if (!std::isfinite(v) || v < 0) return std::nullopt;
      run_logs.push_back(sign * std::log(v + floor));
    }
    fewest = std::min(fewest, run.size());
  }
  NoiseEstimate::WithinRuns w;
  w.repetitions = static_cast<int>(fewest);
  w.log_sd = std::sqrt(pooled_within_variance(logs));
  const double r = static_cast<double>(fewest);
  w.between_sd = w.log_sd / std::sqrt(r);
  w.detectable_paired =
      std::expm1(student_t_quantile(1 - alpha, r - 1) * std::sqrt(2 / r) * w.log_sd);
  // The signed-rank's smallest p is 2^-R: below alpha, or nothing to detect with.
  if (fewest >= 64 || std::ldexp(1.0, -static_cast<int>(fewest)) < alpha) {
    w.detectable_paired_signed_rank =
        std::expm1(std::log1p(w.detectable_paired) * std::sqrt(std::numbers::pi / 3));
  }
  return w;
}

// NoiseEstimate::groups_apart, from the runs' logs (sign removed: ascending figures).
std::optional<double> groups_apart(std::vector<double> logs, double explained_sd) {
  if (logs.size() < 4) return std::nullopt;
  std::sort(logs.begin(), logs.end());
  double widest = 0;
  size_t at = 0;
  for (size_t i = 1; i < logs.size(); ++i) {
    if (logs[i] - logs[i - 1] > widest) {
      widest = logs[i] - logs[i - 1];
      at = i;
    }
  }
  const double range = logs.back() - logs.front();
  if (at < 2 || logs.size() - at < 2 || widest <= 6 * explained_sd || widest <= range / 2) {
    return std::nullopt;
  }
  return std::expm1(widest);
}

}  // namespace

std::optional<NoiseEstimate> estimate_noise(std::string_view metric,
                                            std::span<const double> figures, double alpha,
                                            std::span<const std::vector<double>> repetitions) {
  const MetricInfo* info = find_metric(metric);
  if (info == nullptr || figures.size() < 2 || !(alpha > 0 && alpha < 1)) return std::nullopt;
  // The same log space as the gates, so the estimate plugs into their test unchanged.
  const double sign = info->direction == Direction::kLowerIsBetter ? 1.0 : -1.0;
  std::vector<double> logs;
  for (double f : figures) {
    if (!std::isfinite(f) || f < 0) return std::nullopt;
    logs.push_back(sign * std::log(f + info->log_floor));
  }
  NoiseEstimate e;
  e.runs = static_cast<int>(figures.size());
  e.mean = mean(figures);
  e.cv = e.mean > 0 ? sample_stddev(figures) / e.mean : 0;
  e.log_sd = sample_stddev(logs);
  const double n = static_cast<double>(figures.size());
  // What a relative gate of this series detects afterwards: calibrated-t pools this spread
  // with the baseline runs' (n - 1 + k - 1 degrees of freedom; gate_evaluator.h).
  const auto detectable = [&](double k) {
    const double scale = std::sqrt(1 + median_variance_ratio(static_cast<size_t>(k)) / k);
    return std::expm1(student_t_quantile(1 - alpha, n - 1 + k - 1) * e.log_sd * scale);
  };
  e.detectable_1 = detectable(1);
  e.detectable_5 = detectable(5);
  if (repetitions.size() == figures.size()) {
    e.within = within_runs(repetitions, sign, info->log_floor, alpha);
  }
  if (e.within) {
    std::vector<double> ascending;
    for (double l : logs) ascending.push_back(sign * l);
    e.groups_apart = groups_apart(std::move(ascending), e.within->between_sd);
  }
  return e;
}

}  // namespace benchgate::gates
