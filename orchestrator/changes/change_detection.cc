// The two passes of change-point detection (change_detection.h).
#include "orchestrator/changes/change_detection.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "orchestrator/changes/energy_statistic.h"
#include "orchestrator/changes/permutation_test.h"
#include "orchestrator/gates/statistics.h"

namespace benchgate::changes {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Fisher-Yates over v[a, b).
void shuffle_range(std::vector<double>& v, size_t a, size_t b, Rng& rng) {
  for (size_t i = b; i > a + 1; --i) {
    const size_t j = a + static_cast<size_t>(rng.below(i - a));
    std::swap(v[i - 1], v[j]);
  }
}

// E-divisive inside one window: the positions (relative to it) of the splits found while each
// next candidate was significant at `threshold`. The candidate is the best split of any
// current segment; its null distribution shuffles within every segment and takes the best
// split of any (Matteson and James 2014, section 3.2).
std::vector<size_t> divide_window(std::span<const double> window, const ChangeOptions& o,
                                  double threshold, uint64_t seed) {
  const size_t n = window.size();
  std::vector<size_t> bounds = {0, n};
  std::vector<size_t> found;
  const PairSums sums(window);
  std::vector<double> shuffled(window.begin(), window.end());
  PairSums shuffled_sums;
  auto best_of_segments = [&](const PairSums& s) {
    Split best;
    for (size_t i = 0; i + 1 < bounds.size(); ++i) {
      const Split split = best_split(s, bounds[i], bounds[i + 1], o.min_size);
      if (split.found && (!best.found || split.q > best.q)) best = split;
    }
    return best;
  };
  for (uint64_t step = 0;; ++step) {
    const Split candidate = best_of_segments(sums);
    if (!candidate.found) break;
    Rng rng(derive_seed(seed, {step}));
    const PermutationResult p =
        permutation_p_value(candidate.q, o.permutations, threshold, rng, [&](Rng& r) {
          for (size_t i = 0; i + 1 < bounds.size(); ++i) {
            shuffle_range(shuffled, bounds[i], bounds[i + 1], r);
          }
          shuffled_sums.assign(shuffled);
          return best_of_segments(shuffled_sums).q;
        });
    if (p.p_value >= threshold) break;
    found.push_back(candidate.tau);
    bounds.insert(std::upper_bound(bounds.begin(), bounds.end(), candidate.tau), candidate.tau);
    // Later shuffles permute within the new segments, starting from the data's order.
    shuffled.assign(window.begin(), window.end());
  }
  std::sort(found.begin(), found.end());
  return found;
}

// |change| for the min_change rule; a change from 0 to anything else (no relative size) is
// not small.
double magnitude(const ChangePoint& cp) {
  return std::isnan(cp.change) ? kInf : std::abs(cp.change);
}

// The strong test of weak[i] against its neighbours: observed Q of the split at weak[i] of
// v[a, b), against the best split of shuffles of v[a, b) (so the choice of the point among
// all positions is paid for, and that of either end). Medians and the change, without the
// interval.
ChangePoint test_point(std::span<const double> values, const std::vector<size_t>& weak, size_t i,
                       const ChangeOptions& o) {
  const size_t n = values.size(), tau = weak[i];
  size_t a = i > 0 ? weak[i - 1] : 0;
  size_t b = i + 1 < weak.size() ? weak[i + 1] : n;
  a = std::max(a, tau > o.window ? tau - o.window : size_t{0});
  b = std::min(b, tau + o.window);
  ChangePoint cp;
  cp.index = tau;
  cp.before_from = a;
  cp.after_to = b;
  const std::span<const double> before = values.subspan(a, tau - a);
  const std::span<const double> after = values.subspan(tau, b - tau);
  cp.median_before = before.empty() ? std::nan("") : gates::median(before);
  cp.median_after = after.empty() ? std::nan("") : gates::median(after);
  cp.change = gates::relative_change(cp.median_before, cp.median_after);
  cp.change_low = -kInf;
  cp.change_high = kInf;
  if (before.size() < o.min_size || after.size() < o.min_size) return cp;  // p-value 1

  const std::span<const double> segment = values.subspan(a, b - a);
  const PairSums sums(segment);
  const double observed = energy_q(sums, 0, tau - a, b - a);
  std::vector<double> shuffled(segment.begin(), segment.end());
  PairSums shuffled_sums;
  Rng rng(derive_seed(o.seed, {a, tau, b, 1}));
  cp.p_value = permutation_p_value(observed, o.permutations, o.alpha, rng, [&](Rng& r) {
                 shuffle_range(shuffled, 0, shuffled.size(), r);
                 shuffled_sums.assign(shuffled);
                 // Either neighbour may itself have been chosen by the data (a short run
                 // of high values between two weak points): the null distribution takes the
                 // best split with either end free, so that choice is paid for too.
                 const size_t len = shuffled.size();
                 return std::max(best_split(shuffled_sums, 0, len, o.min_size).q,
                                 best_split_from_end(shuffled_sums, 0, len, o.min_size).q);
               }).p_value;
  return cp;
}

void add_interval(std::span<const double> values, ChangePoint& cp) {
  const gates::SampleComparison c =
      gates::compare_samples(values.subspan(cp.before_from, cp.index - cp.before_from),
                             values.subspan(cp.index, cp.after_to - cp.index), 0.95);
  cp.change_low = c.change_low;
  cp.change_high = c.change_high;
  cp.interval_bounded = c.interval_bounded;
}

}  // namespace

double ChangeOptions::weak_alpha() const {
  if (alpha < 0.05) return std::min(1.0, alpha * 10);
  if (alpha < 0.5) return std::min(1.0, alpha * 2);
  return alpha;
}

std::vector<size_t> weak_change_points(std::span<const double> values, const ChangeOptions& o,
                                       const SplitState* resume, SplitState* state_out) {
  const size_t n = values.size();
  const size_t width = std::max(o.window, 2 * std::max<size_t>(o.min_size, 1));
  const size_t step = std::max<size_t>(width / 2, 1);
  std::set<size_t> weak, stable;
  size_t start = 0;
  if (resume != nullptr && resume->length <= n && resume->resume_start <= n) {
    start = resume->resume_start;
    weak.insert(resume->stable_weak.begin(), resume->stable_weak.end());
    stable = weak;
  }
  SplitState state;
  state.length = n;
  bool resume_found = false;
  while (start < n) {
    const size_t end = std::min(start + width, n);
    // The first window that reaches past the data: from here on, more points change results.
    if (!resume_found && start + width > n) {
      state.resume_start = start;
      resume_found = true;
    }
    std::vector<size_t> found;
    if (end - start >= 2 * o.min_size) {
      found = divide_window(values.subspan(start, end - start), o, o.weak_alpha(),
                            derive_seed(o.seed, {start, end}));
    }
    for (size_t f : found) {
      weak.insert(start + f);
      if (!resume_found) stable.insert(start + f);
    }
    const size_t last = found.empty() ? 0 : start + found.back();
    start = std::max(last, start + step);
  }
  if (!resume_found) state.resume_start = start;
  state.stable_weak.assign(stable.begin(), stable.end());
  if (state_out != nullptr) *state_out = std::move(state);
  return {weak.begin(), weak.end()};
}

std::vector<ChangePoint> merge_change_points(std::span<const double> values,
                                             std::vector<size_t> weak, const ChangeOptions& o) {
  std::vector<ChangePoint> points;
  points.reserve(weak.size());
  for (size_t i = 0; i < weak.size(); ++i) points.push_back(test_point(values, weak, i, o));
  while (!points.empty()) {
    // The weakest: the largest p-value that is not significant, else the smallest change
    // below the minimum. Dropping it changes what its neighbours are compared with.
    size_t weakest = points.size();
    for (size_t i = 0; i < points.size(); ++i) {
      if (points[i].p_value >= o.alpha &&
          (weakest == points.size() || points[i].p_value > points[weakest].p_value)) {
        weakest = i;
      }
    }
    if (weakest == points.size()) {
      for (size_t i = 0; i < points.size(); ++i) {
        if (magnitude(points[i]) < o.min_change &&
            (weakest == points.size() || magnitude(points[i]) < magnitude(points[weakest]))) {
          weakest = i;
        }
      }
    }
    if (weakest == points.size()) break;
    weak.erase(weak.begin() + static_cast<std::ptrdiff_t>(weakest));
    points.erase(points.begin() + static_cast<std::ptrdiff_t>(weakest));
    if (weakest > 0) points[weakest - 1] = test_point(values, weak, weakest - 1, o);
    if (weakest < points.size()) points[weakest] = test_point(values, weak, weakest, o);
  }
  for (ChangePoint& cp : points) add_interval(values, cp);
  return points;
}

std::vector<ChangePoint> detect_changes(std::span<const double> values,
                                        const ChangeOptions& options, const AnalysisState* resume,
                                        AnalysisState* state_out) {
  AnalysisState next;
  const std::vector<size_t> weak =
      weak_change_points(values, options, resume ? &resume->split : nullptr, &next.split);
  const size_t from = resume ? resume->frozen_until : 0;
  std::vector<ChangePoint> result = resume ? resume->frozen : std::vector<ChangePoint>{};
  const auto first_active = std::lower_bound(weak.begin(), weak.end(), from);
  std::vector<ChangePoint> merged =
      merge_change_points(values, std::vector<size_t>(first_active, weak.end()), options);
  result.insert(result.end(), merged.begin(), merged.end());
  if (state_out != nullptr) {
    // Groups of weak points closer than `window` to each other, from the first active one:
    // each group that ends more than `window` before the resume point is final.
    next.frozen_until = from;
    for (auto group = first_active; group != weak.end();) {
      auto last = group;
      while (last + 1 != weak.end() && *(last + 1) - *last <= options.window) ++last;
      if (*last + options.window >= next.split.resume_start) break;
      next.frozen_until = *last + 1;
      group = last + 1;
    }
    for (const ChangePoint& cp : result) {
      if (cp.index < next.frozen_until) next.frozen.push_back(cp);
    }
    *state_out = std::move(next);
  }
  return result;
}

}  // namespace benchgate::changes
