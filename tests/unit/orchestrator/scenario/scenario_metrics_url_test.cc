// The [router] metrics URLs of tests/schema/metrics_urls.txt get from the loader the verdict
// the file gives them, which schema.taplo (tests/schema/check_schema.py) holds the schema's
// pattern to as well: the list is where the loader and the schema agree.
#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <string>

#include "orchestrator/scenario/scenario_loader.h"
#include "scenario_test_support.h"

namespace benchgate::scenario {
namespace {

// The text check_schema.py writes around each URL (METRICS_URL_SCENARIO there).
std::string scenario_with_metrics(const std::string& url) {
  return "name = \"metrics_url\"\n[router]\nimpl = \"external\"\naddress = \"127.0.0.1:18080\"\n"
         "metrics = \"" +
         url + "\"\n[[workloads]]\nname = \"get\"\n";
}

TEST(ScenarioMetricsUrls, EachListedUrlGetsTheVerdictTheSchemaIsHeldTo) {
  std::ifstream list(std::string(BENCHGATE_SOURCE_DIR) + "/tests/schema/metrics_urls.txt");
  ASSERT_TRUE(list) << "tests/schema/metrics_urls.txt";
  int accepted = 0;
  int refused = 0;
  for (std::string line; std::getline(list, line);) {
    if (line.empty() || line.starts_with('#')) continue;
    const size_t tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos) << line;
    const std::string verdict = line.substr(0, tab);
    const std::string url = line.substr(tab + 1);
    LoadOptions options = test_support::hermetic_options();
    options.getenv = [](const std::string& name) -> std::optional<std::string> {
      if (name == "BENCHGATE_TEST_METRICS_URL") return "http://127.0.0.1:9113/metrics";
      if (name == "BENCHGATE_TEST_METRICS_BASE") return "http://127.0.0.1:9113";
      return std::nullopt;
    };
    const LoadResult r = load_scenario_text(scenario_with_metrics(url), "s.toml", options);
    if (verdict == "accept") {
      ++accepted;
      EXPECT_TRUE(r.ok()) << url << "\n" << test_support::diagnostics_text(r);
    } else {
      ASSERT_EQ(verdict, "refuse") << line;
      ++refused;
      const auto lines = test_support::diagnostic_lines(r);
      // Refused for its URL, not for anything else of the scenario around it.
      ASSERT_EQ(lines.size(), 1u) << url << "\n" << test_support::diagnostics_text(r);
      EXPECT_NE(lines[0].find("error: key 'metrics' must be an http:// URL"), std::string::npos)
          << lines[0];
    }
  }
  EXPECT_GT(accepted, 0);
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace benchgate::scenario
