// Descriptive statistics and Holm's correction (statistics.h).
#include "orchestrator/gates/statistics.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <numbers>
#include <numeric>

namespace benchgate::gates {
namespace {

std::vector<double> sorted_copy(std::span<const double> values) {
  std::vector<double> v(values.begin(), values.end());
  std::sort(v.begin(), v.end());
  return v;
}

// Type 7 quantile of already sorted values.
double sorted_quantile(const std::vector<double>& v, double q) {
  if (v.empty() || !(q >= 0 && q <= 1)) return kNaN;
  const double h = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(h));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

}  // namespace

double mean(std::span<const double> values) {
  if (values.empty()) return kNaN;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

double sample_stddev(std::span<const double> values) {
  if (values.size() < 2) return kNaN;
  const double m = mean(values);
  double sum_sq = 0;
  for (double v : values) sum_sq += (v - m) * (v - m);
  return std::sqrt(sum_sq / static_cast<double>(values.size() - 1));
}

double median(std::span<const double> values) { return quantile(values, 0.5); }

double pooled_within_variance(std::span<const std::vector<double>> groups) {
  double squares = 0;
  double df = 0;
  for (const auto& group : groups) {
    if (group.size() < 2) continue;
    const double m = mean(group);
    for (double v : group) squares += (v - m) * (v - m);
    df += static_cast<double>(group.size()) - 1;
  }
  return df == 0 ? kNaN : squares / df;
}

double quantile(std::span<const double> values, double q) {
  return sorted_quantile(sorted_copy(values), q);
}

double median_absolute_deviation(std::span<const double> values) {
  if (values.empty()) return kNaN;
  const double centre = median(values);
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double v : values) deviations.push_back(std::abs(v - centre));
  return median(deviations);
}

double median_variance_ratio(size_t k) {
  // k * Var(median of k standard normal values), k = 1..20.
  static constexpr double kRatio[] = {1.0,    1.0,    1.346,  1.1928, 1.4342, 1.2885, 1.4731,
                                      1.3455, 1.4949, 1.3834, 1.5088, 1.4104, 1.5184, 1.4306,
                                      1.5254, 1.4464, 1.5308, 1.459,  1.535,  1.4694};
  if (k == 0) return std::numeric_limits<double>::quiet_NaN();
  if (k <= std::size(kRatio)) return kRatio[k - 1];
  return std::numbers::pi / 2;
}

std::vector<double> holm_adjust(std::span<const double> p_values) {
  std::vector<double> adjusted(p_values.size(), kNaN);
  std::vector<size_t> order;
  for (size_t i = 0; i < p_values.size(); ++i) {
    if (!std::isnan(p_values[i])) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return p_values[a] < p_values[b]; });
  const size_t family = order.size();
  // The i-th smallest p is multiplied by the number of hypotheses still in play, and the
  // running maximum keeps the step-down order monotone.
  double running = 0;
  for (size_t rank = 0; rank < family; ++rank) {
    const double scaled = static_cast<double>(family - rank) * p_values[order[rank]];
    running = std::max(running, std::min(1.0, scaled));
    adjusted[order[rank]] = running;
  }
  return adjusted;
}

}  // namespace benchgate::gates
