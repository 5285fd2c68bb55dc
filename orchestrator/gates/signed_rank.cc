// The Wilcoxon signed-rank test, the Hodges-Lehmann centre and its Walsh-average interval
// (signed_rank.h).
#include "orchestrator/gates/signed_rank.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "orchestrator/gates/statistics.h"

namespace benchgate::gates {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The law of the sum of a random subset of `ranks` (each taken with probability 1/2): the
// probability of every sum 0 .. sum(ranks). Probabilities, not counts, so 2^n never overflows.
std::vector<double> subset_sum_law(const std::vector<int64_t>& ranks) {
  int64_t total = 0;
  for (int64_t r : ranks) total += r;
  std::vector<double> law(static_cast<size_t>(total) + 1, 0.0);
  law[0] = 1.0;
  int64_t reach = 0;
  for (int64_t r : ranks) {
    reach += r;
    // Descending so each rank is used at most once: new[s] = (old[s] + old[s - r]) / 2.
    for (int64_t s = reach; s >= 0; --s) {
      const double with = s >= r ? law[static_cast<size_t>(s - r)] : 0.0;
      law[static_cast<size_t>(s)] = 0.5 * (law[static_cast<size_t>(s)] + with);
    }
  }
  return law;
}

std::vector<double> walsh_averages(std::span<const double> x) {
  std::vector<double> w;
  w.reserve(x.size() * (x.size() + 1) / 2);
  for (size_t i = 0; i < x.size(); ++i) {
    for (size_t j = i; j < x.size(); ++j) w.push_back((x[i] + x[j]) / 2);
  }
  std::sort(w.begin(), w.end());
  return w;
}

}  // namespace

SignedRankResult wilcoxon_signed_rank(std::span<const double> x) {
  SignedRankResult result;
  result.n = x.size();
  // Rank |x| over every difference, zeros included (Pratt); doubled mid-ranks stay integers.
  std::vector<size_t> order(x.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return std::abs(x[a]) < std::abs(x[b]); });
  std::vector<int64_t> nonzero_ranks;  // doubled
  int64_t observed = 0;                // doubled W+
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && std::abs(x[order[j + 1]]) == std::abs(x[order[i]])) ++j;
    const auto doubled = static_cast<int64_t>(i + j + 2);  // positions i..j share (i+j+2)/2
    for (size_t k = i; k <= j; ++k) {
      const double v = x[order[k]];
      if (v == 0) continue;
      nonzero_ranks.push_back(doubled);
      if (v > 0) observed += doubled;
    }
    i = j + 1;
  }
  result.nonzero = nonzero_ranks.size();
  result.w_plus = static_cast<double>(observed) / 2;
  result.smallest_p = std::ldexp(1.0, -static_cast<int>(std::min<size_t>(result.nonzero, 1074)));
  if (nonzero_ranks.empty()) return result;
  if (result.nonzero <= kSignedRankExactLimit) {
    const std::vector<double> law = subset_sum_law(nonzero_ranks);
    double tail = 0;
    for (size_t s = static_cast<size_t>(observed); s < law.size(); ++s) tail += law[s];
    result.p_greater = std::clamp(tail, 0.0, 1.0);
    return result;
  }
  result.exact = false;
  double sum = 0, sum_sq = 0;
  for (int64_t d : nonzero_ranks) {
    const double r = static_cast<double>(d) / 2;
    sum += r;
    sum_sq += r * r;
  }
  const double centre = sum / 2, sd = std::sqrt(sum_sq / 4);
  result.p_greater = std::clamp(normal_cdf(-(result.w_plus - centre - 0.5) / sd), 0.0, 1.0);
  return result;
}

double hodges_lehmann_centre(std::span<const double> x) {
  if (x.empty()) return kNaN;
  const std::vector<double> w = walsh_averages(x);
  return median(w);
}

CentreInterval walsh_interval(std::span<const double> x, double confidence) {
  CentreInterval result;
  if (x.empty() || !(confidence > 0 && confidence < 1)) return result;
  const size_t n = x.size();
  const double tail = (1 - confidence) / 2;
  // c: the largest count with P(T <= c) <= tail for T the signed-rank statistic of n values
  // without ties (ranks 1..n); -1 when even T = 0 (probability 2^-n) is too likely.
  int64_t c = -1;
  double at_c = 0;
  if (n <= kSignedRankExactLimit) {
    std::vector<int64_t> ranks(n);
    for (size_t i = 0; i < n; ++i) ranks[i] = static_cast<int64_t>(i + 1);
    const std::vector<double> law = subset_sum_law(ranks);
    double cumulative = 0;
    for (size_t t = 0; t < law.size(); ++t) {
      cumulative += law[t];
      if (cumulative > tail) break;
      c = static_cast<int64_t>(t);
      at_c = cumulative;
    }
  } else {
    const double m = static_cast<double>(n);
    const double centre = m * (m + 1) / 4, sd = std::sqrt(m * (m + 1) * (2 * m + 1) / 24);
    c = static_cast<int64_t>(std::floor(centre - 0.5 + normal_quantile(tail) * sd));
    at_c = normal_cdf((static_cast<double>(c) + 0.5 - centre) / sd);
  }
  if (c < 0) return result;
  const std::vector<double> w = walsh_averages(x);
  const auto k = static_cast<size_t>(c);
  result.low = w[k];
  result.high = w[w.size() - 1 - k];
  result.achieved_confidence = 1 - 2 * at_c;
  result.bounded = true;
  return result;
}

}  // namespace benchgate::gates
