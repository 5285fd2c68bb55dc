// Dynamic programming over ranks for the exact rank-sum distribution.
#include "orchestrator/gates/rank_sum_distribution.h"

#include <algorithm>
#include <functional>
#include <numeric>

namespace benchgate::gates::detail {

std::vector<double> rank_sum_counts(std::span<const int64_t> ranks, size_t m) {
  // No m-subset sums past the m largest ranks, which bounds the table.
  std::vector<int64_t> largest(ranks.begin(), ranks.end());
  std::sort(largest.begin(), largest.end(), std::greater<>());
  const int64_t ceiling = std::accumulate(
      largest.begin(), largest.begin() + static_cast<std::ptrdiff_t>(std::min(m, largest.size())),
      int64_t{0});
  const auto width = static_cast<size_t>(ceiling) + 1;
  // counts[j * width + s]: subsets of the ranks seen so far with j elements summing to s.
  std::vector<double> counts((m + 1) * width, 0.0);
  counts[0] = 1.0;
  size_t seen = 0;
  int64_t reach = 0;  // the largest sum reachable so far, to skip empty columns
  for (int64_t r : ranks) {
    ++seen;
    reach = std::min(reach + r, ceiling);
    const auto rank = static_cast<size_t>(r);
    // Descending j so each rank is used at most once per subset.
    for (size_t j = std::min(seen, m); j >= 1; --j) {
      double* row = &counts[j * width];
      const double* prev = &counts[(j - 1) * width];
      for (auto s = static_cast<size_t>(reach); s >= rank; --s) {
        row[s] += prev[s - rank];
        if (s == 0) break;
      }
    }
  }
  return {counts.begin() + static_cast<std::ptrdiff_t>(m * width), counts.end()};
}

double rank_sum_cost(size_t n_total, size_t m, int64_t max_rank) {
  return static_cast<double>(n_total) * static_cast<double>(m) * static_cast<double>(m) *
         static_cast<double>(max_rank);
}

}  // namespace benchgate::gates::detail
