// Collecting the series of an A/A calibration (calibration_series.h).
#include "orchestrator/gating/calibration_series.h"

#include <set>

#include "orchestrator/gating/run_gates.h"
#include "orchestrator/scenario/workload_glob.h"
#include "orchestrator/store/workload_params.h"

namespace benchgate::gating {

size_t holm_family_of(const scenario::Scenario& scenario,
                      const std::vector<results::WorkloadResult>& workloads) {
  std::vector<WorkloadValues> values;
  for (const auto& w : workloads) values.push_back(values_of(w));
  size_t family = 0;
  for (const auto& gate : scenario.gates) {
    for (const auto& v : values) family += reaches_its_test(gate, v, values) ? 1 : 0;
  }
  return family;
}

void collect_calibration_series(const scenario::Scenario& scenario, int64_t run_id,
                                const std::vector<results::WorkloadResult>& workloads,
                                CalibrationSeriesMap& all,
                                std::vector<CalibrationLeftOut>& left_out) {
  const size_t family = holm_family_of(scenario, workloads);
  std::vector<WorkloadValues> values;
  for (const auto& w : workloads) values.push_back(values_of(w));
  for (size_t i = 0; i < workloads.size(); ++i) {
    const results::WorkloadResult& w = workloads[i];
    if (std::string why = results::not_history_reason(w); !why.empty()) {
      left_out.push_back({run_id, w.spec.name, w.variant, std::move(why)});
      continue;
    }
    std::map<std::string, double> metrics;               // metric -> alpha
    std::map<std::string, scenario::PairedTest> paired;  // metric -> the first paired gate's test
    std::set<std::string> tested;  // metrics a gate of Holm's family judges here
    for (const char* m : kCalibratedMetrics) metrics.emplace(m, kCalibrationAlpha);
    for (const auto& gate : scenario.gates) {
      if (!scenario::workload_matches(gate.workload, w.spec.name) ||
          !scenario::workload_matches(gate.variant, w.variant)) {
        continue;
      }
      if (reaches_its_test(gate, values[i], values)) tested.insert(gate.metric);
      if (!gate.against.empty()) paired.emplace(gate.metric, gate.paired_test);
      auto [it, added] = metrics.emplace(gate.metric, gate.alpha);
      const bool relative = !gate.baseline.empty() || !gate.against.empty();  // paired too
      if (!added && !relative) continue;
      if (relative) it->second = gate.alpha;  // a relative gate's alpha decides
    }
    for (const auto& [metric, alpha] : metrics) {
      CalibrationSeries& s = all[{w.spec.name, w.variant, metric}];
      s.workload = w.spec.name;
      s.variant = w.variant;
      s.params_hash = store::workload_params_hash(w.spec);
      s.metric = metric;
      s.alpha = alpha;
      // A gate of this series is among the family; one added on it would be one more.
      s.holm_family = tested.count(metric) != 0 ? family : family + 1;
      if (auto p = paired.find(metric); p != paired.end() && !s.paired_test_set) {
        s.paired_test = p->second;
        s.paired_test_set = true;
      }
      auto figure = results::metric_figure(w, metric);
      if (!figure) {
        s.collected = false;
        continue;
      }
      s.figures.push_back(*figure);
      s.repetitions.push_back(results::metric_values(w, metric).value_or(std::vector<double>{}));
      s.run_ids.push_back(run_id);
    }
  }
}

}  // namespace benchgate::gating
