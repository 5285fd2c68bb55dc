// What `orchestrator calibrate` counts (orchestrator/gating/calibration_series.h).
#include <gtest/gtest.h>

#include "orchestrator/gating/calibration_series.h"

namespace benchgate::gating {
namespace {

results::WorkloadResult workload(double ops_per_second) {
  results::WorkloadResult w;
  w.spec.name = "hello";
  w.variant = "default";
  for (uint32_t i = 0; i < 3; ++i) {
    results::Repetition rep;
    rep.index = i;
    rep.duration_ns = 1'000'000'000;
    rep.in_window = true;
    rep.successes = static_cast<uint64_t>(ops_per_second);
    rep.window_successes = rep.successes;
    rep.operations = rep.successes;
    rep.latency.record_n(100'000, static_cast<int64_t>(rep.successes));
    w.latency.add(rep.latency);
    w.repetitions.push_back(rep);
  }
  return w;
}

// An A/A calibration counts only the runs that would be history of the series: a run whose
// repetition was measured while the router was stopped measured the stop (here, a repetition
// at a third of the throughput), and one measured without every worker measured less load. Counted,
// such a run inflated the stored noise (log_sd) and made later calibrated-t gates less sensitive;
// it is left out, with its reason, as relative gates, change gates and change points leave it out.
TEST(CalibrationSeries, AStoppedOrDegradedRunIsLeftOutAndNamed) {
  scenario::Scenario s;
  s.name = "quickstart";
  CalibrationSeriesMap series;
  std::vector<CalibrationLeftOut> left_out;
  collect_calibration_series(s, 1, {workload(10'000)}, series, left_out);
  collect_calibration_series(s, 2, {workload(10'100)}, series, left_out);

  results::WorkloadResult stopped = workload(10'000);
  stopped.repetitions[1].successes = 3'000;
  stopped.repetitions[1].window_successes = 3'000;
  stopped.repetitions[1].flags = {std::string(results::kProcessStopped)};
  stopped.repetitions[1].stopped = {"router (pid 4243)"};
  collect_calibration_series(s, 3, {stopped}, series, left_out);

  results::WorkloadResult degraded = workload(5'000);
  degraded.repetitions[2].flags = {std::string(results::kDegraded)};
  collect_calibration_series(s, 4, {degraded}, series, left_out);
  collect_calibration_series(s, 5, {workload(9'900)}, series, left_out);

  const CalibrationSeries& rps = series.at({"hello", "default", "throughput.rps"});
  EXPECT_TRUE(rps.collected);
  EXPECT_EQ(rps.run_ids, (std::vector<int64_t>{1, 2, 5}));
  EXPECT_EQ(rps.figures, (std::vector<double>{10'000, 10'100, 9'900}));
  ASSERT_EQ(left_out.size(), 2u);
  EXPECT_EQ(left_out[0].run_id, 3);
  EXPECT_EQ(left_out[0].workload, "hello");
  EXPECT_EQ(left_out[0].variant, "default");
  EXPECT_EQ(left_out[0].reason,
            "repetition 2 was measured while router (pid 4243) was stopped (flag "
            "process_stopped)");
  EXPECT_EQ(left_out[1].run_id, 4);
  EXPECT_EQ(left_out[1].reason, "repetition 3 was measured without every worker (flag degraded)");
}

scenario::Gate relative_gate(const std::string& workload, const std::string& metric) {
  scenario::Gate g;
  g.workload = workload;
  g.metric = metric;
  g.baseline = "main";
  g.max_regression = 0.05;
  g.alpha = 0.01;
  return g;
}

// The gates judge a series at Holm's level over the run's relative gates (gates::apply_holm:
// alpha / 3 for one of three when none is significant), and calibrate's detectable figures
// are at that level too: here 3 relative gates on hello (a change gate and an absolute gate
// are not of the family), so hello's gated series are at 0.01 / 3, and other's p99, which no
// gate judges, at 0.01 / 4 (a gate added on it is one more).
TEST(CalibrationSeries, ASeriesIsCalibratedAtTheLevelHolmsCorrectionGivesItsGates) {
  scenario::Scenario s;
  s.name = "three_gates";
  for (const char* metric : {"throughput.rps", "latency.p50", "latency.p99"}) {
    s.gates.push_back(relative_gate("hello", metric));
  }
  scenario::Gate change;
  change.workload = "hello";
  change.metric = "latency.p99";
  change.change = true;
  s.gates.push_back(change);
  scenario::Gate absolute;
  absolute.workload = "*";
  absolute.metric = "errors.count";
  absolute.max = 0;
  s.gates.push_back(absolute);

  results::WorkloadResult other = workload(10'000);
  other.spec.name = "other";
  CalibrationSeriesMap series;
  std::vector<CalibrationLeftOut> left_out;
  EXPECT_EQ(holm_family_of(s, {workload(10'000), other}), 3u);
  collect_calibration_series(s, 1, {workload(10'000), other}, series, left_out);

  const CalibrationSeries& p99 = series.at({"hello", "default", "latency.p99"});
  EXPECT_EQ(p99.holm_family, 3u);
  EXPECT_DOUBLE_EQ(p99.level(), 0.01 / 3);
  const CalibrationSeries& ungated = series.at({"other", "default", "latency.p99"});
  EXPECT_EQ(ungated.holm_family, 4u);
  EXPECT_DOUBLE_EQ(ungated.level(), 0.01 / 4);
}

// Holm's family is what the gates count (gates::apply_holm: the verdicts with a p-value): a
// gate on a workload that was not configured or failed, or on a figure the workload lacks
// (router.cpu_per_request without the bundled router), has none and is not counted.
TEST(CalibrationSeries, HolmsFamilyCountsOnlyTheGatesThatReachTheirTest) {
  scenario::Scenario s;
  s.gates.push_back(relative_gate("hello", "latency.p99"));
  s.gates.push_back(relative_gate("hello", "router.cpu_per_request"));  // not measured
  s.gates.push_back(relative_gate("skipped", "latency.p99"));
  s.gates.push_back(relative_gate("broken", "latency.p99"));
  results::WorkloadResult skipped = workload(10'000);
  skipped.spec.name = "skipped";
  skipped.status = results::WorkloadStatus::kNotConfigured;
  results::WorkloadResult broken = workload(10'000);
  broken.spec.name = "broken";
  broken.status = results::WorkloadStatus::kFailed;
  EXPECT_EQ(holm_family_of(s, {workload(10'000), skipped, broken}), 1u);
  CalibrationSeriesMap series;
  std::vector<CalibrationLeftOut> left_out;
  collect_calibration_series(s, 1, {workload(10'000), skipped, broken}, series, left_out);
  EXPECT_DOUBLE_EQ(series.at({"hello", "default", "latency.p99"}).level(), 0.01)
      << "judged alone, as the gates judge it";
}

// A scenario with one relative gate: it is judged alone, at its alpha, as before.
TEST(CalibrationSeries, ALoneRelativeGatesSeriesIsCalibratedAtItsAlpha) {
  scenario::Scenario s;
  s.gates.push_back(relative_gate("hello", "latency.p99"));
  s.gates.back().alpha = 0.05;
  CalibrationSeriesMap series;
  std::vector<CalibrationLeftOut> left_out;
  collect_calibration_series(s, 1, {workload(10'000)}, series, left_out);
  EXPECT_DOUBLE_EQ(series.at({"hello", "default", "latency.p99"}).level(), 0.05);
}

}  // namespace
}  // namespace benchgate::gating
