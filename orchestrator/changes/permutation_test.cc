// Shuffling and the permutation p-value (permutation_test.h).
#include "orchestrator/changes/permutation_test.h"

#include <cmath>

namespace benchgate::changes {

uint64_t Rng::next() {
  state_ += 0x9e3779b97f4a7c15ULL;
  uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t Rng::below(uint64_t n) {
  const uint64_t limit = -n % n;  // 2^64 mod n: values under it would be over-represented
  while (true) {
    const unsigned __int128 product = static_cast<unsigned __int128>(next()) * n;
    if (static_cast<uint64_t>(product) >= limit) return static_cast<uint64_t>(product >> 64);
  }
}

uint64_t derive_seed(uint64_t seed, std::initializer_list<uint64_t> parts) {
  Rng mix(seed);
  uint64_t h = mix.next();
  for (uint64_t part : parts) {
    Rng step(h ^ (part * 0x9e3779b97f4a7c15ULL));
    h = step.next();
  }
  return h;
}

PermutationResult permutation_p_value(double observed, int permutations, double threshold, Rng& rng,
                                      const std::function<double(Rng&)>& shuffled_statistic) {
  PermutationResult result;
  // Floating-point sums of the same numbers in another order differ in the last bits: a
  // shuffle that reproduces the data must count as "at least as large".
  const double bar = observed - 1e-12 * std::abs(observed);
  const double total = static_cast<double>(permutations) + 1;
  int at_least = 0;
  for (int i = 1; i <= permutations; ++i) {
    if (shuffled_statistic(rng) >= bar) ++at_least;
    result.permutations = i;
    // No longer significant whatever the remaining shuffles give.
    const bool hopeless = (at_least + 1) / total >= threshold;
    if (hopeless || at_least == kSequentialStop) {
      result.p_value = hopeless ? (at_least + 1.0) / (i + 1.0) : static_cast<double>(at_least) / i;
      result.complete = i == permutations;
      return result;
    }
  }
  result.p_value = (at_least + 1) / total;
  result.complete = true;
  return result;
}

}  // namespace benchgate::changes
