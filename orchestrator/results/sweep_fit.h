// How a cost grows with a swept parameter (docs/MEASUREMENT.md, "Comparisons, sweeps"): a least
// squares line cost = a + b*n with its R^2, and the exponents of adjacent pairs
// (log(cost ratio) / log(n ratio)) whose median names the growth class.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

namespace benchgate::results {

struct LinearFit {
  double a = 0;   // intercept
  double b = 0;   // slope: cost per unit of n
  double r2 = 0;  // 1 when every point is on the line; 1 too when every cost is equal
};

// Needs at least two points and two distinct n; nullopt otherwise.
std::optional<LinearFit> fit_linear(std::span<const double> n, std::span<const double> cost);

struct GrowthExponents {
  double median = 0;      // median of the adjacent pairs' exponents
  double worst = 0;       // the largest (steepest) pair exponent
  size_t worst_pair = 0;  // index i of the pair (n[i], n[i+1])
  size_t pairs = 0;       // pairs used (both n and both costs positive, n increasing)
};

// nullopt when no adjacent pair is usable.
std::optional<GrowthExponents> growth_exponents(std::span<const double> n,
                                                std::span<const double> cost);

// "constant" (exponent < 0.1), "sublinear" (< 0.9), "linear" (<= 1.1), "superlinear".
std::string growth_class(double exponent);

}  // namespace benchgate::results
