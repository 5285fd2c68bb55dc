// Helpers shared by the gate tests: gate builders and seeded series.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "orchestrator/gates/gate_outcome.h"
#include "orchestrator/scenario/scenario.h"

namespace benchgate::gates::testing {

inline scenario::Gate relative_gate(std::string metric, double max_regression = 0.05,
                                    double alpha = 0.01) {
  scenario::Gate g;
  g.workload = "http_hello";
  g.metric = std::move(metric);
  g.baseline = "main";
  g.max_regression = max_regression;
  g.alpha = alpha;
  return g;
}

inline scenario::Gate absolute_gate(std::string metric, std::optional<double> max,
                                    std::optional<double> min = std::nullopt) {
  scenario::Gate g;
  g.workload = "http_hello";
  g.metric = std::move(metric);
  g.max = max;
  g.min = min;
  return g;
}

// n values around `centre` with multiplicative (log-normal) noise of relative size `noise`,
// so values stay positive however large the noise.
inline std::vector<double> series(std::mt19937_64& rng, double centre, double noise, int n) {
  std::normal_distribution<double> z(0, 1);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(centre * std::exp(noise * z(rng)));
  return v;
}

// A run's values whose figure is the median of its repetitions (as throughput's is; the
// gates take whatever figure they are given).
inline RunValues run(std::vector<double> repetitions) {
  std::vector<double> sorted = repetitions;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  const double median = n == 0  ? 0
                        : n % 2 ? sorted[n / 2]
                                : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  return {median, std::move(repetitions)};
}

// A run whose figure is given apart from its repetitions (a sum, a merged percentile).
inline RunValues run(double figure, std::vector<double> repetitions) {
  return {figure, std::move(repetitions)};
}

inline BaselineRun base(int64_t id, std::vector<double> repetitions) {
  return {id, run(std::move(repetitions))};
}

inline std::vector<BaselineRun> baseline_runs(std::mt19937_64& rng, int runs, double centre,
                                              double noise, int repetitions) {
  std::vector<BaselineRun> out;
  for (int r = 0; r < runs; ++r) {
    out.push_back(base(100 + r, series(rng, centre, noise, repetitions)));
  }
  return out;
}

// Runs with their own offsets (run-to-run noise) and a small within-run noise: run r's
// repetitions lie around centre * exp(offsets[r]).
inline std::vector<BaselineRun> offset_runs(std::mt19937_64& rng, double centre,
                                            const std::vector<double>& offsets, double noise,
                                            int repetitions) {
  std::vector<BaselineRun> out;
  for (size_t r = 0; r < offsets.size(); ++r) {
    out.push_back(base(static_cast<int64_t>(100 + r),
                       series(rng, centre * std::exp(offsets[r]), noise, repetitions)));
  }
  return out;
}

}  // namespace benchgate::gates::testing
