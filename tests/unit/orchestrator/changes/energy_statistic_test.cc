// The tabulated statistic against the paper's definition written out directly (Matteson and
// James 2014, eq. 5 and 6, alpha = 1), and the permutation p-value's bounds.
#include "orchestrator/changes/energy_statistic.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "orchestrator/changes/permutation_test.h"

namespace benchgate::changes {
namespace {

// E-hat and Q-hat straight from the formula: every pair summed afresh.
double reference_q(const std::vector<double>& z, size_t s, size_t tau, size_t kappa) {
  const double m = static_cast<double>(tau - s), k = static_cast<double>(kappa - tau);
  double between = 0, within_x = 0, within_y = 0;
  for (size_t i = s; i < tau; ++i) {
    for (size_t j = tau; j < kappa; ++j) between += std::abs(z[i] - z[j]);
  }
  for (size_t i = s; i < tau; ++i) {
    for (size_t j = i + 1; j < tau; ++j) within_x += std::abs(z[i] - z[j]);
  }
  for (size_t i = tau; i < kappa; ++i) {
    for (size_t j = i + 1; j < kappa; ++j) within_y += std::abs(z[i] - z[j]);
  }
  const double e = 2.0 / (m * k) * between - (m > 1 ? within_x / (m * (m - 1) / 2) : 0) -
                   (k > 1 ? within_y / (k * (k - 1) / 2) : 0);
  return m * k / (m + k) * e;
}

std::vector<double> random_series(size_t n, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> noise(100, 5);
  std::vector<double> z(n);
  for (double& v : z) v = noise(gen);
  if (n > 4) z[n / 2] += 40;  // a level change inside, so the maxima are not all noise
  return z;
}

TEST(EnergyStatistic, EveryRangeAgreesWithTheReferenceFormula) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const std::vector<double> z = random_series(11, seed);
    const PairSums sums(z);
    for (size_t s = 0; s < z.size(); ++s) {
      for (size_t tau = s + 1; tau < z.size(); ++tau) {
        for (size_t kappa = tau + 1; kappa <= z.size(); ++kappa) {
          const double expected = reference_q(z, s, tau, kappa);
          EXPECT_NEAR(energy_q(sums, s, tau, kappa), expected, 1e-9 * (1 + std::abs(expected)))
              << "seed " << seed << " s " << s << " tau " << tau << " kappa " << kappa;
        }
      }
    }
  }
}

TEST(EnergyStatistic, BestSplitIsTheReferenceArgmax) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const std::vector<double> z = random_series(4 + seed % 9, seed);
    for (size_t min_size : {1, 2, 3}) {
      const Split got = best_split(PairSums(z), 0, z.size(), min_size);
      double best = -INFINITY;
      size_t best_tau = 0, best_kappa = 0;
      for (size_t tau = min_size; tau + min_size <= z.size(); ++tau) {
        for (size_t kappa = tau + min_size; kappa <= z.size(); ++kappa) {
          const double q = reference_q(z, 0, tau, kappa);
          if (q > best + 1e-9) best = q, best_tau = tau, best_kappa = kappa;
        }
      }
      if (best_tau == 0) {
        EXPECT_FALSE(got.found);
        continue;
      }
      ASSERT_TRUE(got.found) << "seed " << seed;
      EXPECT_EQ(got.tau, best_tau) << "seed " << seed << " min_size " << min_size;
      EXPECT_EQ(got.kappa, best_kappa) << "seed " << seed << " min_size " << min_size;
      EXPECT_NEAR(got.q, best, 1e-9 * (1 + std::abs(best)));
    }
  }
}

TEST(EnergyStatistic, SplitFromEndIsTheReferenceMaximumOverStartAndTau) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    const std::vector<double> z = random_series(6 + seed % 7, seed);
    const Split got = best_split_from_end(PairSums(z), 0, z.size(), 2);
    double best = -INFINITY;
    for (size_t tau = 2; tau + 2 <= z.size(); ++tau) {
      for (size_t s = 0; s + 2 <= tau; ++s) best = std::max(best, reference_q(z, s, tau, z.size()));
    }
    ASSERT_TRUE(got.found);
    EXPECT_EQ(got.kappa, z.size());
    EXPECT_NEAR(got.q, best, 1e-9 * (1 + std::abs(best))) << "seed " << seed;
  }
}

TEST(EnergyStatistic, SplitAtEndKeepsKappaAtTheEnd) {
  const std::vector<double> z = {1, 1, 1, 1, 5, 5, 5, 1, 1};
  const Split split = best_split_at_end(PairSums(z), 0, z.size(), 2);
  ASSERT_TRUE(split.found);
  EXPECT_EQ(split.kappa, z.size());
  EXPECT_NEAR(split.q, reference_q(z, 0, split.tau, z.size()), 1e-12);
}

TEST(PermutationTest, PValueIsNeverBelowOneOverPermutationsPlusOne) {
  Rng rng(7);
  // No shuffle reaches the observed statistic: the smallest p-value there is.
  const PermutationResult r = permutation_p_value(10, 99, 0.05, rng, [](Rng&) { return 0.0; });
  EXPECT_DOUBLE_EQ(r.p_value, 1.0 / 100);
  EXPECT_EQ(r.permutations, 99);
  EXPECT_TRUE(r.complete);
}

TEST(PermutationTest, StopsOnceTheThresholdCannotBeReached) {
  Rng rng(7);
  int calls = 0;
  // Every shuffle reaches it: after 4 of them (4 + 1) / 100 >= 0.05 and the test stops.
  const PermutationResult r = permutation_p_value(1, 99, 0.05, rng, [&](Rng&) {
    ++calls;
    return 1.0;
  });
  EXPECT_EQ(calls, 4);
  EXPECT_FALSE(r.complete);
  EXPECT_GE(r.p_value, 0.05);
}

TEST(PermutationTest, StopsAfterTenShufflesAtLeastAsLarge) {
  Rng rng(7);
  int calls = 0;
  // At threshold 0.5 the hopeless rule would wait for 250 of 499; Besag and Clifford stop at 10.
  const PermutationResult r = permutation_p_value(1, 499, 0.5, rng, [&](Rng&) {
    ++calls;
    return calls % 2 == 0 ? 1.0 : 0.0;
  });
  EXPECT_EQ(calls, 20);
  EXPECT_FALSE(r.complete);
  EXPECT_DOUBLE_EQ(r.p_value, 10.0 / 20);
}

TEST(PermutationTest, SameSeedSameNumbers) {
  Rng a(derive_seed(42, {1, 2, 3})), b(derive_seed(42, {1, 2, 3})), c(derive_seed(42, {1, 2, 4}));
  const uint64_t first = a.next();
  EXPECT_EQ(first, b.next());
  EXPECT_NE(first, c.next());
  for (int i = 0; i < 1000; ++i) EXPECT_LT(a.below(7), 7u);
}

}  // namespace
}  // namespace benchgate::changes
