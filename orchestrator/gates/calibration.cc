// Between-run noise of an A/A series (calibration.h).
#include "orchestrator/gates/calibration.h"

#include <cmath>
#include <vector>

#include "orchestrator/gates/metrics.h"
#include "orchestrator/gates/statistics.h"

namespace benchgate::gates {

std::optional<NoiseEstimate> estimate_noise(std::string_view metric,
                                            std::span<const double> figures, double alpha) {
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
  return e;
}

}  // namespace benchgate::gates
