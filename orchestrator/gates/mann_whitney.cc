// The Mann-Whitney U test (statistics.h): exact by enumeration of the rank-sum distribution
// of the observed (mid-)ranks, or the normal approximation for large samples.
#include <algorithm>
#include <cmath>
#include <utility>

#include "orchestrator/gates/rank_sum_distribution.h"
#include "orchestrator/gates/statistics.h"

namespace benchgate::gates {
namespace {

struct Ranked {
  std::vector<int64_t> doubled_ranks;  // of all values, in sorted order
  int64_t doubled_rank_sum_x = 0;
  double tie_term = 0;  // sum over tie groups of t^3 - t
};

// Mid-ranks, doubled so that a tie group's shared rank stays an integer.
Ranked rank(std::span<const double> x, std::span<const double> y) {
  std::vector<std::pair<double, bool>> all;  // value, from x
  all.reserve(x.size() + y.size());
  for (double v : x) all.emplace_back(v, true);
  for (double v : y) all.emplace_back(v, false);
  std::sort(all.begin(), all.end());
  Ranked r;
  r.doubled_ranks.resize(all.size());
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j + 1 < all.size() && all[j + 1].first == all[i].first) ++j;
    // Positions i..j (0-based) share the mid-rank ((i + 1) + (j + 1)) / 2.
    const auto doubled = static_cast<int64_t>(i + j + 2);
    for (size_t k = i; k <= j; ++k) {
      r.doubled_ranks[k] = doubled;
      if (all[k].second) r.doubled_rank_sum_x += doubled;
    }
    const auto t = static_cast<double>(j - i + 1);
    r.tie_term += t * t * t - t;
    i = j + 1;
  }
  return r;
}

struct OneSided {
  double greater = 1;  // P(U >= observed)
  double less = 1;     // P(U <= observed)
};

OneSided exact_tails(const Ranked& r, size_t n1, size_t n2) {
  // Enumerate subsets of the smaller sample's size; the other sample's sum is the rest.
  const bool subset_is_x = n1 <= n2;
  const size_t m = subset_is_x ? n1 : n2;
  const std::vector<double> counts = detail::rank_sum_counts(r.doubled_ranks, m);
  const auto n = static_cast<int64_t>(n1 + n2);
  const int64_t observed = subset_is_x ? r.doubled_rank_sum_x : n * (n + 1) - r.doubled_rank_sum_x;
  double total = 0, at_or_above = 0, at_or_below = 0;
  for (size_t s = 0; s < counts.size(); ++s) {
    total += counts[s];
    if (static_cast<int64_t>(s) >= observed) at_or_above += counts[s];
    if (static_cast<int64_t>(s) <= observed) at_or_below += counts[s];
  }
  // A larger sum for y means a smaller one for x.
  if (subset_is_x) return {at_or_above / total, at_or_below / total};
  return {at_or_below / total, at_or_above / total};
}

OneSided normal_tails(const Ranked& r, size_t n1, size_t n2, double u) {
  const double a = static_cast<double>(n1), b = static_cast<double>(n2), n = a + b;
  const double variance = a * b / 12.0 * ((n + 1) - r.tie_term / (n * (n - 1)));
  if (!(variance > 0)) return {1, 1};  // every value tied: no evidence either way
  const double sd = std::sqrt(variance);
  const double centre = a * b / 2;
  return {normal_cdf(-(u - centre - 0.5) / sd), normal_cdf((u - centre + 0.5) / sd)};
}

}  // namespace

MannWhitneyResult mann_whitney_u(std::span<const double> x, std::span<const double> y,
                                 Alternative alternative) {
  MannWhitneyResult result;
  if (x.empty() || y.empty()) return result;
  const size_t n1 = x.size(), n2 = y.size();
  const Ranked r = rank(x, y);
  result.u = static_cast<double>(r.doubled_rank_sum_x - static_cast<int64_t>(n1 * (n1 + 1))) / 2;
  const auto max_rank = static_cast<int64_t>(2 * (n1 + n2));
  result.exact =
      detail::rank_sum_cost(n1 + n2, std::min(n1, n2), max_rank) <= kMannWhitneyExactLimit;
  const OneSided tails = result.exact ? exact_tails(r, n1, n2) : normal_tails(r, n1, n2, result.u);
  switch (alternative) {
    case Alternative::kGreater:
      result.p_value = tails.greater;
      break;
    case Alternative::kLess:
      result.p_value = tails.less;
      break;
    case Alternative::kTwoSided:
      result.p_value = std::min(1.0, 2 * std::min(tails.greater, tails.less));
      break;
  }
  result.p_value = std::clamp(result.p_value, 0.0, 1.0);
  return result;
}

double mann_whitney_smallest_p(size_t n1, size_t n2) {
  if (n1 == 0 || n2 == 0) return 1;
  // C(n1 + n2, k) for the smaller k, as a double: the p only needs its size.
  const size_t k = std::min(n1, n2);
  double arrangements = 1;
  for (size_t i = 1; i <= k; ++i) {
    arrangements = arrangements * static_cast<double>(n1 + n2 - k + i) / static_cast<double>(i);
  }
  return std::min(1.0, 2 / arrangements);
}

}  // namespace benchgate::gates
