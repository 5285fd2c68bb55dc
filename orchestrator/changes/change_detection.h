// Change points of one series of run values (docs/GATES.md, "Change points"): E-divisive means
// (Matteson and James 2014) with a permutation test for each candidate, in sliding windows and
// two passes as Hunter/Apache Otava do (Fleming et al., ICPE 2023; the mathematics page of Otava's
// documentation):
//
// 1. Split (weak pass): windows of `window` points, each half a window after the previous one
//    (or starting at the last change found in it). In each window E-divisive bisects
//    recursively while its candidate is significant at the weak level; the union over windows
//    is the set of weak change points. A window sees only its own points, so a long history
//    costs time in proportion to its length and an old change does not mask a new one.
// 2. Merge (strong pass): each weak point is tested between its neighbours (at most `window`
//    points on either side); the weakest (the largest p-value at or above alpha, else the
//    smallest change below min_change) is dropped and its neighbours are tested again, until
//    every point left is significant at alpha and at least min_change in size.
//
// Plain functions on plain numbers: no store, no clock; the permutations draw from random
// streams derived from options.seed and each test's range, so a result depends only on the
// values and the options.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace benchgate::changes {

struct ChangeOptions {
  double alpha = 0.01;       // significance of a reported change (strong pass)
  double min_change = 0.01;  // |median after / median before - 1| below this is not reported
  size_t window = 50;        // points per window, and the most on either side of a test
  size_t min_size = 3;       // the fewest points on either side of a change
  int permutations = 499;    // most shuffles per test: the smallest p-value is 1/500
  uint64_t seed = 0x6265'6e63'6867'6174;  // "benchgat"

  // The weak pass's level: 10 alpha below 0.05, 2 alpha below 0.5 (Otava's rule), at most 1.
  double weak_alpha() const;
};

// A change point: the series changes at `index` (the first point after the change).
struct ChangePoint {
  size_t index = 0;
  size_t before_from = 0;  // the points compared: [before_from, index) and [index, after_to)
  size_t after_to = 0;
  double p_value = 1;  // permutation p-value of the split (strong pass)
  double median_before = 0;
  double median_after = 0;
  // gates::relative_change(median_before, median_after), as `orchestrator compare` and the
  // gates give a change: 0 from 0 to 0, NaN from 0 to anything else.
  double change = 0;
  // 95% interval of the change (Hodges-Lehmann on logs when every value is positive, as
  // `orchestrator compare` does); unbounded: -inf, +inf.
  double change_low = 0;
  double change_high = 0;
  bool interval_bounded = false;
};

// What the split pass leaves for a later, longer series with the same first `length` values:
// the windows before `resume_start` were whole (they will not change), and `stable_weak` are
// the weak change points they found.
struct SplitState {
  size_t length = 0;
  size_t resume_start = 0;
  std::vector<size_t> stable_weak;
};

// The weak change points of `values`, sorted. With `resume` (a state of a prefix of `values`
// computed with the same options), only the windows from resume->resume_start on are analysed
// again: the result is the same as without it. `state_out` receives the state for the next
// call.
std::vector<size_t> weak_change_points(std::span<const double> values, const ChangeOptions& options,
                                       const SplitState* resume = nullptr,
                                       SplitState* state_out = nullptr);

// The strong pass over `weak` (sorted positions in `values`).
std::vector<ChangePoint> merge_change_points(std::span<const double> values,
                                             std::vector<size_t> weak,
                                             const ChangeOptions& options);

// What a later analysis of a longer series (the same first values, the same options)
// resumes from. The strong pass only ever compares points within `window` of each other, so
// weak points in groups more than `window` apart never affect each other: a group that ends
// more than `window` before the split's resume point can gain no neighbour, and its change
// points are final.
struct AnalysisState {
  SplitState split;
  size_t frozen_until = 0;          // the change points before this position are final
  std::vector<ChangePoint> frozen;  // those change points
};

// Both passes: the change points of `values`, in order. With `resume`, only the windows from
// its resume point and the weak points after its final groups are analysed again: the result
// is the same as without it.
std::vector<ChangePoint> detect_changes(std::span<const double> values,
                                        const ChangeOptions& options,
                                        const AnalysisState* resume = nullptr,
                                        AnalysisState* state_out = nullptr);

}  // namespace benchgate::changes
