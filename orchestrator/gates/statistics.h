// The statistics release gates and `orchestrator compare` rest on (docs/GATES.md): robust
// summaries, Student's t, the exact Mann-Whitney U test, Holm's correction and a
// distribution-free interval for a shift. Plain functions on plain numbers, no I/O, so each
// can be checked against published values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace benchgate::gates {

// What a statistic is when it cannot be computed (too few values, a zero spread).
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// --- Descriptive statistics. An empty input gives NaN. ---

double mean(std::span<const double> values);
// Sample standard deviation (n - 1 in the denominator); NaN with fewer than two values.
double sample_stddev(std::span<const double> values);
double median(std::span<const double> values);
// The pooled variance of the values about their own group's mean (sum of squares over the sum
// of n - 1), groups with fewer than two values left out; NaN when no group has two.
double pooled_within_variance(std::span<const std::vector<double>> groups);
// Quantile q in [0, 1] by linear interpolation between order statistics (Hyndman-Fan type 7,
// the default of R and NumPy): quantile(v, 0.5) == median(v).
double quantile(std::span<const double> values, double q);
// Median absolute deviation from the median, unscaled (multiply by 1.4826 to estimate a
// normal standard deviation).
double median_absolute_deviation(std::span<const double> values);
// Var(median of k values) / Var(mean of k values) for independent normal values: the price
// of judging against a median (1 for k = 1 and 2; 1.434 for k = 5; below pi/2 for every k,
// which is returned above the tabulated 20). Computed by quadrature of the order statistics'
// densities.
double median_variance_ratio(size_t k);

// --- Student's t distribution (df > 0; NaN otherwise). ---

// Regularized incomplete beta function I_x(a, b), a, b > 0, x in [0, 1].
double regularized_incomplete_beta(double a, double b, double x);
// P(T <= t).
double student_t_cdf(double t, double df);
// P(T >= t), computed directly so that tiny tail probabilities keep their precision.
double student_t_sf(double t, double df);
// The t with P(T <= t) = p, p in (0, 1): student_t_quantile(0.99, 9) = 2.821.
double student_t_quantile(double p, double df);
// The standard normal distribution (used by the large-sample approximations).
double normal_cdf(double z);
double normal_quantile(double p);

// --- Mann-Whitney U (Wilcoxon rank-sum) test. ---

// The alternative hypothesis about x relative to y.
enum class Alternative {
  kGreater,   // x tends to be larger than y
  kLess,      // x tends to be smaller than y
  kTwoSided,  // either; twice the smaller one-sided p, capped at 1
};

struct MannWhitneyResult {
  double u = 0;        // pairs (x_i, y_j) with x_i > y_j, ties counting one half
  double p_value = 1;  // 1 when either sample is empty
  bool exact = true;   // false: normal approximation (see kMannWhitneyExactLimit)
};

// The exact test enumerates the permutation distribution of the rank sum of the observed
// values (ties get mid-ranks, and the exact distribution is that of the tied ranks, so ties
// need no correction) by dynamic programming over the ranks. Its cost grows as
// N * min(n1, n2)^2 * N; above this limit the test uses the normal approximation with the tie
// correction of the variance and a continuity correction of one half.
inline constexpr double kMannWhitneyExactLimit = 4e7;
MannWhitneyResult mann_whitney_u(std::span<const double> x, std::span<const double> y,
                                 Alternative alternative);
// The smallest two-sided p the exact test can give samples of n1 and n2 values: every value of
// one sample above every value of the other, without ties (ties only raise it), so
// 2 / C(n1 + n2, n1), at most 1 (1 when a sample is empty). Where this is not below alpha no
// difference can be significant, however large: 3 + 3 values give at best 0.1.
double mann_whitney_smallest_p(size_t n1, size_t n2);

// --- Multiple testing. ---

// Holm's step-down adjusted p-values, in the input order: reject hypothesis i at family-wise
// level alpha exactly when adjusted[i] < alpha (or <=, as the caller's rule is). NaN inputs
// are not part of the family and come back as NaN.
std::vector<double> holm_adjust(std::span<const double> p_values);

// --- Shift estimate and interval. ---

// Hodges-Lehmann estimate of the shift x - y (the median of all pairwise differences) with
// the distribution-free confidence interval that inverts the Mann-Whitney test (Lehmann's
// method): [D(c+1), D(n1*n2 - c)] of the sorted differences D, where c is the largest count
// with P(U <= c) <= (1 - confidence) / 2 under the null distribution without ties (exact
// when small, normal approximation otherwise). With too few samples for the requested
// confidence the interval is unbounded (-inf, +inf). Apply it to log values to get an
// interval for a ratio.
struct ShiftInterval {
  double estimate = 0;
  double low = 0;
  double high = 0;
  double achieved_confidence = 0;  // >= the requested one when bounded (discreteness)
  bool bounded = false;
};
ShiftInterval hodges_lehmann_interval(std::span<const double> x, std::span<const double> y,
                                      double confidence);

// A benchstat-style comparison of two samples of one metric (a: old, b: new): both medians,
// the relative change of b against a with its interval, and the two-sided Mann-Whitney p.
// The interval is for the ratio of b to a (from logs) when every value is positive, otherwise
// for the difference, divided by a's median to give a relative figure.
struct SampleComparison {
  double median_a = 0;
  double median_b = 0;
  double change = 0;      // relative_change(median_a, median_b)
  double change_low = 0;  // interval of the relative change; +-inf when unbounded
  double change_high = 0;
  bool interval_bounded = false;
  double p_value = 1;        // two-sided Mann-Whitney
  bool significant = false;  // p_value < alpha: print "~" otherwise
};
// The change of b against a, b / a - 1: 0 where both are equal (0 to 0 included: no errors in
// either run is no change), NaN from 0 to anything else (no relative size: "from 0"). The one
// definition `orchestrator compare` uses, for its figures and for the repetitions' medians.
double relative_change(double a, double b);

SampleComparison compare_samples(std::span<const double> a, std::span<const double> b,
                                 double confidence = 0.95, double alpha = 0.05);

}  // namespace benchgate::gates
