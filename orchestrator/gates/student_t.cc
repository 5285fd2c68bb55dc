// Student's t and the standard normal distribution (statistics.h). The t distribution is
// computed from the regularized incomplete beta function, evaluated by its continued
// fraction (modified Lentz iteration), which converges quickly on the side of the symmetry
// point where it is used.
#include <cmath>
#include <limits>

#include "orchestrator/gates/statistics.h"

namespace benchgate::gates {
namespace {

constexpr double kTiny = 1e-300;  // keeps the Lentz denominators away from zero

// Continued fraction for I_x(a, b), valid for x < (a + 1) / (a + b + 2).
double beta_continued_fraction(double a, double b, double x) {
  double c = 1.0;
  double d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::abs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double result = d;
  for (int m = 1; m <= 500; ++m) {
    const double md = m;
    // Even step.
    double coeff = md * (b - md) * x / ((a + 2 * md - 1) * (a + 2 * md));
    d = 1.0 + coeff * d;
    c = 1.0 + coeff / c;
    if (std::abs(d) < kTiny) d = kTiny;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    result *= d * c;
    // Odd step.
    coeff = -(a + md) * (a + b + md) * x / ((a + 2 * md) * (a + 2 * md + 1));
    d = 1.0 + coeff * d;
    c = 1.0 + coeff / c;
    if (std::abs(d) < kTiny) d = kTiny;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double step = d * c;
    result *= step;
    if (std::abs(step - 1.0) < 1e-15) break;
  }
  return result;
}

// Finds x in [lo, hi] with f(x) = target for an increasing f, by bisection: slow but sure,
// and these are evaluated a handful of times per gate.
template <class F>
double bisect_increasing(F f, double target, double lo, double hi) {
  for (int i = 0; i < 200 && hi - lo > 1e-14 * std::max(1.0, std::abs(lo)); ++i) {
    const double mid = 0.5 * (lo + hi);
    if (f(mid) < target) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return 0.5 * (lo + hi);
}

}  // namespace

double regularized_incomplete_beta(double a, double b, double x) {
  if (!(a > 0) || !(b > 0) || !(x >= 0 && x <= 1)) return kNaN;
  if (x == 0) return 0;
  if (x == 1) return 1;
  const double log_front =
      a * std::log(x) + b * std::log1p(-x) - (std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b));
  const double front = std::exp(log_front);
  if (x < (a + 1) / (a + b + 2)) return front * beta_continued_fraction(a, b, x) / a;
  // Use the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) where the fraction converges.
  return 1.0 - front * beta_continued_fraction(b, a, 1.0 - x) / b;
}

double student_t_sf(double t, double df) {
  if (!(df > 0) || std::isnan(t)) return kNaN;
  if (std::isinf(t)) return t > 0 ? 0.0 : 1.0;
  // P(|T| >= |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2).
  const double two_tailed = regularized_incomplete_beta(df / 2, 0.5, df / (df + t * t));
  return t >= 0 ? two_tailed / 2 : 1.0 - two_tailed / 2;
}

double student_t_cdf(double t, double df) {
  if (!(df > 0) || std::isnan(t)) return kNaN;
  return student_t_sf(-t, df);
}

double student_t_quantile(double p, double df) {
  if (!(df > 0) || !(p > 0 && p < 1)) return kNaN;
  if (p == 0.5) return 0;
  if (p < 0.5) return -student_t_quantile(1 - p, df);
  // Bracket the root: the t tail is heavier than the normal one, so widen until enclosed.
  double hi = 1;
  while (student_t_cdf(hi, df) < p && hi < 1e300) hi *= 2;
  return bisect_increasing([df](double t) { return student_t_cdf(t, df); }, p, 0.0, hi);
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) return kNaN;
  if (p < 0.5) return -normal_quantile(1 - p);
  return bisect_increasing(normal_cdf, p, 0.0, 40.0);
}

}  // namespace benchgate::gates
