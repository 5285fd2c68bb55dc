// The closed list of gate metrics and how their values print.
#include "orchestrator/gates/metrics.h"

#include <gtest/gtest.h>

#include <cmath>

namespace benchgate::gates {
namespace {

TEST(Metrics, ThroughputIsHigherIsBetterAndEverythingElseLower) {
  for (const MetricInfo& m : known_metrics()) {
    // Handshakes per second are a throughput too.
    const bool throughput = m.name.starts_with("throughput.") || m.name == "handshakes.rate";
    EXPECT_EQ(m.direction, throughput ? Direction::kHigherIsBetter : Direction::kLowerIsBetter)
        << m.name;
    EXPECT_GT(m.log_floor, 0) << m.name;
  }
  EXPECT_EQ(known_metrics().size(), 20u);  // session_setup.p99 the last added
}

TEST(Metrics, TyposAreUnknownNotSilentlyAccepted) {
  EXPECT_NE(find_metric("latency.p999"), nullptr);
  EXPECT_EQ(find_metric("latency.p98"), nullptr);
  EXPECT_EQ(find_metric("throughput.RPS"), nullptr);
  EXPECT_EQ(find_metric("latency"), nullptr);
  EXPECT_EQ(find_metric("worker.cpu_utilization")->unit, UnitKind::kRatio);
  // Handshakes are counted in their own unit, not as operations.
  EXPECT_EQ(find_metric("handshakes.rate")->unit, UnitKind::kHandshakesPerSecond);
}

TEST(Metrics, ValuesPrintInHumanUnitsWithThreeSignificantDigits) {
  EXPECT_EQ(format_metric_value(0.0042, UnitKind::kSeconds), "4.20ms");
  EXPECT_EQ(format_metric_value(250e-6, UnitKind::kSeconds), "250us");
  EXPECT_EQ(format_metric_value(1.5, UnitKind::kSeconds), "1.50s");
  EXPECT_EQ(format_metric_value(850e-9, UnitKind::kSeconds), "850ns");
  EXPECT_EQ(format_metric_value(12345, UnitKind::kOpsPerSecond), "12.3k ops/s");
  EXPECT_EQ(format_metric_value(95.24, UnitKind::kOpsPerSecond), "95.2 ops/s");
  EXPECT_EQ(format_metric_value(12345, UnitKind::kHandshakesPerSecond), "12.3k handshakes/s");
  EXPECT_EQ(format_metric_value(95.24, UnitKind::kHandshakesPerSecond), "95.2 handshakes/s");
  EXPECT_EQ(format_metric_value(1.5e6, UnitKind::kBytesPerSecond), "1.50 MB/s");
  EXPECT_EQ(format_metric_value(2.5e6, UnitKind::kBytes), "2.50 MB");
  EXPECT_EQ(format_metric_value(17, UnitKind::kCount), "17");
  EXPECT_EQ(format_metric_value(0.0025, UnitKind::kRatio), "0.25%");
  EXPECT_EQ(format_metric_value(std::nan(""), UnitKind::kRatio), "n/a");
}

}  // namespace
}  // namespace benchgate::gates
