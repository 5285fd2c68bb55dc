// `history changes` output from plain records: the table, CHANGE| lines and JSON.
#include "orchestrator/history/change_listing.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace benchgate::history {
namespace {

constexpr int64_t kChangesStart = 1'700'000'000'000'000'000;  // 2023-11-14 22:13:20 UTC

store::SeriesChanges throughput_drop() {
  store::SeriesChanges s;
  s.key = {"quickstart", 3, "http_hello", "default", "abc123", "throughput.rps"};
  s.testbed_host = "bench-a";
  s.points = 60;
  s.from_store = true;
  store::StoredChangePoint c;
  c.run_id = 31;
  c.previous_run_id = 30;
  c.commit = "2222222222cccc";
  c.previous_commit = "1111111111aaaa";
  c.started_at_ns = kChangesStart;
  c.position = 30;
  c.runs_before = 30;
  c.runs_after = 30;
  c.median_before = 10000;
  c.median_after = 9500;
  c.change = -0.05;
  c.change_low = -0.06;
  c.change_high = -0.04;
  c.p_value = 0.002;
  s.changes.push_back(c);
  return s;
}

TEST(ChangeListing, TableHasOneRowPerChangeAndASummary) {
  store::SeriesChanges latency = throughput_drop();
  latency.key.metric = "latency.p99";
  latency.from_store = false;
  latency.changes[0].median_before = 0.001;
  latency.changes[0].median_after = 0.00095;
  latency.changes[0].change_low.reset();
  EXPECT_EQ(
      render_change_table({throughput_drop(), latency}, 3),
      "SCENARIO    WORKLOAD    VARIANT  METRIC          TESTBED      RUN  COMMITS                "
      "      BEFORE       AFTER  CHANGE  95% CI                P  DIRECTION\n"
      "quickstart  http_hello  default  throughput.rps  bench-a (3)   31  "
      "1111111111..2222222222  10000 ops/s  9500 ops/s  -5.00%  [-6.00%, -4.00%]  0.002  "
      "worse\n"
      "quickstart  http_hello  default  latency.p99     bench-a (3)   31  "
      "1111111111..2222222222          1ms       950us  -5.00%  -                 0.002  "
      "better\n"
      "2 change points in 2 series (120 run values); 1 series computed now, not read from "
      "the store\n");
  EXPECT_EQ(render_change_table({}, 3), "0 change points in 0 series (0 run values)\n");
}

// A series of fewer than 2 * 3 runs cannot show a change (docs/GATES.md, "Change points": the
// minimum side): the summary says how many there were, or "0 change points" over a young
// history reads as stable.
TEST(ChangeListing, TheSummaryCountsTheSeriesTooShortToShowAChange) {
  store::SeriesChanges five = throughput_drop();
  five.changes.clear();
  five.points = 5;
  store::SeriesChanges six = five;
  six.points = 6;
  EXPECT_EQ(render_change_table({five, six, five}, 3),
            "0 change points in 3 series (16 run values); 2 series too short to show a change "
            "(fewer than 6 runs: 3 on each side)\n");
  EXPECT_EQ(render_change_table({six}, 3), "0 change points in 1 series (6 run values)\n");
}

// The runs clients submitted to `orchestrator serve` are a series of their own beside the
// operator's of the same scenario (docs/GATES.md, "Series and baselines"): its rows say so.
TEST(ChangeListing, AClientSeriesIsMarkedInTheTableTheLinesAndTheJson) {
  store::SeriesChanges client = throughput_drop();
  client.key.submitted_by = store::kClientRuns;
  const std::string table = render_change_table({throughput_drop(), client}, 3);
  EXPECT_NE(table.find("\nquickstart           http_hello"), std::string::npos) << table;
  EXPECT_NE(table.find("\nquickstart (client)  http_hello"), std::string::npos) << table;
  EXPECT_NE(render_change_lines({client}).find("|submitted_by=client\n"), std::string::npos);
  const nlohmann::json doc =
      nlohmann::json::parse(render_change_json({client}, {"x.db", 0.01, 0.01, ""}));
  EXPECT_EQ(doc["series"][0]["submitted_by"], "client");
}

TEST(ChangeListing, ChangeLinesHaveEveryFieldInOrderAndDashesForWhatDoesNotExist) {
  store::SeriesChanges s = throughput_drop();
  EXPECT_EQ(render_change_lines({s}),
            "CHANGE|scenario=quickstart|workload=http_hello|variant=default|metric=throughput.rps|"
            "testbed=3|host=bench-a|run=31|previous_run=30|commit=2222222222cccc|"
            "previous_commit=1111111111aaaa|started=2023-11-14T22:13:20Z|median_before=10000|"
            "median_after=9500|change_pct=-5.00|change_low_pct=-6.00|change_high_pct=-4.00|"
            "p_value=0.002|direction=worse|runs_before=30|runs_after=30|params_hash=abc123|"
            "submitted_by=operator\n");
  s.changes[0].median_before = 0;
  s.changes[0].change.reset();
  s.changes[0].change_low.reset();
  s.changes[0].change_high.reset();
  s.changes[0].previous_commit.clear();
  const std::string line = render_change_lines({s});
  EXPECT_NE(line.find("|previous_commit=-|"), std::string::npos) << line;
  EXPECT_NE(line.find("|change_pct=-|change_low_pct=-|change_high_pct=-|"), std::string::npos);
  EXPECT_NE(line.find("|direction=-|"), std::string::npos);
}

TEST(ChangeListing, JsonListsEverySeriesWithFractionsAndNulls) {
  store::SeriesChanges quiet = throughput_drop();
  quiet.key.workload = "quiet";
  quiet.changes.clear();
  store::SeriesChanges drop = throughput_drop();
  drop.changes[0].change_high.reset();
  const nlohmann::json doc = nlohmann::json::parse(
      render_change_json({drop, quiet}, {"bench.db", 0.01, 0.02, "2023-11-01"}));
  EXPECT_EQ(doc["database"], "bench.db");
  EXPECT_EQ(doc["alpha"], 0.01);
  EXPECT_EQ(doc["min_change"], 0.02);
  EXPECT_EQ(doc["since"], "2023-11-01");
  ASSERT_EQ(doc["series"].size(), 2u);
  const nlohmann::json& first = doc["series"][0];
  EXPECT_EQ(first["metric"], "throughput.rps");
  EXPECT_EQ(first["testbed_id"], 3);
  EXPECT_EQ(first["runs"], 60);
  EXPECT_EQ(first["from_store"], true);
  EXPECT_EQ(first["submitted_by"], "operator");
  ASSERT_EQ(first["change_points"].size(), 1u);
  const nlohmann::json& c = first["change_points"][0];
  EXPECT_EQ(c["run_id"], 31);
  EXPECT_EQ(c["previous_commit"], "1111111111aaaa");
  EXPECT_EQ(c["started_at"], "2023-11-14T22:13:20Z");
  EXPECT_EQ(c["change"], -0.05);
  EXPECT_TRUE(c["change_high"].is_null());
  EXPECT_EQ(c["direction"], "worse");
  EXPECT_TRUE(doc["series"][1]["change_points"].empty());
  const nlohmann::json none =
      nlohmann::json::parse(render_change_json({}, {"x.db", 0.01, 0.01, ""}));
  EXPECT_TRUE(none["since"].is_null());
  EXPECT_TRUE(none["series"].empty());
}

}  // namespace
}  // namespace benchgate::history
