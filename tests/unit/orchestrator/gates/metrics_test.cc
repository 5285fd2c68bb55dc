// The closed list of gate metrics and how their values print.
#include "orchestrator/gates/metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "common/units/units.h"

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

TEST(Metrics, ValuesPrintInHumanUnits) {
  EXPECT_EQ(format_metric_value(0.0042, UnitKind::kSeconds), "4.2ms");
  EXPECT_EQ(format_metric_value(250e-6, UnitKind::kSeconds), "250us");
  EXPECT_EQ(format_metric_value(1.5, UnitKind::kSeconds), "1.5s");
  EXPECT_EQ(format_metric_value(850e-9, UnitKind::kSeconds), "850ns");
  EXPECT_EQ(format_metric_value(12345, UnitKind::kOpsPerSecond), "12345 ops/s");
  EXPECT_EQ(format_metric_value(95.24, UnitKind::kOpsPerSecond), "95 ops/s");
  EXPECT_EQ(format_metric_value(2.5, UnitKind::kOpsPerSecond), "2.5 ops/s");
  EXPECT_EQ(format_metric_value(12345, UnitKind::kHandshakesPerSecond), "12345 handshakes/s");
  EXPECT_EQ(format_metric_value(95.24, UnitKind::kHandshakesPerSecond), "95 handshakes/s");
  EXPECT_EQ(format_metric_value(1.5e6, UnitKind::kBytesPerSecond), "1.50 MB/s");
  EXPECT_EQ(format_metric_value(2.5e6, UnitKind::kBytes), "2.50 MB");
  EXPECT_EQ(format_metric_value(17, UnitKind::kCount), "17");
  EXPECT_EQ(format_metric_value(0.0025, UnitKind::kRatio), "0.25%");
  EXPECT_EQ(format_metric_value(std::nan(""), UnitKind::kRatio), "n/a");
}

// One definition per figure: a gate's latency and rates read as the result tables write them
// (the tables' latency_text is format_duration_ns, their ops/s format_rate, their MB/s
// format_megabytes_per_second), trailing zeros, rounding and all.
TEST(Metrics, LatenciesAndRatesReadAsTheResultTablesWriteThem) {
  // 1005 ns stored in seconds is 1004.9999999999999 ns again: the table's 1005 rounds up.
  for (const int64_t ns :
       {int64_t{1'000'000}, int64_t{7'049'200}, int64_t{1'005}, int64_t{1'002'500},
        int64_t{999'600}, int64_t{42'000}, int64_t{0}, int64_t{3'500'000'000}}) {
    EXPECT_EQ(format_metric_value(static_cast<double>(ns) / 1e9, UnitKind::kSeconds),
              format_duration_ns(static_cast<double>(ns)))
        << ns;
  }
  EXPECT_EQ(format_metric_value(1e-3, UnitKind::kSeconds), "1ms");  // not "1.00ms"
  EXPECT_EQ(format_metric_value(1005e-9, UnitKind::kSeconds), "1.01us");
  // router.cpu_per_request is no whole number of nanoseconds: its digits stay.
  EXPECT_EQ(format_metric_value(12.34e-9, UnitKind::kSeconds), "12.3ns");
  for (const double rate : {12345.6, 1000.0, 10.0, 9.87, 0.001, 0.0}) {
    EXPECT_EQ(format_metric_value(rate, UnitKind::kOpsPerSecond), format_rate(rate) + " ops/s")
        << rate;
    EXPECT_EQ(format_metric_value(rate, UnitKind::kHandshakesPerSecond),
              format_rate(rate) + " handshakes/s")
        << rate;
  }
  EXPECT_EQ(format_metric_value(12345.6, UnitKind::kOpsPerSecond), "12346 ops/s");
  EXPECT_EQ(format_metric_value(123456789, UnitKind::kBytesPerSecond),
            format_megabytes_per_second(123456789) + " MB/s");
  EXPECT_EQ(format_metric_value(123456789, UnitKind::kBytesPerSecond), "123.46 MB/s");
}

}  // namespace
}  // namespace benchgate::gates
