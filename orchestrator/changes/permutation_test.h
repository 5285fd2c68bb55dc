// The significance of a change-point candidate by permutation (Matteson and James 2014,
// section 3.2): under "no change" the order of the points does not matter, so the statistic
// of the data is compared with the same statistic over random shuffles of it. The random
// numbers come from an Rng the caller injects (a seed, never the clock), so a result is the
// same on every run.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>

namespace benchgate::changes {

// SplitMix64 (Steele, Lea and Flood 2014): small, fast and good enough to shuffle.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next();
  // Uniform in [0, n), n > 0 (Lemire's multiply-shift with rejection: no modulo bias).
  uint64_t below(uint64_t n);

 private:
  uint64_t state_;
};

// A seed for one test derived from the analysis seed and what identifies the test (its range
// in the series), so that each test draws the same numbers however many tests ran before it.
uint64_t derive_seed(uint64_t seed, std::initializer_list<uint64_t> parts);

struct PermutationResult {
  // (b + 1) / (n + 1) when all n shuffles ran and b of them gave a statistic at least the
  // observed one: never 0, the smallest value is 1 / (permutations + 1). Stopped early: see
  // permutation_p_value.
  double p_value = 1;
  int permutations = 0;   // shuffles done
  bool complete = false;  // false: stopped early
};

// Besag and Clifford's sequential stop (1991): after this many shuffles at least as large as
// the observed statistic, the test stops with p = h / l (l shuffles done), a valid p-value.
inline constexpr int kSequentialStop = 10;

// Runs up to `permutations` shuffles; `shuffled_statistic(rng)` shuffles its own copy of the
// data with rng and returns the statistic. Most candidates are not changes, and they cost a
// few shuffles instead of all of them: the test stops as soon as (b + 1) / (permutations + 1)
// >= threshold (the candidate can no longer be significant at that level; the p-value is then
// the estimate (b + 1) / (l + 1), at or above the threshold), or at Besag and Clifford's stop.
PermutationResult permutation_p_value(double observed, int permutations, double threshold, Rng& rng,
                                      const std::function<double(Rng&)>& shuffled_statistic);

}  // namespace benchgate::changes
