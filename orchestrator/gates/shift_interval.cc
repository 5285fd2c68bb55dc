// The Hodges-Lehmann shift interval and the benchstat-style two-sample comparison
// (statistics.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "orchestrator/gates/rank_sum_distribution.h"
#include "orchestrator/gates/statistics.h"

namespace benchgate::gates {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The largest c with P(U <= c) <= tail under the null hypothesis without ties, and
// P(U <= c) itself; c = -1 when even U = 0 is too likely.
struct Critical {
  int64_t c = -1;
  double probability = 0;
};

Critical lower_critical_value(size_t n1, size_t n2, double tail) {
  const size_t n = n1 + n2, m = std::min(n1, n2);
  Critical crit;
  if (detail::rank_sum_cost(n, m, static_cast<int64_t>(n)) <= kMannWhitneyExactLimit) {
    std::vector<int64_t> ranks(n);
    std::iota(ranks.begin(), ranks.end(), int64_t{1});
    const std::vector<double> counts = detail::rank_sum_counts(ranks, m);
    const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
    // U of the subset = its rank sum - m(m+1)/2; its null law is the same for either sample.
    const size_t offset = m * (m + 1) / 2;
    double cumulative = 0;
    for (size_t s = offset; s < counts.size(); ++s) {
      cumulative += counts[s] / total;
      if (cumulative > tail) break;
      crit = {static_cast<int64_t>(s - offset), cumulative};
    }
    return crit;
  }
  const double a = static_cast<double>(n1), b = static_cast<double>(n2);
  const double centre = a * b / 2, sd = std::sqrt(a * b * (a + b + 1) / 12);
  crit.c = static_cast<int64_t>(std::floor(centre - 0.5 + normal_quantile(tail) * sd));
  crit.probability = normal_cdf((static_cast<double>(crit.c) + 0.5 - centre) / sd);
  return crit;
}

}  // namespace

ShiftInterval hodges_lehmann_interval(std::span<const double> x, std::span<const double> y,
                                      double confidence) {
  ShiftInterval result{kNaN, -kInf, kInf, 1.0, false};
  if (x.empty() || y.empty()) return result;
  std::vector<double> differences;
  differences.reserve(x.size() * y.size());
  for (double xi : x) {
    for (double yj : y) differences.push_back(xi - yj);
  }
  std::sort(differences.begin(), differences.end());
  result.estimate = median(differences);
  if (!(confidence > 0 && confidence < 1)) return result;
  const Critical crit = lower_critical_value(x.size(), y.size(), (1 - confidence) / 2);
  if (crit.c < 0) return result;  // too few samples for this confidence
  const auto c = static_cast<size_t>(crit.c);
  result.low = differences[c];
  result.high = differences[differences.size() - 1 - c];
  result.achieved_confidence = 1 - 2 * crit.probability;
  result.bounded = true;
  return result;
}

double relative_change(double a, double b) {
  if (a == b) return 0;
  if (a == 0) return kNaN;
  return b / a - 1;
}

SampleComparison compare_samples(std::span<const double> a, std::span<const double> b,
                                 double confidence, double alpha) {
  SampleComparison cmp;
  cmp.median_a = median(a);
  cmp.median_b = median(b);
  cmp.change = relative_change(cmp.median_a, cmp.median_b);
  cmp.change_low = -kInf;
  cmp.change_high = kInf;
  if (a.empty() || b.empty()) return cmp;
  cmp.p_value = mann_whitney_u(b, a, Alternative::kTwoSided).p_value;
  cmp.significant = cmp.p_value < alpha;

  const auto positive = [](double v) { return v > 0; };
  if (std::all_of(a.begin(), a.end(), positive) && std::all_of(b.begin(), b.end(), positive)) {
    // A shift of logs is a ratio: the interval of b / a - 1.
    std::vector<double> log_a, log_b;
    for (double v : a) log_a.push_back(std::log(v));
    for (double v : b) log_b.push_back(std::log(v));
    const ShiftInterval shift = hodges_lehmann_interval(log_b, log_a, confidence);
    if (shift.bounded) {
      cmp.change_low = std::expm1(shift.low);
      cmp.change_high = std::expm1(shift.high);
      cmp.interval_bounded = true;
    }
  } else if (cmp.median_a != 0) {
    const ShiftInterval shift = hodges_lehmann_interval(b, a, confidence);
    if (shift.bounded) {
      const double scale = std::abs(cmp.median_a);
      cmp.change_low = shift.low / scale;
      cmp.change_high = shift.high / scale;
      cmp.interval_bounded = true;
    }
  }
  return cmp;
}

}  // namespace benchgate::gates
