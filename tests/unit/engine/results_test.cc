// Figures derived from repetitions, and the RESULT| line.
#include <gtest/gtest.h>

#include "orchestrator/report/json_report.h"
#include "orchestrator/report/result_line.h"
#include "orchestrator/results/results.h"

namespace benchgate::results {
namespace {

Repetition rep(uint64_t successes, int64_t window_ns, int64_t latency_ns) {
  Repetition r;
  r.operations = successes;
  r.successes = successes;
  r.data_window_ns = window_ns;
  r.bytes_received = successes * 10;
  r.latency.record_n(latency_ns, static_cast<int64_t>(successes));
  return r;
}

TEST(Results, OpsPerSecondUseTheDataWindow) {
  auto r = rep(1000, 500'000'000, 1000);
  EXPECT_DOUBLE_EQ(r.ops_per_second(), 2000);
  EXPECT_DOUBLE_EQ(r.bytes_per_second(), 20000);
}

TEST(Results, SpreadIsMedianMinMaxOverRepetitions) {
  WorkloadResult w;
  w.repetitions = {rep(100, 1'000'000'000, 1), rep(300, 1'000'000'000, 1),
                   rep(200, 1'000'000'000, 1)};
  auto s = w.ops_per_second();
  EXPECT_DOUBLE_EQ(s.median, 200);
  EXPECT_DOUBLE_EQ(s.min, 100);
  EXPECT_DOUBLE_EQ(s.max, 300);
}

TEST(Results, MetricValuesAreInBaseUnitsAndMissingWhenNotCollected) {
  WorkloadResult w;
  w.repetitions = {rep(100, 1'000'000'000, 2'000'000)};
  auto p99 = metric_values(w, "latency.p99");
  ASSERT_TRUE(p99.has_value());
  EXPECT_NEAR((*p99)[0], 0.002, 0.002 * 1e-3);
  EXPECT_FALSE(metric_values(w, "router.cpu_per_request").has_value());
  EXPECT_FALSE(metric_values(WorkloadResult{}, "throughput.rps").has_value());
}

TEST(ResultLine, HasTheStableFieldsInOrder) {
  WorkloadResult w;
  w.spec.name = "hello";
  w.spec.connections = 8;
  w.repetitions = {rep(1000, 1'000'000'000, 1000)};
  for (const auto& r : w.repetitions) w.latency.add(r.latency);
  auto line = report::result_line("quick", w, "7");
  EXPECT_EQ(line.rfind("RESULT|scenario=quick|workload=hello|variant=default|protocol=http1|"
                       "connections=8|workers=1|threads=1|rps=1000|",
                       0),
            0u)
      << line;
  EXPECT_NE(line.find("|errors=0|reps=1|run=7"), std::string::npos) << line;
}

TEST(ResultLine, UnmeasuredFiguresAreDashesNotZeros) {
  WorkloadResult w;
  w.spec.name = "failed";
  w.status = WorkloadStatus::kFailed;
  auto line = report::result_line("s", w, "-");
  EXPECT_NE(line.find("|rps=-|"), std::string::npos) << line;
  EXPECT_NE(line.find("|p99_us=-|"), std::string::npos) << line;
  EXPECT_NE(line.find("|status=failed"), std::string::npos) << line;
}

}  // namespace
}  // namespace benchgate::results
