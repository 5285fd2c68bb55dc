// The loader's metric list and the gate engine's registry must name the same metrics with
// the same direction: a metric the loader accepts must be one the gates can evaluate.
#include <gtest/gtest.h>

#include "orchestrator/gates/metrics.h"
#include "orchestrator/scenario/metrics.h"

namespace benchgate {
namespace {

TEST(MetricRegistry, LoaderAndGatesKnowTheSameMetricsAndDirections) {
  const auto& names = scenario::metric_names();
  ASSERT_EQ(names.size(), gates::known_metrics().size());
  for (const auto& name : names) {
    const auto* info = gates::find_metric(name);
    ASSERT_NE(info, nullptr) << name;
    EXPECT_EQ(info->direction == gates::Direction::kLowerIsBetter,
              scenario::metric_higher_is_worse(name))
        << name;
  }
}

}  // namespace
}  // namespace benchgate
