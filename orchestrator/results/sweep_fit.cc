// Least squares and pair exponents over a sweep's points; see sweep_fit.h.
#include "orchestrator/results/sweep_fit.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace benchgate::results {

std::optional<LinearFit> fit_linear(std::span<const double> n, std::span<const double> cost) {
  const size_t count = std::min(n.size(), cost.size());
  if (count < 2) return std::nullopt;
  double mean_n = 0;
  double mean_c = 0;
  for (size_t i = 0; i < count; ++i) {
    mean_n += n[i];
    mean_c += cost[i];
  }
  mean_n /= static_cast<double>(count);
  mean_c /= static_cast<double>(count);
  double snn = 0;
  double snc = 0;
  double scc = 0;
  for (size_t i = 0; i < count; ++i) {
    snn += (n[i] - mean_n) * (n[i] - mean_n);
    snc += (n[i] - mean_n) * (cost[i] - mean_c);
    scc += (cost[i] - mean_c) * (cost[i] - mean_c);
  }
  if (snn <= 0) return std::nullopt;
  LinearFit fit;
  fit.b = snc / snn;
  fit.a = mean_c - fit.b * mean_n;
  double residual = 0;
  for (size_t i = 0; i < count; ++i) {
    const double e = cost[i] - (fit.a + fit.b * n[i]);
    residual += e * e;
  }
  // A flat series is explained perfectly by the flat line.
  fit.r2 = scc > 0 ? 1 - residual / scc : 1;
  return fit;
}

std::optional<GrowthExponents> growth_exponents(std::span<const double> n,
                                                std::span<const double> cost) {
  const size_t count = std::min(n.size(), cost.size());
  std::vector<double> exponents;
  GrowthExponents out;
  for (size_t i = 0; i + 1 < count; ++i) {
    // A logarithm needs positive values; n = 0 (an empty body) has no ratio to it.
    if (n[i] <= 0 || n[i + 1] <= n[i] || cost[i] <= 0 || cost[i + 1] <= 0) continue;
    const double k = std::log(cost[i + 1] / cost[i]) / std::log(n[i + 1] / n[i]);
    if (exponents.empty() || k > out.worst) {
      out.worst = k;
      out.worst_pair = i;
    }
    exponents.push_back(k);
  }
  if (exponents.empty()) return std::nullopt;
  std::sort(exponents.begin(), exponents.end());
  const size_t m = exponents.size();
  out.median = m % 2 ? exponents[m / 2] : (exponents[m / 2 - 1] + exponents[m / 2]) / 2;
  out.pairs = m;
  return out;
}

std::string growth_class(double exponent) {
  if (exponent < 0.1) return "constant";
  if (exponent < 0.9) return "sublinear";
  if (exponent <= 1.1) return "linear";
  return "superlinear";
}

}  // namespace benchgate::results
