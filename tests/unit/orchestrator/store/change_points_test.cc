// Stored change points (schema 0003): kept up to date run by run, equal to a fresh analysis,
// read back while current and computed again when not.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "orchestrator/changes/change_gate.h"
#include "orchestrator/scenario/sections.h"
#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "tests/unit/orchestrator/store/store_test_support.h"

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
    return add_run(workload(rps), branch, hook);
  }

  int64_t add_run(const results::WorkloadResult& w, const std::string& branch = "main",
                  bool hook = true) {
    RunInfo info = testing::test_run_info("changes");
    info.branch = branch;
    info.commit = "commit" + std::to_string(++commits_);
    auto run = store_->begin_run(info);
    EXPECT_TRUE(run.ok()) << run.message();
    EXPECT_TRUE(store_->store_workload(*run, w).ok());
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
    if (s.key.metric.rfind("latency.", 0) == 0) {
      EXPECT_TRUE(s.changes.empty()) << s.key.metric;
    }
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

// Every field of a stored change point (its columns and its runs' commits and start) reads back
// as the analysis found it: one analysis of the whole history, computed and then stored.
TEST_F(ChangePointsTest, StoredChangePointsReadBackAsTheAnalysisFoundThem) {
  fill(40, /*hook=*/false);
  const std::vector<SeriesChanges> computed = rps_changes();
  ASSERT_EQ(computed.size(), 1u);
  ASSERT_FALSE(computed[0].from_store);
  ASSERT_EQ(computed[0].changes.size(), 1u);
  ASSERT_TRUE(store_->update_all_change_points().ok());
  const std::vector<SeriesChanges> stored = rps_changes();
  ASSERT_EQ(stored.size(), 1u);
  ASSERT_TRUE(stored[0].from_store);
  EXPECT_EQ(stored[0].points, computed[0].points);
  EXPECT_TRUE(stored[0].key == computed[0].key);
  EXPECT_TRUE(stored[0].changes == computed[0].changes);
  const StoredChangePoint& c = stored[0].changes[0];
  EXPECT_EQ(c.commit, "commit26");
  EXPECT_EQ(c.previous_commit, "commit25");
  EXPECT_GT(c.started_at_ns, 0);
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

// A change gate's history: the series' latest runs before the judged one, oldest first, each
// with the value the change-point analysis reads (the run's figure).
TEST_F(ChangePointsTest, ChangeGateHistoryIsTheSeriesBeforeTheRun) {
  const std::vector<int64_t> ids = fill(30);
  const std::vector<SeriesChanges> series = rps_changes();
  ASSERT_EQ(series.size(), 1u);
  ChangeSeriesKey key = series[0].key;
  key.metric = "throughput.rps";
  auto history = store_->change_gate_history(key, ids[20], 8);
  ASSERT_TRUE(history.ok()) << history.message();
  ASSERT_EQ(history->size(), 8u);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ((*history)[i].run_id, ids[12 + i]);
  auto all = store_->change_gate_history(key, INT64_MAX, 100);
  ASSERT_TRUE(all.ok()) << all.message();
  ASSERT_EQ(all->size(), 30u);
  // The same values as the run medians: 10000 before run 25, 9400 after, with 1% noise.
  EXPECT_NEAR((*all)[0].value, 10000, 500);
  EXPECT_NEAR((*all)[29].value, 9400, 500);
  key.metric = "errors.count";
  auto errors = store_->change_gate_history(key, INT64_MAX, 10);
  ASSERT_FALSE(errors.ok());
  EXPECT_NE(errors.message().find("change points are not looked for in metric 'errors.count'"),
            std::string::npos)
      << errors.message();
}

// A run stored with status ok but measured without every worker (flag degraded) or while a
// process was stopped (process_stopped) is not history of a relative gate (baselines_test.cc),
// and by the same rule neither of a change gate nor a point of the change-point analysis. 20
// clean runs at 100k ops/s, one degraded and one stopped at 50k, a new run at 90k: with those
// two points the new run's p would be 3/23 (inconclusive); without them it is 1/21, a fail.
TEST_F(ChangePointsTest, ARunMeasuredDegradedOrStoppedIsNoPointOfTheSeries) {
  std::vector<int64_t> clean;
  for (int i = 0; i < 10; ++i) clean.push_back(add_run(100000));
  results::WorkloadResult lost = workload(50000);
  lost.repetitions[0].flags.emplace_back(results::kDegraded);
  add_run(lost);
  results::WorkloadResult stopped = workload(50000);
  stopped.repetitions[0].flags.emplace_back(results::kProcessStopped);
  stopped.repetitions[0].stopped = {"router (pid 4243)"};
  add_run(stopped);
  for (int i = 0; i < 10; ++i) clean.push_back(add_run(100000));
  const int64_t judged = add_run(90000);

  const std::vector<SeriesChanges> series = rps_changes();
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].points, 21);
  EXPECT_TRUE(series[0].from_store) << "the stored analysis counts the runs the listing counts";
  ASSERT_TRUE(store_->database().exec("DELETE FROM change_series").ok());
  const std::vector<SeriesChanges> computed = rps_changes();
  ASSERT_EQ(computed.size(), 1u);
  EXPECT_FALSE(computed[0].from_store);
  EXPECT_EQ(computed[0].points, 21);

  auto history = store_->change_gate_history(series[0].key, judged, changes::kChangeGateHistory);
  ASSERT_TRUE(history.ok()) << history.message();
  ASSERT_EQ(history->size(), clean.size());
  for (size_t i = 0; i < clean.size(); ++i) {
    EXPECT_EQ((*history)[i].run_id, clean[i]);
    EXPECT_EQ((*history)[i].value, 100000);
  }
  scenario::Gate gate;
  gate.workload = "hello";
  gate.metric = "throughput.rps";
  gate.change = true;
  gate.alpha = 0.05;
  gate.min_change = 0.01;
  const gates::GateOutcome outcome =
      changes::evaluate_change_gate(gate, gates::RunValues{90000, {90000}}, *history);
  EXPECT_EQ(outcome.verdict, gates::Verdict::kFail) << outcome.explanation;
  ASSERT_TRUE(outcome.p_value.has_value());
  EXPECT_DOUBLE_EQ(*outcome.p_value, 1.0 / 21);
}

// One definition of a figure (docs/GATES.md, "What a gate judges"): a series' point of a run
// is the workload's figure, the number its report prints and its gates judge (the merged
// histogram's p99 here), not the median of the repetitions' p99s.
TEST_F(ChangePointsTest, ASeriesPointIsTheFigureTheGatesJudge) {
  results::WorkloadResult w;
  w.spec = testing::test_workload_spec("hello");
  for (uint32_t i = 0; i < 3; ++i) {
    results::Repetition r;
    r.index = i;
    r.duration_ns = 1'000'000'000;
    r.data_window_ns = 1'000'000'000;
    r.successes = 1000;
    r.operations = r.successes;
    r.bytes_received = r.successes * 100;
    // Two repetitions at 1 ms, one at 10 ms: the repetitions' p99s have the median 1 ms, the
    // merged histogram's p99 is 10 ms.
    r.latency.record_n(i == 2 ? 10'000'000 : 1'000'000, 1000);
    w.latency.add(r.latency);
    w.repetitions.push_back(std::move(r));
  }
  const std::optional<double> figure = results::metric_figure(w, "latency.p99");
  ASSERT_TRUE(figure.has_value());
  ASSERT_GT(*figure, 0.009);
  auto run = store_->begin_run(testing::test_run_info("changes"));
  ASSERT_TRUE(run.ok()) << run.message();
  ASSERT_TRUE(store_->store_workload(*run, w).ok());
  ASSERT_TRUE(store_->finish_run(*run, "ok", 0).ok());
  ASSERT_TRUE(store_->update_change_points(*run).ok());

  ChangeSeriesFilter filter;
  filter.metric = "latency.p99";
  auto series = store_->change_points(filter, Store::stored_change_options());
  ASSERT_TRUE(series.ok()) << series.message();
  ASSERT_EQ(series->size(), 1u);
  EXPECT_TRUE((*series)[0].from_store);
  auto history = store_->change_gate_history((*series)[0].key, INT64_MAX, 10);
  ASSERT_TRUE(history.ok()) << history.message();
  ASSERT_EQ(history->size(), 1u);
  EXPECT_EQ((*history)[0].run_id, *run);
  EXPECT_DOUBLE_EQ((*history)[0].value, *figure);
  auto stored = store_->run_metric_figure(*run, "hello", "default", "latency.p99");
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_DOUBLE_EQ((*history)[0].value, **stored);
}

// An analysis stored before a series' points were the figures (they were the medians over
// repetitions) is not current: it is computed again, and replaced when the next run lands.
TEST_F(ChangePointsTest, AnAnalysisOfTheOldPointsIsNotCurrent) {
  fill(30);
  ASSERT_TRUE(store_->database()
                  .exec("UPDATE change_series SET parameters = json_remove(parameters, '$.points')")
                  .ok());
  EXPECT_FALSE(rps_changes()[0].from_store);
  add_run(9400);
  EXPECT_TRUE(rps_changes()[0].from_store);
}

// gate_results accepts kind 'change' (schema 0008) and reads it back.
TEST_F(ChangePointsTest, ChangeGateResultsAreStored) {
  const int64_t run = add_run(10000);
  GateRecord g;
  g.workload = "hello";
  g.metric = "latency.p99";
  g.kind = "change";
  g.observed = 0.0012;
  g.baseline_runs = {1, 2, 3};
  g.baseline_centre = 0.001;
  g.p_value = 1.0 / 41;
  g.alpha = 0.05;
  g.method = "e-divisive";
  g.verdict = "fail";
  g.severity = "critical";
  g.explanation = "starts a change";
  auto stored = store_->store_gate_results(run, {g});
  ASSERT_TRUE(stored.ok()) << stored.message();
  auto read = store_->gate_results(run);
  ASSERT_TRUE(read.ok()) << read.message();
  ASSERT_EQ(read->size(), 1u);
  EXPECT_EQ((*read)[0].kind, "change");
  EXPECT_EQ((*read)[0].method, "e-divisive");
  EXPECT_EQ((*read)[0].baseline_runs, g.baseline_runs);
  EXPECT_FALSE((*read)[0].confirmation.has_value());
  EXPECT_FALSE((*read)[0].confirmation_observed || (*read)[0].confirmation_p_value);
}

// A change gate's confirming rerun (confirm = 1, schema 0010): what it did, its figure and its
// p-value are kept beside the first measurement's; another word is refused.
TEST_F(ChangePointsTest, AConfirmingRerunIsStoredWithTheVerdict) {
  const int64_t run = add_run(10000);
  GateRecord g;
  g.workload = "hello";
  g.metric = "latency.p99";
  g.kind = "change";
  g.observed = 0.003;
  g.p_value = 1.0 / 21;
  g.method = "e-divisive";
  g.verdict = "pass";
  g.severity = "critical";
  g.confirmation = "cleared";
  g.confirmation_observed = 0.001;
  g.confirmation_p_value = 0.5;
  ASSERT_TRUE(store_->store_gate_results(run, {g}).ok());
  auto read = store_->gate_results(run);
  ASSERT_TRUE(read.ok()) << read.message();
  ASSERT_EQ(read->size(), 1u);
  EXPECT_EQ((*read)[0].confirmation, "cleared");
  EXPECT_EQ((*read)[0].confirmation_observed, 0.001);
  EXPECT_EQ((*read)[0].confirmation_p_value, 0.5);
  EXPECT_EQ((*read)[0].observed, 0.003);
  g.confirmation = "maybe";
  EXPECT_FALSE(store_->store_gate_results(run, {g}).ok());
}

// The loader accepts a change gate on exactly the metrics change points are looked for in.
TEST(ChangeGateMetrics, TheLoaderAndTheStoreNameTheSameMetrics) {
  std::vector<std::string> loader;
  for (std::string_view m : scenario::change_gate_metrics()) loader.emplace_back(m);
  EXPECT_EQ(loader, Store::change_metrics());
}

}  // namespace
}  // namespace benchgate::store
