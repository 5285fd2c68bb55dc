// `orchestrator compare RUN_A RUN_B` as a plain function: per workload present in both runs
// and per metric, each run's figure (workload_figures: what RESULT lines, the reports and the
// gates say), the change of the figures, and over the repetitions' own values the interval of
// the change and the two-sided p-value, in the manner of benchstat (docs/GATES.md, "Outputs for
// pipelines"). The caller loads the samples; this file neither reads the store nor prints.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "orchestrator/gates/statistics.h"
#include "orchestrator/store/records.h"

namespace benchgate::history {

// The metrics compare reports, in this order.
inline constexpr std::array<std::string_view, 6> kCompareMetrics = {
    "throughput.rps", "throughput.bytes_per_s", "latency.p50",
    "latency.p99",    "latency.p999",           "errors.count"};

// One workload of one run as compare sees it.
struct WorkloadSamples {
  std::string name;
  std::string variant = "default";
  std::string params_hash;
  // The definition the hash is of (store::workload_params_json), to name what changed.
  std::string params_json;
  std::string status = "ok";
  std::string error;
  // Per-repetition values by metric; a metric that was not collected is absent.
  std::map<std::string, std::vector<double>> values;
  // The workload's figure of each metric (store::StoredWorkload::figures, results::
  // metric_figure): latency from every repetition's histogram merged, errors summed,
  // throughput the median; absent where not stored (latency of runs stored before schema 8).
  std::map<std::string, double> figures;
};

struct RunSamples {
  int64_t run_id = 0;
  std::string testbed_fingerprint;
  std::string testbed_host;  // to name the testbeds in the note when they differ
  std::vector<WorkloadSamples> workloads;
  std::string scenario;       // the run's scenario, noted when the two runs' differ
  std::string status = "ok";  // store::kRunStatuses: a run that did not end ok is noted
  std::string commit;         // noted with the binaries below
  // The binaries the run measured (store::RunDetail::binaries): a router other than the other
  // run's under the same commit, or one given by --router-bin against the bundled one, is
  // noted.
  std::vector<store::MeasuredBinary> binaries;
};

struct MetricComparison {
  std::string metric;
  // Each run's figure, the RUN columns; nothing where the run has none stored, or has no
  // repetition values of the metric (`missing_in`: it was not collected there).
  std::optional<double> figure_a, figure_b;
  // Over the repetitions' values: the test and the interval. Empty when the metric is missing
  // from either run; `missing_in` then says which.
  std::optional<gates::SampleComparison> stats;
  size_t n_a = 0;
  size_t n_b = 0;
  std::vector<int64_t> missing_in;
};

struct WorkloadComparison {
  std::string name;
  std::string variant;
  bool definitions_differ = false;  // params_hash differs: not the same series
  // The parameters that differ, as store::definition_differences names them with the labels
  // "run A" and "run B": "connections (run 2: 16, run 3: 32)". Empty when the definitions are
  // the same, or when a stored definition is not there to read.
  std::vector<std::string> definition_changes;
  // A failed workload, with its error; repetitions too few for any change to be significant.
  std::vector<std::string> notes;
  std::vector<MetricComparison> metrics;
};

struct RunComparison {
  int64_t run_a = 0;
  int64_t run_b = 0;
  double alpha = 0.05;
  double confidence = 0.95;
  bool testbeds_differ = false;
  std::string host_a, host_b;
  std::string scenario_a, scenario_b;            // noted when they differ
  std::string status_a = "ok", status_b = "ok";  // noted when not ok
  std::string commit_a, commit_b;
  std::vector<store::MeasuredBinary> binaries_a, binaries_b;  // RunSamples::binaries
  std::vector<WorkloadComparison> workloads;                  // in run A's order
  std::vector<std::string> only_in_a;                         // "name" or "name (variant v)"
  std::vector<std::string> only_in_b;
};

// `a` and `b` are two different runs: `compare` refuses a run compared with itself, as every
// change would be zero.
RunComparison compare_runs(const RunSamples& a, const RunSamples& b, double alpha = 0.05,
                           double confidence = 0.95);

// The comparison as text: a header saying what each column is, then a table per workload with
// columns metric, run A's figure, run B's, the change ("~" before it when the repetitions show
// no significant difference, or a significant one the other way, which a note then names), the
// interval, the p-value and the repetitions; notes on a run that did not end ok (running,
// failed, aborted, abandoned), runs of different scenarios, routers that differ (one given by
// --router-bin or $BENCHGATE_ROUTER_BIN and one bundled, or two different files under the same
// commit), differing testbeds and definitions
// (naming the parameters that differ), repetitions too few for any p below alpha; workloads
// found in only one run. A metric one run did not collect shows the other run's figure and "-"
// for the run without it.
std::string render_comparison(const RunComparison& comparison);

// The same comparison as one JSON document (`compare --json`, docs/GATES.md, "Outputs for
// pipelines"): run_a and run_b (id, scenario, status, testbed_host, commit, binaries: role, path,
// origin, bundled, build_id, sha256), alpha, confidence,
// testbeds_differ, notes (the run notes the text prints), workloads (name, variant,
// definitions_differ, definition_changes, notes, metrics: metric, figure_a, figure_b and change
// as numbers or null, missing_in, significant, change_low, change_high, p_value, n_a, n_b),
// only_in_a and only_in_b. Changes are fractions (b / a - 1), figures in base units.
std::string render_comparison_json(const RunComparison& comparison);

}  // namespace benchgate::history
