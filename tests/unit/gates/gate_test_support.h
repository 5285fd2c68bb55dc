// Helpers shared by the gate tests: gate builders and seeded series.
#pragma once

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

inline std::vector<BaselineRun> baseline_runs(std::mt19937_64& rng, int runs, double centre,
                                              double noise, int repetitions) {
  std::vector<BaselineRun> out;
  for (int r = 0; r < runs; ++r) {
    out.push_back({100 + r, series(rng, centre, noise, repetitions)});
  }
  return out;
}

}  // namespace benchgate::gates::testing
