// The workload key `expect_failures` (docs/SCENARIOS.md): off by default, read as a boolean in
// [defaults] or a workload (the workload's own wins), refused in any other form at its value.
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/scenario/scenario_loader.h"
#include "scenario_test_support.h"

namespace benchgate::scenario {
namespace {

using test_support::diagnostic_lines;
using test_support::load_hermetic;

TEST(ScenarioExpectFailures, IsOffWhenTheKeyIsAbsent) {
  LoadResult r = load_hermetic("name = \"s\"\n[[workloads]]\nname = \"w\"\n");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r.scenario->workloads[0].expect_failures);
}

TEST(ScenarioExpectFailures, DefaultsGiveItAndAWorkloadOverridesIt) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[defaults]\nexpect_failures = true\n"
      "[[workloads]]\nname = \"inherits\"\n"
      "[[workloads]]\nname = \"own\"\nexpect_failures = false\n");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.scenario->workloads[0].expect_failures);
  EXPECT_FALSE(r.scenario->workloads[1].expect_failures);
}

TEST(ScenarioExpectFailures, AWampWorkloadTakesIt) {
  LoadResult r = load_hermetic(
      "name = \"s\"\n[[workloads]]\nname = \"w\"\nprotocol = \"wamp_rpc\"\n"
      "expect_failures = true\n");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.scenario->workloads[0].expect_failures);
}

TEST(ScenarioExpectFailures, AStringIsAWrongTypeAtTheValue) {
  LoadResult r =
      load_hermetic("name = \"s\"\n[[workloads]]\nname = \"w\"\nexpect_failures = \"yes\"\n");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(diagnostic_lines(r),
            std::vector<std::string>{"s.toml:4:19: error: key 'expect_failures' must be a boolean "
                                     "(true or false), got string \"yes\""});
}

}  // namespace
}  // namespace benchgate::scenario
