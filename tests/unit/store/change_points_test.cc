// Stored change points (schema 0003): kept up to date run by run, equal to a fresh analysis,
// read back while current and computed again when not.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "tests/unit/store/store_test_support.h"

namespace benchgate::store {
namespace {

using testing::TempDir;

// One repetition of a 1 s window with `rps` successes, so the run's median ops/s is `rps`.
results::WorkloadResult workload(double rps) {
  results::WorkloadResult w;
  w.spec = testing::test_workload_spec("hello");
  results::Repetition r;
  r.duration_ns = 1'000'000'000;
  r.data_window_ns = 1'000'000'000;
  r.successes = static_cast<uint64_t>(rps);
  r.operations = r.successes;
  r.bytes_sent = r.successes;
  r.bytes_received = r.successes * 100;
  r.latency.record_n(1'000'000, 10);
  r.worker_cpu_seconds = 0.1;
  r.worker_cpu_utilization = 0.1;
  w.latency.add(r.latency);
  w.repetitions.push_back(std::move(r));
  return w;
}

class ChangePointsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = Store::open(dir_.file("changes.db"));
    ASSERT_TRUE(opened.ok()) << opened.message();
    store_ = std::move(*opened);
  }

  // A finished run of 'hello' at `rps`, brought into the change points as run_command does.
  int64_t add_run(double rps, const std::string& branch = "main", bool hook = true) {
    RunInfo info = testing::test_run_info("changes");
    info.branch = branch;
    info.commit = "commit" + std::to_string(++commits_);
    auto run = store_->begin_run(info);
    EXPECT_TRUE(run.ok()) << run.message();
    EXPECT_TRUE(store_->store_workload(*run, workload(rps)).ok());
    EXPECT_TRUE(store_->finish_run(*run, "ok", 0).ok());
    if (hook) {
      auto updated = store_->update_change_points(*run);
      EXPECT_TRUE(updated.ok()) << updated.message();
    }
    return *run;
  }

  // A 6% throughput drop after 25 runs, 1% noise.
  std::vector<int64_t> fill(int runs, bool hook = true) {
    std::mt19937_64 gen(17);
    std::normal_distribution<double> noise(0, 0.01);
    std::vector<int64_t> ids;
    for (int i = 0; i < runs; ++i) {
      ids.push_back(add_run((i < 25 ? 10000 : 9400) * (1 + noise(gen)), "main", hook));
    }
    return ids;
  }

  std::vector<SeriesChanges> rps_changes(
      ChangeSeriesFilter f = {}, changes::ChangeOptions o = Store::stored_change_options()) {
    f.metric = "throughput.rps";
    auto found = store_->change_points(f, o);
    EXPECT_TRUE(found.ok()) << found.message();
    return found.ok() ? *found : std::vector<SeriesChanges>{};
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
  int commits_ = 0;
};

TEST_F(ChangePointsTest, ADropIsStoredAtTheRunWhereItHappened) {
  const std::vector<int64_t> ids = fill(40);
  const std::vector<SeriesChanges> series = rps_changes();
  ASSERT_EQ(series.size(), 1u);
  EXPECT_TRUE(series[0].from_store);
  EXPECT_EQ(series[0].points, 40);
  EXPECT_EQ(series[0].key.workload, "hello");
  EXPECT_EQ(series[0].testbed_host, "bench-host-1");
  ASSERT_EQ(series[0].changes.size(), 1u);
  const StoredChangePoint& c = series[0].changes[0];
  EXPECT_EQ(c.run_id, ids[25]);
  EXPECT_EQ(c.previous_run_id, ids[24]);
  EXPECT_EQ(c.commit, "commit26");
  EXPECT_EQ(c.previous_commit, "commit25");
  EXPECT_EQ(c.position, 25);
  ASSERT_TRUE(c.change.has_value());
  EXPECT_NEAR(*c.change, -0.06, 0.01);
  ASSERT_TRUE(c.change_low && c.change_high);
  EXPECT_LT(*c.change_high, 0);
  EXPECT_LT(c.p_value, 0.01);
  // Every analysed metric of the workload has a series; latency did not change.
  auto all = store_->change_points({}, Store::stored_change_options());
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), Store::change_metrics().size());
  for (const SeriesChanges& s : *all) {
    if (s.key.metric.rfind("latency.", 0) == 0) EXPECT_TRUE(s.changes.empty()) << s.key.metric;
  }
}

TEST_F(ChangePointsTest, RunByRunUpdatesEqualOneAnalysisOfTheWholeHistory) {
  fill(70);
  const std::vector<SeriesChanges> incremental = rps_changes();
  ASSERT_EQ(incremental.size(), 1u);
  ASSERT_TRUE(incremental[0].from_store);
  // With nothing stored, the same series is computed afresh...
  ASSERT_TRUE(store_->database().exec("DELETE FROM change_series").ok());
  const std::vector<SeriesChanges> computed = rps_changes();
  ASSERT_EQ(computed.size(), 1u);
  EXPECT_FALSE(computed[0].from_store);
  // ...and stored again in one pass.
  ASSERT_TRUE(store_->update_all_change_points().ok());
  const std::vector<SeriesChanges> full = rps_changes();
  ASSERT_TRUE(full[0].from_store);
  for (const auto* other : {&computed, &full}) {
    ASSERT_EQ((*other)[0].changes.size(), incremental[0].changes.size());
    for (size_t i = 0; i < incremental[0].changes.size(); ++i) {
      const StoredChangePoint &a = incremental[0].changes[i], &b = (*other)[0].changes[i];
      EXPECT_EQ(a.run_id, b.run_id);
      EXPECT_DOUBLE_EQ(a.median_before, b.median_before);
      EXPECT_DOUBLE_EQ(a.median_after, b.median_after);
      EXPECT_DOUBLE_EQ(a.p_value, b.p_value);
    }
  }
}

TEST_F(ChangePointsTest, ARunNotBroughtInMakesTheSeriesComputedNotRead) {
  fill(40);
  add_run(9400, "main", /*hook=*/false);
  const std::vector<SeriesChanges> series = rps_changes();
  ASSERT_EQ(series.size(), 1u);
  EXPECT_FALSE(series[0].from_store);
  EXPECT_EQ(series[0].points, 41);
  ASSERT_EQ(series[0].changes.size(), 1u);
}

TEST_F(ChangePointsTest, OtherOptionsOrABranchAreComputed) {
  fill(40);
  for (int i = 0; i < 5; ++i) add_run(20000, "feature");
  changes::ChangeOptions strict = Store::stored_change_options();
  strict.min_change = 0.5;
  const std::vector<SeriesChanges> big_only = rps_changes({}, strict);
  ASSERT_EQ(big_only.size(), 1u);
  EXPECT_FALSE(big_only[0].from_store);
  ChangeSeriesFilter main_only;
  main_only.branch = "main";
  const std::vector<SeriesChanges> main_series = rps_changes(main_only);
  ASSERT_EQ(main_series.size(), 1u);
  EXPECT_FALSE(main_series[0].from_store);
  EXPECT_EQ(main_series[0].points, 40);
  ASSERT_EQ(main_series[0].changes.size(), 1u);
  EXPECT_EQ(main_series[0].changes[0].position, 25);
  ChangeSeriesFilter nothing;
  nothing.scenario = "no_such_scenario";
  EXPECT_TRUE(rps_changes(nothing).empty());
}

}  // namespace
}  // namespace benchgate::store
