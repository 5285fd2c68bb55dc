// A scenario whose keys have too many dotted parts, or that nests too deep, is refused before
// toml++ parses it, at file:line:column (a key of 60,000 parts overflowed the stack inside
// toml++: `validate` exited 139, and `serve` crashed on one client's submission). The scan
// itself is tested in tests/unit/common/toml_depth_test.cc; docs/SCENARIOS.md (before "Top level").
#include <gtest/gtest.h>

#include <string>

#include "common/util/toml_depth.h"
#include "scenario_test_support.h"

namespace benchgate::scenario {
namespace {

using test_support::diagnostic_lines;
using test_support::load_hermetic;

std::string dotted(size_t parts) {
  std::string key = "a";
  for (size_t i = 1; i < parts; ++i) key += ".a";
  return key;
}

TEST(ScenarioTomlDepth, AKeyOfSixtyThousandPartsIsRefusedNotACrash) {
  const LoadResult r = load_hermetic("name=\"x\"\n" + dotted(60000) + " = 1\n");
  EXPECT_FALSE(r.scenario);
  EXPECT_EQ(diagnostic_lines(r),
            std::vector<std::string>{
                "s.toml:2:1: error: a key has 60000 dotted parts ('a.a.a...'); at most 64 are "
                "accepted"});
}

TEST(ScenarioTomlDepth, ATableHeaderAndAnInlineTablesKeyAreRefused) {
  const LoadResult header = load_hermetic("name=\"x\"\n\n[" + dotted(100000) + "]\n");
  EXPECT_EQ(diagnostic_lines(header),
            std::vector<std::string>{
                "s.toml:3:2: error: a key has 100000 dotted parts ('a.a.a...'); at most 64 are "
                "accepted"});
  const LoadResult inline_table =
      load_hermetic("name=\"x\"\n[[workloads]]\nname = \"w\"\nhttp = { " + dotted(65) + " = 1 }\n");
  EXPECT_EQ(diagnostic_lines(inline_table),
            std::vector<std::string>{
                "s.toml:4:10: error: a key has 65 dotted parts ('a.a.a...'); at most 64 are "
                "accepted"});
}

TEST(ScenarioTomlDepth, AScenarioWithinTheBoundsLoadsAsBefore) {
  // Dots in strings, comments and values are no key's parts.
  const std::string many = dotted(1000);
  const LoadResult r = load_hermetic("# " + many + "\nname = \"x\"\ndescription = \"\"\"\n" + many +
                                     " = 1\n\"\"\"\n[[workloads]]\nname = \"w\" # " + many +
                                     "\nduration = \"1.5s\"\n");
  EXPECT_TRUE(r.scenario) << ::testing::PrintToString(diagnostic_lines(r));
}

}  // namespace
}  // namespace benchgate::scenario
