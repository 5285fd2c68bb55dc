// What `orchestrator calibrate` measures (docs/GATES.md, "Calibration"): the between-run noise of a
// metric's figure over an A/A series of runs of one unchanged build on one testbed, and the
// smallest regression a relative gate can then detect. Plain numbers in, plain numbers out.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace benchgate::gates {

struct NoiseEstimate {
  int runs = 0;
  double mean = 0;    // of the figures, base units
  double cv = 0;      // sample standard deviation / mean of the figures
  double log_sd = 0;  // sample standard deviation in the gates' log space (gate_evaluator.h)
  // The smallest regression (a fraction, 0.05 = 5%) significant at alpha, one-sided:
  double detectable_1 = 0;  // one baseline run with this calibration: t(1-a, N-1) s sqrt(2)
  double detectable_5 = 0;  // five, pooled with it: t(1-a, N+3) s sqrt(1 + 1.434/5)

  // From the runs' repetitions, when every run had at least two (nothing otherwise):
  struct WithinRuns {
    int repetitions = 0;    // per run (the fewest of any run)
    double log_sd = 0;      // pooled spread of one repetition about its run's mean, log space
    double between_sd = 0;  // what that spread alone gives a run's figure: log_sd / sqrt(R)
    // A paired gate (`against`) on this scenario: R pairs of alternating windows, each pair's
    // log ratio with variance 2 log_sd^2; the smallest regression its paired t detects at
    // alpha, t(1-a, R-1) sqrt(2 / R) log_sd (gate_evaluator.cc, evaluate_paired_gate).
    double detectable_paired = 0;
    // The same for the signed-rank test, a paired gate's default: the paired t's figure times
    // sqrt(pi / 3), the inverse square root of the test's asymptotic relative efficiency 3 / pi
    // against the t for normal log ratios (it needs pi / 3 as many pairs). Nothing when no R
    // pairs can reach significance: 2^-R >= alpha.
    std::optional<double> detectable_paired_signed_rank;
  };
  std::optional<WithinRuns> within;

  // Only with `within`: the runs' figures split into two groups this far apart (a fraction of the
  // lower one's figure, 0.27 = 27%) with at least two runs in each and no run between them: the
  // largest gap of the sorted figures, when it exceeds 6 times the spread the repetitions explain
  // and half the figures' whole range. The testbed's speed changed between runs (a host moving a
  // virtual machine's CPUs, frequency steps, a neighbour), which no number of stored runs
  // averages away.
  std::optional<double> groups_apart;
};

// From each run's figure of `metric` and, optionally, each run's repetitions of it (the same
// runs, in the same order); nothing for an unknown metric, fewer than two runs, or a negative
// or non-finite figure.
std::optional<NoiseEstimate> estimate_noise(std::string_view metric,
                                            std::span<const double> figures, double alpha,
                                            std::span<const std::vector<double>> repetitions = {});

}  // namespace benchgate::gates
