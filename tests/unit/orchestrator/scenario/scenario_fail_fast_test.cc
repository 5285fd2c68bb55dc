// The top-level `fail_fast` key: off by default, read as a boolean, refused in any other form
// with the location of the value at fault.
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/scenario/scenario_loader.h"
#include "scenario_test_support.h"

namespace benchgate::scenario {
namespace {

using test_support::diagnostic_lines;
using test_support::load_hermetic;

constexpr std::string_view kFailFastWorkload = "\n[[workloads]]\nname = \"w\"\n";

TEST(ScenarioFailFast, IsOffWhenTheKeyIsAbsent) {
  LoadResult r = load_hermetic("name = \"s\"" + std::string(kFailFastWorkload));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r.scenario->fail_fast);
}

TEST(ScenarioFailFast, TrueAtTheTopLevelTurnsItOn) {
  LoadResult r = load_hermetic("name = \"s\"\nfail_fast = true" + std::string(kFailFastWorkload));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.scenario->fail_fast);
}

TEST(ScenarioFailFast, FalseIsAccepted) {
  LoadResult r = load_hermetic("name = \"s\"\nfail_fast = false" + std::string(kFailFastWorkload));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r.scenario->fail_fast);
}

TEST(ScenarioFailFast, AStringIsAWrongTypeAtTheValue) {
  LoadResult r =
      load_hermetic("name = \"s\"\nfail_fast = \"yes\"" + std::string(kFailFastWorkload));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(diagnostic_lines(r),
            std::vector<std::string>{"s.toml:2:13: error: key 'fail_fast' must be "
                                     "a boolean (true or false), got string \"yes\""});
}

TEST(ScenarioFailFast, InsideAWorkloadIsAnUnknownKey) {
  LoadResult r =
      load_hermetic("name = \"s\"" + std::string(kFailFastWorkload) + "fail_fast = true\n");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(
      diagnostic_lines(r),
      std::vector<std::string>{"s.toml:4:1: error: unknown key 'fail_fast' in [[workloads]] #1"});
}

TEST(ScenarioFailFast, AMisspellingSuggestsTheKey) {
  LoadResult r = load_hermetic("name = \"s\"\nfail_fats = true" + std::string(kFailFastWorkload));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(diagnostic_lines(r),
            std::vector<std::string>{"s.toml:2:1: error: unknown key 'fail_fats' at "
                                     "the top level (did you mean 'fail_fast'?)"});
}

}  // namespace
}  // namespace benchgate::scenario
