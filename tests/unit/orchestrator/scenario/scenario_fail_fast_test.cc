// The top-level `fail_fast` key: off by default, read as a boolean, refused in any other form
// with the location of the value at fault.
#include <gtest/gtest.h>

#include <string>

#include "hermetic_options.h"
#include "orchestrator/scenario/scenario_loader.h"

namespace benchgate::scenario {
namespace {

constexpr std::string_view kWorkload = "\n[[workloads]]\nname = \"w\"\n";

LoadResult load(const std::string& text) {
  LoadOptions options = test_support::hermetic_options();
  return load_scenario_text(text, "s.toml", options);
}

std::vector<std::string> errors_of(const LoadResult& r) {
  std::vector<std::string> out;
  for (const Diagnostic& d : r.diagnostics) out.push_back(d.format());
  return out;
}

TEST(ScenarioFailFast, IsOffWhenTheKeyIsAbsent) {
  LoadResult r = load("name = \"s\"" + std::string(kWorkload));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r.scenario->fail_fast);
}

TEST(ScenarioFailFast, TrueAtTheTopLevelTurnsItOn) {
  LoadResult r = load("name = \"s\"\nfail_fast = true" + std::string(kWorkload));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.scenario->fail_fast);
}

TEST(ScenarioFailFast, FalseIsAccepted) {
  LoadResult r = load("name = \"s\"\nfail_fast = false" + std::string(kWorkload));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r.scenario->fail_fast);
}

TEST(ScenarioFailFast, AStringIsAWrongTypeAtTheValue) {
  LoadResult r = load("name = \"s\"\nfail_fast = \"yes\"" + std::string(kWorkload));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(errors_of(r), std::vector<std::string>{"s.toml:2:13: error: key 'fail_fast' must be "
                                                   "a boolean (true or false), got string"});
}

TEST(ScenarioFailFast, InsideAWorkloadIsAnUnknownKey) {
  LoadResult r = load("name = \"s\"" + std::string(kWorkload) + "fail_fast = true\n");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(errors_of(r), std::vector<std::string>{
                              "s.toml:4:1: error: unknown key 'fail_fast' in [[workloads]] #1"});
}

TEST(ScenarioFailFast, AMisspellingSuggestsTheKey) {
  LoadResult r = load("name = \"s\"\nfail_fats = true" + std::string(kWorkload));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(errors_of(r), std::vector<std::string>{"s.toml:2:1: error: unknown key 'fail_fats' at "
                                                   "the top level (did you mean 'fail_fast'?)"});
}

}  // namespace
}  // namespace benchgate::scenario
