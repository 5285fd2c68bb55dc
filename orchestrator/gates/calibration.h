// What `orchestrator calibrate` measures (docs/GATES.md, "Calibration"): the between-run noise of a
// metric's figure over an A/A series of runs of one unchanged build on one testbed, and the
// smallest regression a relative gate can then detect. Plain numbers in, plain numbers out.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace benchgate::gates {

struct NoiseEstimate {
  int runs = 0;
  double mean = 0;    // of the figures, base units
  double cv = 0;      // sample standard deviation / mean of the figures
  double log_sd = 0;  // sample standard deviation in the gates' log space (gate_evaluator.h)
  // The smallest regression (a fraction, 0.05 = 5%) significant at alpha, one-sided:
  double detectable_1 = 0;  // one baseline run with this calibration: t(1-a, N-1) s sqrt(2)
  double detectable_5 = 0;  // five, pooled with it: t(1-a, N+3) s sqrt(1 + 1.434/5)
};

// From each run's figure of `metric`; nothing for an unknown metric, fewer than two runs, or a
// negative or non-finite figure.
std::optional<NoiseEstimate> estimate_noise(std::string_view metric,
                                            std::span<const double> figures, double alpha);

}  // namespace benchgate::gates
