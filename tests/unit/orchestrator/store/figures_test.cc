// Issue 13: one figure per metric. The store keeps each workload's figure as the report prints
// it (errors summed, latency from the merged histogram), the SQL views show exactly that, gate
// results say whether a relative gate was underpowered, and calibrations read back.
#include <gtest/gtest.h>

#include <cmath>

#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/workload_params.h"
#include "store_test_support.h"

namespace benchgate::store {
namespace {

using testing::TempDir;

class Figures : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Store::open(dir_.file("bench.db"));
    ASSERT_TRUE(s.ok()) << s.message();
    store_ = std::move(*s);
  }
  // One real value of a one-row, one-column query.
  std::optional<double> scalar(const std::string& sql) {
    auto stmt = store_->database().prepare(sql);
    EXPECT_TRUE(stmt.ok()) << stmt.message();
    if (!stmt) return std::nullopt;
    auto row = stmt->step();
    EXPECT_TRUE(row.ok() && *row) << sql;
    if (!row || !*row) return std::nullopt;
    return stmt->optional_real(0);
  }
  // The history baseline "main" holds for quickstart/http_hello's `metric`, on the testbed of
  // `run` (a stored run of `w`).
  Expected<std::vector<HistoryRun>> main_history(int64_t run, const results::WorkloadResult& w,
                                                 const std::string& metric) {
    auto stored = store_->get_run(run);
    if (!stored) return stored.error();
    HistoryQuery q;
    q.baseline = "main";
    q.testbed_id = stored->run.testbed_id;
    q.scenario = "quickstart";
    q.workload = "http_hello";
    q.params_hash = workload_params_hash(w.spec);
    q.metric = metric;
    return store_->baseline_history(q);
  }
  TempDir dir_;
  std::unique_ptr<Store> store_;
};

// Three repetitions: errors [0, 0, 500] and one slow repetition whose latency dominates the
// merged p99 while the median of the repetitions' p99s stays low.
results::WorkloadResult skewed_workload() {
  results::WorkloadResult w = testing::test_workload("http_hello", 3);
  for (auto& rep : w.repetitions) rep.errors.clear();
  w.repetitions[2].errors = {{"status", 500}};
  w.repetitions[2].operations = w.repetitions[2].successes + 500;
  w.latency = HdrHistogram();
  for (int64_t v = 1; v <= 200'000; ++v) w.repetitions[2].latency.record(9'000'000);
  for (const auto& rep : w.repetitions) w.latency.add(rep.latency);
  return w;
}

TEST_F(Figures, TheStoredFigureIsTheOneTheReportPrintsAndTheViewsShowIt) {
  auto run = store_->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok()) << run.message();
  const results::WorkloadResult w = skewed_workload();
  ASSERT_TRUE(store_->store_workload(*run, w).ok());
  ASSERT_TRUE(store_->finish_run(*run, "ok", 0).ok());

  // What the report prints: 500 errors, the merged histogram's p99.
  ASSERT_EQ(w.error_count(), 500u);
  const double merged_p99 = static_cast<double>(*w.latency_at(99)) / 1e9;
  const auto per_rep = results::metric_values(w, "latency.p99");
  ASSERT_TRUE(per_rep.has_value());
  std::vector<double> sorted = *per_rep;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_NE(merged_p99, sorted[1]);  // the two definitions differ here

  auto errors = store_->run_metric_figure(*run, "http_hello", "default", "errors.count");
  ASSERT_TRUE(errors.ok()) << errors.message();
  EXPECT_EQ(*errors, std::optional<double>(500));
  auto p99 = store_->run_metric_figure(*run, "http_hello", "default", "latency.p99");
  ASSERT_TRUE(p99.ok());
  EXPECT_EQ(*p99, std::optional<double>(merged_p99));
  EXPECT_EQ(*p99, results::metric_figure(w, "latency.p99"));

  EXPECT_EQ(scalar("SELECT p99_s FROM workload_summary"), merged_p99);
  EXPECT_EQ(scalar("SELECT value FROM series_history WHERE metric = 'latency.p99'"), merged_p99);
  // One name for errors: the gates'.
  EXPECT_EQ(scalar("SELECT value FROM series_history WHERE metric = 'errors.count'"), 500.0);
  EXPECT_EQ(scalar("SELECT count(*) FROM series_history WHERE metric = 'errors.total'"), 0.0);
}

TEST_F(Figures, EveryStoredFigureIsTheInMemoryOne) {
  auto run = store_->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok());
  results::WorkloadResult w = skewed_workload();
  w.repetitions[1].router.rss_bytes = 99'000'000;  // the peak is one repetition's
  w.repetitions[0].worker_cpu_utilization = 0.9;
  ASSERT_TRUE(store_->store_workload(*run, w).ok());
  for (const char* metric :
       {"throughput.rps", "throughput.bytes_per_s", "latency.p50", "latency.p75", "latency.p90",
        "latency.p95", "latency.p99", "latency.p999", "latency.max", "latency.mean", "errors.count",
        "errors.rate", "router.cpu_per_request", "router.rss_bytes", "worker.cpu_utilization"}) {
    auto stored = store_->run_metric_figure(*run, "http_hello", "default", metric);
    ASSERT_TRUE(stored.ok()) << stored.message();
    const auto in_memory = results::metric_figure(w, metric);
    ASSERT_TRUE(in_memory.has_value()) << metric;
    EXPECT_EQ(*stored, in_memory) << metric;
  }
  EXPECT_EQ(results::metric_figure(w, "router.rss_bytes"), std::optional<double>(99'000'000));
  EXPECT_EQ(results::metric_figure(w, "worker.cpu_utilization"), std::optional<double>(0.9));
  uint64_t operations = 0;
  for (const auto& rep : w.repetitions) operations += rep.operations;
  EXPECT_EQ(results::metric_figure(w, "errors.rate"),
            std::optional<double>(500.0 / static_cast<double>(operations)));
}

TEST_F(Figures, ABaselineRunCarriesItsFigure) {
  auto run = store_->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok());
  const results::WorkloadResult w = skewed_workload();
  ASSERT_TRUE(store_->store_workload(*run, w).ok());
  ASSERT_TRUE(store_->finish_run(*run, "ok", 0).ok());
  ASSERT_TRUE(store_->add_baseline("main", *run).ok());
  auto history = main_history(*run, w, "errors.count");
  ASSERT_TRUE(history.ok()) << history.message();
  ASSERT_EQ(history->size(), 1u);
  EXPECT_EQ((*history)[0].figure, 500);
  EXPECT_EQ((*history)[0].values, (std::vector<double>{0, 0, 500}));
}

TEST_F(Figures, GateResultsSayUnderpoweredAndCalibrationsReadBack) {
  auto run = store_->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok());
  GateRecord g;
  g.workload = "http_hello";
  g.variant = "h2load";
  g.metric = "throughput.rps";
  g.kind = "relative";
  g.baseline = "main";
  g.method = "nested-t";
  g.verdict = "inconclusive";
  g.severity = "critical";
  g.underpowered = true;
  g.detectable = 0.31;
  g.effect_low = -0.02;
  g.effect_high = 0.05;
  g.effect_confidence = 0.98;
  GateRecord nc = g;
  nc.verdict = "not_configured";
  nc.underpowered.reset();
  nc.detectable.reset();
  nc.effect_low.reset();
  nc.effect_high.reset();
  nc.effect_confidence.reset();
  ASSERT_TRUE(store_->store_gate_results(*run, {g, nc}).ok());
  auto back = store_->gate_results(*run);
  ASSERT_TRUE(back.ok()) << back.message();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].underpowered, std::optional<bool>(true));
  EXPECT_EQ((*back)[0].detectable, std::optional<double>(0.31));
  EXPECT_EQ((*back)[0].variant, "h2load");
  EXPECT_EQ((*back)[1].verdict, "not_configured");
  EXPECT_FALSE((*back)[1].underpowered.has_value());
  // The effect's interval (schema version 12), NULL where there is none.
  EXPECT_EQ((*back)[0].effect_low, std::optional<double>(-0.02));
  EXPECT_EQ((*back)[0].effect_high, std::optional<double>(0.05));
  EXPECT_EQ((*back)[0].effect_confidence, std::optional<double>(0.98));
  EXPECT_FALSE((*back)[1].effect_low.has_value());
  EXPECT_FALSE((*back)[1].effect_confidence.has_value());

  auto stored = store_->get_run(*run);
  ASSERT_TRUE(stored.ok());
  CalibrationRecord c;
  c.series = {stored->run.testbed_id, "quickstart", "http_hello", "default", "abc",
              "throughput.rps"};
  c.runs = 10;
  c.run_ids = {1, 2, 3};
  c.mean = 1000;
  c.cv = 0.02;
  c.log_sd = 0.0199;
  c.detectable_1 = 0.08;
  c.detectable_5 = 0.03;
  auto none = store_->calibration(c.series);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  ASSERT_TRUE(store_->store_calibrations({c}).ok());
  c.cv = 0.03;  // a later calibration replaces the earlier one
  ASSERT_TRUE(store_->store_calibrations({c}).ok());
  auto latest = store_->calibration(c.series);
  ASSERT_TRUE(latest.ok()) << latest.message();
  ASSERT_TRUE(latest->has_value());
  EXPECT_EQ((*latest)->cv, 0.03);
  EXPECT_EQ((*latest)->runs, 10);
  EXPECT_EQ((*latest)->run_ids, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ((*latest)->detectable_5, 0.03);
}

// A workload that never ran has no error count: the summary view says NULL, not 0 (schema
// version 10), while a measured one shows its summed errors.
// A repetition in which the server answered every request with a 500 completed no success and
// has no latency to measure (docs/GATES.md, "What a gate judges"). RESULT prints the merged
// histogram's p99; the store keeps that figure, series_history shows it, the stored
// per-repetition values are the ones a live gate judges (the other repetitions'), and the run
// is history of latency.p99. A workload with no success at all has no latency figure.
TEST_F(Figures, ARepetitionWithNoSuccessLeavesTheLatencyFigureStoredAsPrinted) {
  results::WorkloadResult w = testing::test_workload("http_hello", 3);
  results::Repetition& all_500 = w.repetitions[1];
  all_500.errors = {{"status", all_500.operations}};
  all_500.successes = 0;
  all_500.window_successes = 0;
  all_500.latency = HdrHistogram();
  w.latency = HdrHistogram();
  for (const auto& rep : w.repetitions) w.latency.add(rep.latency);
  results::WorkloadResult none = w;
  none.spec.name = "all_500";
  none.repetitions = {all_500, all_500};
  none.repetitions[0].index = 0;
  none.latency = HdrHistogram();

  auto run = store_->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok()) << run.message();
  ASSERT_TRUE(store_->store_workload(*run, w).ok());
  auto stored_none = store_->store_workload(*run, none);
  ASSERT_TRUE(stored_none.ok()) << stored_none.message();
  ASSERT_TRUE(store_->finish_run(*run, "ok", 0).ok());
  ASSERT_TRUE(store_->add_baseline("main", *run).ok());

  const double printed = static_cast<double>(*w.latency_at(99)) / 1e9;
  EXPECT_EQ(scalar("SELECT value FROM workload_figures WHERE metric = 'latency.p99'"), printed);
  EXPECT_EQ(scalar("SELECT value FROM series_history WHERE metric = 'latency.p99'"), printed);
  EXPECT_EQ(scalar("SELECT count(*) FROM series_history WHERE metric = 'latency.p99'"), 1.0);
  for (const char* metric : {"latency.p50", "latency.p99", "latency.max", "latency.mean"}) {
    const auto live = results::metric_values(w, metric);
    ASSERT_TRUE(live.has_value()) << metric;
    EXPECT_EQ(live->size(), 2u) << metric;
    auto stored = store_->run_metric_values(*run, "http_hello", "default", metric);
    ASSERT_TRUE(stored.ok()) << stored.message();
    ASSERT_TRUE(stored->has_value()) << metric << " read back as not collected";
    EXPECT_EQ(**stored, *live) << metric;
    auto figure = store_->run_metric_figure(*run, "http_hello", "default", metric);
    ASSERT_TRUE(figure.ok()) << figure.message();
    EXPECT_EQ(*figure, results::metric_figure(w, metric)) << metric;

    auto nothing = store_->run_metric_values(*run, "all_500", "default", metric);
    ASSERT_TRUE(nothing.ok()) << nothing.message();
    EXPECT_FALSE(nothing->has_value()) << metric;
    EXPECT_FALSE(results::metric_values(none, metric).has_value()) << metric;
  }
  auto history = main_history(*run, w, "latency.p99");
  ASSERT_TRUE(history.ok()) << history.message();
  ASSERT_EQ(history->size(), 1u);
  EXPECT_EQ((*history)[0].figure, printed);
  EXPECT_EQ((*history)[0].values, *results::metric_values(w, "latency.p99"));
}

TEST_F(Figures, AWorkloadThatNeverRanHasNoErrorCountInTheSummary) {
  auto run = store_->begin_run(testing::test_run_info());
  ASSERT_TRUE(run.ok()) << run.message();
  results::WorkloadResult never = testing::test_workload("never_ran", 0);
  never.status = results::WorkloadStatus::kFailed;
  never.error = "the router did not start";
  ASSERT_TRUE(store_->store_workload(*run, never).ok());
  ASSERT_TRUE(store_->store_workload(*run, skewed_workload()).ok());
  ASSERT_TRUE(store_->finish_run(*run, "failed", 3).ok());
  EXPECT_EQ(scalar("SELECT errors_total FROM workload_summary WHERE workload = 'never_ran'"),
            std::nullopt);
  EXPECT_EQ(scalar("SELECT errors_total FROM workload_summary WHERE workload = 'http_hello'"),
            500.0);
}

}  // namespace
}  // namespace benchgate::store
