// The series `orchestrator calibrate` measures (docs/GATES.md, "Calibration"): per workload,
// variant and metric, each counted run's figure and repetitions. A run counts for a workload
// only where it would count as history of its series (results::not_history_reason, the rule
// relative gates, change gates and change points apply to stored runs): a workload measured
// while a process was stopped, or without every worker, would inflate the noise stored for
// later calibrated-t gates, making them less sensitive. Such a workload is left out and named.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "orchestrator/results/results.h"
#include "orchestrator/scenario/scenario.h"

namespace benchgate::gating {

// Always calibrated, gates or not: what most gates name.
inline constexpr const char* kCalibratedMetrics[] = {"throughput.rps", "latency.p50",
                                                     "latency.p99"};
inline constexpr double kCalibrationAlpha = 0.01;

// One calibrated series of the scenario: a workload's variant and a metric, with the alpha of
// the first gate on it and that gate's figures over the runs.
struct CalibrationSeries {
  std::string workload;
  std::string variant;
  std::string params_hash;
  std::string metric;
  double alpha = kCalibrationAlpha;
  // Holm's correction over a run's relative and paired gate verdicts (docs/GATES.md,
  // "Verdicts"): how many there are, this series' own counted once also where no gate judges
  // it yet (a gate added on it is one more). 1: a gate of it is judged alone.
  size_t holm_family = 1;
  // The level a relative or paired gate of the series takes when no other gate of the run is
  // significant (an A/A run): alpha / holm_family, the level the gates' own `detectable` and
  // `underpowered` are at (gates::apply_holm). What calibrate's detectable figures are at.
  double level() const { return alpha / static_cast<double>(holm_family); }
  // The test of the first paired gate on the series (docs/GATES.md, "Paired gates"), or the
  // default: what `detect paired` estimates.
  scenario::PairedTest paired_test = scenario::PairedTest::kSignedRank;
  bool paired_test_set = false;
  std::vector<double> figures;
  std::vector<std::vector<double>> repetitions;  // of each run, for the within-run spread
  std::vector<int64_t> run_ids;
  bool collected = true;  // false once a counted run lacked the figure
};

using CalibrationSeriesMap =
    std::map<std::tuple<std::string, std::string, std::string>, CalibrationSeries>;

// A workload of one calibration run that was not counted, and why.
struct CalibrationLeftOut {
  int64_t run_id = 0;
  std::string workload;
  std::string variant;
  std::string reason;  // results::not_history_reason
};

// The relative and paired gate verdicts of a run of `scenario` with `workloads` that have a
// p-value once their baselines have runs (gating::reaches_its_test: not those of a workload
// that was not configured, failed or lacks the gate's figure, as gates::apply_holm leaves out
// an outcome without a p-value; change gates are not among them): Holm's family.
size_t holm_family_of(const scenario::Scenario& scenario,
                      const std::vector<results::WorkloadResult>& workloads);

// Adds run `run_id`'s workloads to `series`; those that are not history go to `left_out`.
void collect_calibration_series(const scenario::Scenario& scenario, int64_t run_id,
                                const std::vector<results::WorkloadResult>& workloads,
                                CalibrationSeriesMap& series,
                                std::vector<CalibrationLeftOut>& left_out);

}  // namespace benchgate::gating
