// The Wilcoxon signed-rank test and the Hodges-Lehmann estimate of one sample's centre
// (docs/GATES.md, "Paired gates"): what a paired gate judges the log ratios of its pairs of
// windows with when a few of them are wild (a machine that changed speed during one pair).
// Plain functions on plain numbers, so each can be checked against hand-computed values.
#pragma once

#include <cstddef>
#include <span>

namespace benchgate::gates {

// The exact test enumerates the 2^n' sign assignments of the n' nonzero differences by dynamic
// programming over their (doubled mid-)ranks; its cost grows as n'^3. Above this many nonzero
// differences it uses the normal approximation.
inline constexpr size_t kSignedRankExactLimit = 300;

struct SignedRankResult {
  size_t n = 0;        // differences given
  size_t nonzero = 0;  // those with a sign (zeros are ranked, never signed: Pratt)
  // The sum of the ranks of the positive differences; tied |x| share their mid-rank.
  double w_plus = 0;
  // P(W+ >= w_plus) under the null hypothesis (the differences' signs are + or - with
  // probability 1/2 each, independently), conditional on the observed ranks: exact when
  // `exact`, so ties and zeros need no correction. 1 when nothing has a sign.
  double p_greater = 1;
  // The smallest p_greater any sign assignment of these differences can give: 2^-nonzero
  // (every nonzero difference positive). At or above alpha, no data of this size can be
  // significant.
  double smallest_p = 1;
  bool exact = true;  // false: normal approximation (above kSignedRankExactLimit)
};

// One-sided: the alternative is that the differences tend to be positive. Zeros follow Pratt:
// they take part in the ranking of |x| (so a zero difference still pushes the others' ranks
// up) but carry no sign. The normal approximation uses the exact conditional mean and
// variance of W+ (sum r / 2, sum r^2 / 4 over the nonzero ranks r: the tie correction is in
// the ranks) and a continuity correction of one half. Non-finite inputs are the caller's to
// refuse.
SignedRankResult wilcoxon_signed_rank(std::span<const double> x);

// The Hodges-Lehmann estimate of the centre: the median of the n(n+1)/2 Walsh averages
// (x_i + x_j) / 2, i <= j. NaN for an empty input.
double hodges_lehmann_centre(std::span<const double> x);

// The distribution-free interval of the centre from the same Walsh averages (Tukey): with c
// the largest count for which P(T <= c) <= (1 - confidence) / 2 under the signed-rank null
// law without ties of n values, [W_(c+1), W_(M-c)] of the M sorted Walsh averages, at the
// achieved confidence 1 - 2 P(T <= c) (at least `confidence`; exact for continuous data,
// approximate when values tie). Without ties and zeros its lower end lies above 0 exactly
// when the one-sided signed-rank p is at most (1 - confidence) / 2. Unbounded when n is too
// small for the confidence (2^-n > (1 - confidence) / 2).
struct CentreInterval {
  double low = 0;
  double high = 0;
  double achieved_confidence = 0;
  bool bounded = false;
};
CentreInterval walsh_interval(std::span<const double> x, double confidence);

}  // namespace benchgate::gates
