// Every broken file under tests/data/scenarios/invalid/ is refused with the error its first line
// announces ("# expect: <text>") at a line and column that exist in the file; every file under
// valid/ loads without a single diagnostic.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "orchestrator/scenario/scenario_loader.h"
#include "scenario_test_support.h"

namespace benchgate::scenario {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> files_in(const std::string& folder) {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(test_support::kScenarioData + "/" + folder)) {
    if (entry.path().extension() == ".toml") out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string test_name(const testing::TestParamInfo<std::string>& info) {
  return fs::path(info.param).stem().string();
}

// No environment and fixed ports: the corpus must not depend on the machine.
LoadOptions hermetic() {
  LoadOptions options = test_support::hermetic_options(20000);
  return options;
}

class InvalidScenario : public testing::TestWithParam<std::string> {};

TEST_P(InvalidScenario, IsRefusedWithTheAnnouncedErrorAtARealLocation) {
  const std::vector<std::string> lines = lines_of(GetParam());
  ASSERT_FALSE(lines.empty());
  const std::string prefix = "# expect: ";
  ASSERT_TRUE(lines[0].starts_with(prefix)) << "first line must be '# expect: ...'";
  const std::string expected = lines[0].substr(prefix.size());

  LoadResult r = load_scenario_file(GetParam(), hermetic());
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.scenario.has_value());
  ASSERT_FALSE(r.diagnostics.empty());
  std::string all;
  bool found = false;
  for (const Diagnostic& d : r.diagnostics) {
    all += d.format() + "\n";
    found = found || d.message.find(expected) != std::string::npos;
    EXPECT_EQ(d.where.file, GetParam());
    ASSERT_GE(d.where.line, 1u) << d.format();
    ASSERT_LE(d.where.line, lines.size() + 1) << d.format();
    // A column may point one past the end of a line (toml++ reports a missing value there).
    const size_t width = d.where.line <= lines.size() ? lines[d.where.line - 1].size() : 0;
    EXPECT_GE(d.where.column, 1u) << d.format();
    EXPECT_LE(d.where.column, width + 1) << d.format();
    EXPECT_TRUE(d.format().starts_with(GetParam() + ":" + std::to_string(d.where.line) + ":" +
                                       std::to_string(d.where.column) + ": error: "))
        << d.format();
  }
  EXPECT_TRUE(found) << "expected a diagnostic containing: " << expected << "\ngot:\n" << all;
}

INSTANTIATE_TEST_SUITE_P(Corpus, InvalidScenario, testing::ValuesIn(files_in("invalid")),
                         test_name);

class ValidScenario : public testing::TestWithParam<std::string> {};

TEST_P(ValidScenario, LoadsWithoutDiagnostics) {
  LoadResult r = load_scenario_file(GetParam(), hermetic());
  std::string all;
  for (const Diagnostic& d : r.diagnostics) all += d.format() + "\n";
  EXPECT_TRUE(r.ok()) << all;
}

INSTANTIATE_TEST_SUITE_P(Corpus, ValidScenario, testing::ValuesIn(files_in("valid")), test_name);

TEST(ScenarioCorpus, HasAtLeastTwentyFiveBrokenFiles) {
  EXPECT_GE(files_in("invalid").size(), 25u);
}

}  // namespace
}  // namespace benchgate::scenario
