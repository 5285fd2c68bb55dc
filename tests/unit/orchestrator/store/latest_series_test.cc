// The series of a scenario's latest run with a workload (Store::latest_workload_series, the web
// history page's series): the newest run across testbeds, of one side when asked, found through
// an index newest first (schema version 25), never by reading and sorting every run.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/store_internal.h"
#include "store_test_support.h"

namespace benchgate::store {
namespace {

using testing::TempDir;

class LatestSeries : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Store::open(dir_.file("l.db"));
    ASSERT_TRUE(s.ok()) << s.message();
    store_ = std::move(*s);
  }

  // A finished run of quickstart on testbed `host`, started by `origin`, with `workload`.
  int64_t run(const std::string& host, const std::string& origin, const std::string& workload) {
    RunInfo info = testing::test_run_info();
    info.testbed = testing::test_testbed(host);
    info.origin = origin;
    auto id = store_->begin_run(info);
    EXPECT_TRUE(id.ok()) << id.message();
    EXPECT_TRUE(store_->store_workload(*id, testing::test_workload(workload, 1)).ok());
    EXPECT_TRUE(store_->finish_run(*id, "ok", 0).ok());
    return *id;
  }

  int64_t testbed_of(int64_t run) {
    auto detail = store_->get_run(run);
    EXPECT_TRUE(detail.ok()) << detail.message();
    return detail->run.testbed_id;
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(LatestSeries, IsOfTheNewestRunWithTheWorkloadAcrossTestbedsAndOfTheSideAsked) {
  const int64_t a_old = run("bench-a", "local", "http_hello");
  const int64_t b = run("bench-b", "local", "http_hello");
  const int64_t a_client = run("bench-a", "client", "http_hello");
  run("bench-b", "local", "other");  // newest, without the workload
  ASSERT_NE(testbed_of(a_old), testbed_of(b));

  auto any = store_->latest_workload_series("quickstart", "http_hello", "default", "");
  ASSERT_TRUE(any.ok()) << any.message();
  ASSERT_TRUE(any->has_value());
  EXPECT_EQ((*any)->testbed_id, testbed_of(a_client));
  EXPECT_EQ((*any)->submitted_by, kClientRuns);

  auto operators =
      store_->latest_workload_series("quickstart", "http_hello", "default", "operator");
  ASSERT_TRUE(operators.ok()) << operators.message();
  ASSERT_TRUE(operators->has_value());
  EXPECT_EQ((*operators)->testbed_id, testbed_of(b));
  EXPECT_EQ((*operators)->submitted_by, kOperatorRuns);

  auto none = store_->latest_workload_series("quickstart", "absent", "default", "");
  ASSERT_TRUE(none.ok()) << none.message();
  EXPECT_FALSE(none->has_value());
  auto other = store_->latest_workload_series("nightly", "http_hello", "default", "");
  ASSERT_TRUE(other.ok()) << other.message();
  EXPECT_FALSE(other->has_value());
}

// The plan SQLite chooses: a walk of runs_by_scenario_newest from the newest run, each joined
// to its workload by key, and no sort (USE TEMP B-TREE FOR ORDER BY), which is what read every
// run of the scenario through runs_by_scenario (testbed first).
TEST_F(LatestSeries, IsFoundThroughTheNewestFirstIndexWithoutASort) {
  auto plan =
      store_->database().prepare("EXPLAIN QUERY PLAN " + internal::latest_workload_series_sql());
  ASSERT_TRUE(plan.ok()) << plan.message();
  std::vector<std::string> steps;
  while (true) {
    auto row = plan->step();
    ASSERT_TRUE(row.ok()) << row.message();
    if (!*row) break;
    steps.push_back(plan->text(3));
  }
  ASSERT_EQ(steps.size(), 2u) << ::testing::PrintToString(steps);
  EXPECT_EQ(steps[0], "SEARCH r USING INDEX runs_by_scenario_newest (scenario=?)");
  EXPECT_EQ(steps[1].rfind("SEARCH w USING INDEX", 0), 0u) << steps[1];
  EXPECT_NE(steps[1].find("(run_id=? AND name=? AND variant=?)"), std::string::npos) << steps[1];
}

}  // namespace
}  // namespace benchgate::store
