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

// The k-th smallest (0-based) of the n(n+1)/2 Walsh averages (x_i + x_j) / 2, i <= j, without
// keeping them all: 100,000 pairs would need 40 GB. Small inputs sort them; large ones bisect
// on the value with an O(n) count of the averages at or below it, down to adjacent doubles, so
// both give the very double the average computes to.
class WalshAverages {
 public:
  explicit WalshAverages(std::span<const double> x) : x_(x.begin(), x.end()) {
    std::sort(x_.begin(), x_.end());
    const size_t n = x_.size();
    count_ = n * (n + 1) / 2;
    if (count_ <= kMaterializeLimit) {
      all_.reserve(count_);
      for (size_t i = 0; i < n; ++i) {
        for (size_t j = i; j < n; ++j) all_.push_back((x_[i] + x_[j]) / 2);
      }
      std::sort(all_.begin(), all_.end());
    }
  }
  size_t size() const { return count_; }
  double kth(size_t k) const {
    if (!all_.empty()) return all_[k];
    double lo = x_.front(), hi = x_.back();  // the smallest and the largest average
    if (at_or_below(lo) > k) return lo;
    while (true) {
      const double mid = lo + (hi - lo) / 2;
      if (mid <= lo || mid >= hi) return hi;  // adjacent: an average lies in (lo, hi]
      (at_or_below(mid) > k ? hi : lo) = mid;
    }
  }
  double median() const {
    return count_ % 2 ? kth(count_ / 2) : (kth(count_ / 2 - 1) + kth(count_ / 2)) / 2;
  }

 private:
  static constexpr size_t kMaterializeLimit = 2'000'000;
  // How many averages are <= v: for each i, the j >= i up to the last with (x_i + x_j) / 2 <= v,
  // a bound that only falls as i rises.
  size_t at_or_below(double v) const {
    size_t total = 0, end = x_.size();
    for (size_t i = 0; i < x_.size(); ++i) {
      while (end > 0 && (x_[i] + x_[end - 1]) / 2 > v) --end;
      if (end <= i) break;
      total += end - i;
    }
    return total;
  }
  std::vector<double> x_;
  std::vector<double> all_;
  size_t count_ = 0;
};

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
  return WalshAverages(x).median();
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
  const WalshAverages w(x);
  const auto k = static_cast<size_t>(c);
  if (k >= w.size()) return result;
  result.low = w.kth(k);
  result.high = w.kth(w.size() - 1 - k);
  result.achieved_confidence = 1 - 2 * at_c;
  result.bounded = true;
  return result;
}

}  // namespace benchgate::gates
