// The exact permutation distribution of a rank sum, shared by the Mann-Whitney test and the
// Hodges-Lehmann interval. Internal to the gates library.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace benchgate::gates::detail {

// For integer ranks r_1..r_N (any scale, e.g. doubled mid-ranks so that ties stay integral),
// the number of m-element subsets whose ranks sum to s, for s = 0 .. the sum of the m largest
// ranks (the size of the result).
// Counts are doubles: they stay exact while below 2^53 and only their ratios are used.
std::vector<double> rank_sum_counts(std::span<const int64_t> ranks, size_t m);

// The DP's work, N * m * (largest sum), to decide between exact and approximate methods.
double rank_sum_cost(size_t n_total, size_t m, int64_t max_rank);

}  // namespace benchgate::gates::detail
