// Pair sums and the E-divisive statistic (energy_statistic.h).
#include "orchestrator/changes/energy_statistic.h"

#include <cmath>

namespace benchgate::changes {

void PairSums::assign(std::span<const double> values) {
  n_ = values.size();
  table_.assign((n_ + 1) * (n_ + 1), 0.0);
  const size_t stride = n_ + 1;
  // W(a, j + 1) = W(a, j) + sum_{a <= i < j} |v_i - v_j|: extend every range ending at j by
  // the point j, accumulating its distances from the right.
  for (size_t j = 0; j < n_; ++j) {
    double to_j = 0;
    for (size_t a = j; a-- > 0;) {
      to_j += std::abs(values[a] - values[j]);
      table_[a * stride + j + 1] = table_[a * stride + j] + to_j;
    }
  }
}

double energy_q(const PairSums& sums, size_t s, size_t tau, size_t kappa) {
  const double m = static_cast<double>(tau - s);
  const double k = static_cast<double>(kappa - tau);
  const double wx = sums.within(s, tau);
  const double wy = sums.within(tau, kappa);
  const double cross = sums.within(s, kappa) - wx - wy;
  const double x_pairs = m * (m - 1) / 2, y_pairs = k * (k - 1) / 2;
  const double e =
      2 * cross / (m * k) - (x_pairs > 0 ? wx / x_pairs : 0) - (y_pairs > 0 ? wy / y_pairs : 0);
  return m * k / (m + k) * e;
}

Split best_split(const PairSums& sums, size_t s, size_t e, size_t min_size) {
  Split best;
  if (min_size == 0) min_size = 1;
  for (size_t tau = s + min_size; tau + min_size <= e; ++tau) {
    for (size_t kappa = tau + min_size; kappa <= e; ++kappa) {
      const double q = energy_q(sums, s, tau, kappa);
      if (!best.found || q > best.q) best = {tau, kappa, q, true};
    }
  }
  return best;
}

Split best_split_at_end(const PairSums& sums, size_t s, size_t e, size_t min_size) {
  Split best;
  if (min_size == 0) min_size = 1;
  for (size_t tau = s + min_size; tau + min_size <= e; ++tau) {
    const double q = energy_q(sums, s, tau, e);
    if (!best.found || q > best.q) best = {tau, e, q, true};
  }
  return best;
}

Split best_split_from_end(const PairSums& sums, size_t s, size_t e, size_t min_size) {
  Split best;
  if (min_size == 0) min_size = 1;
  for (size_t tau = s + min_size; tau + min_size <= e; ++tau) {
    for (size_t start = s; start + min_size <= tau; ++start) {
      const double q = energy_q(sums, start, tau, e);
      if (!best.found || q > best.q) best = {tau, e, q, true};
    }
  }
  return best;
}

}  // namespace benchgate::changes
