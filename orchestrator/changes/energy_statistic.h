// The divergence E-divisive means maximises (Matteson and James 2014, "A nonparametric approach
// for multiple change point analysis of multivariate data", eq. 5 and 6, with alpha = 1): for
// X = v[s, tau) and Y = v[tau, kappa) of a univariate series,
//
//   E(X, Y) = 2/(m k) sum |x - y| - 1/C(m,2) sum_{X pairs} |x - x'| - 1/C(k,2) sum_{Y pairs} |y -
//   y'| Q(X, Y) = m k / (m + k) E(X, Y),        m = tau - s, k = kappa - tau.
//
// Every sum is a difference of "within" sums W(a, b) = sum_{a <= i < j < b} |v_i - v_j|, which
// PairSums tabulates for every sub-range once (O(n^2)), so Q costs O(1) per (s, tau, kappa).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace benchgate::changes {

class PairSums {
 public:
  PairSums() = default;
  explicit PairSums(std::span<const double> values) { assign(values); }
  // Tabulates W for `values`, reusing the memory of an earlier call (permutation tests call it
  // once per permutation).
  void assign(std::span<const double> values);
  // W(a, b), 0 <= a <= b <= size().
  double within(size_t a, size_t b) const { return table_[a * (n_ + 1) + b]; }
  size_t size() const { return n_; }

 private:
  size_t n_ = 0;
  std::vector<double> table_;  // (n + 1) x (n + 1), row a, column b
};

// Q(v[s, tau), v[tau, kappa)); s < tau < kappa <= size(). A side of one point has no pairs, so
// its within term is 0.
double energy_q(const PairSums& sums, size_t s, size_t tau, size_t kappa);

struct Split {
  size_t tau = 0;
  size_t kappa = 0;
  double q = 0;
  bool found = false;  // false: the range is too short for two sides of min_size
};

// The E-divisive candidate of v[s, e): the (tau, kappa) maximising Q(v[s, tau), v[tau, kappa))
// with both sides at least min_size long and kappa <= e. Ties keep the smallest tau, kappa.
Split best_split(const PairSums& sums, size_t s, size_t e, size_t min_size);
// The same with kappa fixed at e: the best split of v[s, e) into two sides.
Split best_split_at_end(const PairSums& sums, size_t s, size_t e, size_t min_size);
// The mirror image of best_split: the (s', tau) maximising Q(v[s', tau), v[tau, e)) with
// s <= s', both sides at least min_size long (`tau` and `kappa` = e of the result; the start
// found is not returned).
Split best_split_from_end(const PairSums& sums, size_t s, size_t e, size_t min_size);

}  // namespace benchgate::changes
