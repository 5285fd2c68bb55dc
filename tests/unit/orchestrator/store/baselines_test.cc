// Baselines and the series history relative gates read (docs/GATES.md, "Series and baselines").
#include <gtest/gtest.h>

#include <algorithm>

#include "orchestrator/store/metric_columns.h"
#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/store_internal.h"
#include "orchestrator/store/workload_params.h"
#include "store_test_support.h"

namespace benchgate::store {
namespace {

using testing::TempDir;

// The test workload with its second repetition measured while `who` was stopped.
results::WorkloadResult measured_while_stopped(const std::string& who) {
  results::WorkloadResult w = testing::test_workload("http_hello", 3);
  w.repetitions[1].flags.emplace_back(results::kProcessStopped);
  w.repetitions[1].stopped = {who};
  return w;
}

// The test workload with its third repetition measured after a worker was lost.
results::WorkloadResult measured_without_every_worker() {
  results::WorkloadResult w = testing::test_workload("http_hello", 3);
  w.repetitions[2].flags.emplace_back(results::kDegraded);
  return w;
}

class Baselines : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Store::open(dir_.file("b.db"));
    ASSERT_TRUE(s.ok()) << s.message();
    store_ = std::move(*s);
  }

  // A finished run of one workload; seed makes its figures distinct.
  int64_t run(const std::string& status = "ok", const std::string& scenario = "quickstart",
              const Testbed& testbed = testing::test_testbed(),
              results::WorkloadResult workload = testing::test_workload("http_hello", 3)) {
    RunInfo info = testing::test_run_info(scenario);
    info.testbed = testbed;
    auto id = store_->begin_run(info);
    EXPECT_TRUE(id.ok()) << id.message();
    EXPECT_TRUE(store_->store_workload(*id, workload).ok());
    if (status != "running") {
      EXPECT_TRUE(store_->finish_run(*id, status, 0).ok());
    }
    return *id;
  }

  // A finished run of `workload`, status ok, on the test testbed.
  int64_t run_of(const results::WorkloadResult& workload) {
    return run("ok", "quickstart", testing::test_testbed(), workload);
  }

  // `count` finished runs, each added to the baseline "main", oldest first.
  void add_baseline_runs(int count, std::vector<int64_t>& runs) {
    for (int i = 0; i < count; ++i) {
      runs.push_back(run());
      ASSERT_TRUE(store_->add_baseline("main", runs.back()).ok());
    }
  }

  int64_t testbed_id(int64_t run_id) {
    auto detail = store_->get_run(run_id);
    EXPECT_TRUE(detail.ok());
    return detail->run.testbed_id;
  }

  HistoryQuery query(int64_t testbed, int k = 10) {
    HistoryQuery q;
    q.baseline = "main";
    q.testbed_id = testbed;
    q.scenario = "quickstart";
    q.workload = "http_hello";
    q.params_hash = workload_params_hash(testing::test_workload_spec("http_hello"));
    q.metric = "throughput.rps";
    q.k = k;
    return q;
  }

  // The series of query()'s workload and metric, as change gates and change points read it.
  ChangeSeriesKey series_key(int64_t testbed) {
    ChangeSeriesKey key;
    key.scenario = "quickstart";
    key.testbed_id = testbed;
    key.workload = "http_hello";
    key.params_hash = workload_params_hash(testing::test_workload_spec("http_hello"));
    key.metric = "throughput.rps";
    return key;
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(Baselines, AddListAndRemoveRuns) {
  const int64_t a = run();
  const int64_t b = run();
  ASSERT_TRUE(store_->add_baseline("main", a).ok());
  ASSERT_TRUE(store_->add_baseline("main", b).ok());
  ASSERT_TRUE(store_->add_baseline("v2.3", a).ok());
  EXPECT_TRUE(store_->add_baseline("main", a).ok()) << "adding again is not an error";

  auto main = store_->list_baselines("main");
  ASSERT_TRUE(main.ok()) << main.message();
  ASSERT_EQ(main->size(), 2u);
  EXPECT_EQ((*main)[0].run_id, b);
  EXPECT_EQ((*main)[1].run_id, a);
  EXPECT_EQ((*main)[0].scenario, "quickstart");
  EXPECT_GT((*main)[0].added_at_ns, 0);
  auto all = store_->list_baselines();
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 3u);

  ASSERT_TRUE(store_->remove_baseline("main", a).ok());
  auto removed_again = store_->remove_baseline("main", a);
  ASSERT_FALSE(removed_again.ok());
  EXPECT_EQ(removed_again.message(),
            "baseline remove: run " + std::to_string(a) + " is not in baseline 'main'");
  // A name no baseline has is said to be one, with the names there are.
  auto misspelt = store_->remove_baseline("mian", b);
  ASSERT_FALSE(misspelt.ok());
  EXPECT_EQ(misspelt.error().kind, ErrorKind::kInvalidInput);
  EXPECT_EQ(misspelt.message(),
            "baseline remove: there is no baseline named 'mian' (did you mean 'main'?); the "
            "baselines: 'main', 'v2.3' (`orchestrator baseline list`)");
  main = store_->list_baselines("main");
  ASSERT_TRUE(main.ok());
  ASSERT_EQ(main->size(), 1u);
  EXPECT_EQ((*main)[0].run_id, b);
}

TEST_F(Baselines, OnlyExistingRunsThatFinishedOkCanBeAdded) {
  const int64_t failed = run("failed");
  const int64_t running = run("running");
  auto f = store_->add_baseline("main", failed);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.message().find("did not finish ok"), std::string::npos) << f.message();
  EXPECT_FALSE(store_->add_baseline("main", running).ok());
  auto missing = store_->add_baseline("main", 424242);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("does not exist"), std::string::npos);
  EXPECT_FALSE(store_->add_baseline("", run()).ok());
  EXPECT_FALSE(store_->add_baseline("has space", run()).ok());
  auto list = store_->list_baselines();
  ASSERT_TRUE(list.ok());
  EXPECT_TRUE(list->empty());
}

// The runs of one `run --promote` join a baseline in one transaction (docs/GATES.md, "Series and
// baselines"): every run is added, or none, and the error names the run that may not join,
// which `refused` says too (0 when no run was to blame).
TEST_F(Baselines, SeveralRunsAreAddedAllOrNone) {
  auto runs_of = [&](const std::string& name) {
    std::vector<int64_t> ids;
    auto entries = store_->list_baselines(name);
    EXPECT_TRUE(entries.ok()) << entries.message();
    if (entries.ok()) {
      for (const BaselineEntry& e : *entries) ids.push_back(e.run_id);
    }
    return ids;
  };
  const int64_t a = run();
  const int64_t b = run();
  const int64_t c = run();
  int64_t refused = -1;
  auto all = store_->add_baselines("main", {a, b, c}, &refused);
  ASSERT_TRUE(all.ok()) << all.message();
  EXPECT_EQ(refused, 0);
  EXPECT_EQ(runs_of("main"), (std::vector<int64_t>{c, b, a}));

  // An unknown run between two that could join: neither is added.
  const int64_t d = run();
  const int64_t e = run();
  auto unknown = store_->add_baselines("next", {d, 424242, e}, &refused);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().kind, ErrorKind::kInvalidInput);
  EXPECT_EQ(unknown.error().text(), "baseline add: run 424242 does not exist");
  EXPECT_EQ(refused, 424242);
  EXPECT_TRUE(runs_of("next").empty());

  // A run that may not join after one that could, and one already in the baseline: the
  // baseline is as it was.
  const int64_t failed = run("failed");
  auto not_ok = store_->add_baselines("main", {d, a, failed}, &refused);
  ASSERT_FALSE(not_ok.ok());
  EXPECT_EQ(not_ok.error().text(),
            "baseline add: run " + std::to_string(failed) +
                " did not finish ok (status failed); only successful runs can be a baseline");
  EXPECT_EQ(refused, failed);
  EXPECT_EQ(runs_of("main"), (std::vector<int64_t>{c, b, a}));

  // A bad name refuses every run, and no run is to blame.
  refused = -1;
  auto bad_name = store_->add_baselines("has space", {d, e}, &refused);
  ASSERT_FALSE(bad_name.ok());
  EXPECT_EQ(bad_name.error().kind, ErrorKind::kInvalidInput);
  EXPECT_NE(bad_name.message().find("may contain only letters"), std::string::npos)
      << bad_name.message();
  EXPECT_EQ(refused, 0);
  auto every = store_->list_baselines();
  ASSERT_TRUE(every.ok());
  EXPECT_EQ(every->size(), 3u);

  // The refused run left out, the others join, and again adds nothing twice.
  ASSERT_TRUE(store_->add_baselines("main", {d, a, e}, &refused).ok());
  EXPECT_EQ(refused, 0);
  EXPECT_EQ(runs_of("main"), (std::vector<int64_t>{e, d, c, b, a}));
}

// A run is stored when its gates are judged, but the process can still exit 3 after that: an
// interrupt arrives, or the report files cannot be written. The stored exit code then follows
// the process's, so the run is not a baseline (README: a baseline exited 0), neither through
// `run --promote` nor a later `baseline add`. A lower code never replaces a higher one.
TEST_F(Baselines, ARunWhoseProcessExitedWithARunErrorAfterItWasStoredIsNoBaseline) {
  const int64_t r = run();
  ASSERT_TRUE(store_->raise_exit_code(r, 3, "the report files could not be written").ok());
  auto detail = store_->get_run(r);
  ASSERT_TRUE(detail.ok()) << detail.message();
  EXPECT_EQ(detail->run.status, "ok");
  EXPECT_EQ(detail->run.exit_code, 3);
  EXPECT_EQ(detail->run.error, "the report files could not be written");
  auto added = store_->add_baseline("main", r);
  ASSERT_FALSE(added.ok());
  EXPECT_NE(added.message().find("exited 3"), std::string::npos) << added.message();

  ASSERT_TRUE(store_->raise_exit_code(r, 1, "never lowered").ok());
  detail = store_->get_run(r);
  ASSERT_TRUE(detail.ok());
  EXPECT_EQ(detail->run.exit_code, 3);
  EXPECT_EQ(detail->run.error, "the report files could not be written");
  const int64_t running = run("running");
  EXPECT_FALSE(store_->raise_exit_code(running, 3, "not finished").ok());
}

// The history commands exit 2 for the user's mistakes and 3 for the database's failures, by
// the error's kind (cli/history_commands.cc): every mistake the store names carries
// kInvalidInput, and an unknown metric (a program's mistake: commands pass only known ones)
// does not.
TEST_F(Baselines, TheUsersMistakesAreInvalidInputAndOtherFailuresAreNot) {
  const int64_t ok = run();
  const int64_t failed = run("failed");
  std::vector<Error> mistakes;
  mistakes.push_back(store_->get_run(424242).error());
  mistakes.push_back(store_->add_baseline("main", 424242).error());
  mistakes.push_back(store_->add_baseline("main", failed).error());
  mistakes.push_back(store_->add_baseline("", ok).error());
  mistakes.push_back(store_->add_baseline("has space", ok).error());
  mistakes.push_back(store_->remove_baseline("main", ok).error());
  mistakes.push_back(store_->run_metric_values(ok, "nope", "default", "latency.p99").error());
  mistakes.push_back(store_->run_metric_figure(ok, "nope", "default", "latency.p99").error());
  for (const Error& e : mistakes) EXPECT_EQ(e.kind, ErrorKind::kInvalidInput) << e.text();
  EXPECT_EQ(mistakes[1].text(), "baseline add: run 424242 does not exist");
  auto unknown_metric = store_->run_metric_values(ok, "http_hello", "default", "latency.p98");
  ASSERT_FALSE(unknown_metric.ok());
  EXPECT_EQ(unknown_metric.error().kind, ErrorKind::kFailed) << unknown_metric.message();
}

TEST_F(Baselines, HistoryIsTheLatestKRunsOfTheSameSeriesAndTestbedOnly) {
  std::vector<int64_t> series;
  for (int i = 0; i < 15; ++i) {
    series.push_back(run_of(testing::test_workload("http_hello", 3, i * 100)));
    ASSERT_TRUE(store_->add_baseline("main", series.back()).ok());
    // Interleave runs that must never appear in this series' history.
    Testbed other_host = testing::test_testbed("bench-host-2");
    ASSERT_TRUE(store_->add_baseline("main", run("ok", "quickstart", other_host)).ok());
    ASSERT_TRUE(store_->add_baseline("main", run("ok", "other_scenario")).ok());
    results::WorkloadResult changed = testing::test_workload("http_hello", 3);
    changed.spec.connections = 64;  // a changed definition starts a new series
    ASSERT_TRUE(store_->add_baseline("main", run_of(changed)).ok());
    results::WorkloadResult variant = testing::test_workload("http_hello", 3);
    variant.variant = "nginx";
    ASSERT_TRUE(store_->add_baseline("main", run_of(variant)).ok());
    ASSERT_TRUE(store_->add_baseline("v1", run()).ok());  // another baseline
  }
  run();  // the newest run of the series is not in the baseline
  results::WorkloadResult failed = testing::test_workload("http_hello", 3);
  failed.status = results::WorkloadStatus::kFailed;
  const int64_t with_failed_workload = run_of(failed);
  ASSERT_TRUE(store_->add_baseline("main", with_failed_workload).ok());

  const int64_t testbed = testbed_id(series.front());
  auto history = store_->baseline_history(query(testbed));
  ASSERT_TRUE(history.ok()) << history.message();
  ASSERT_EQ(history->size(), 10u);
  for (size_t i = 0; i < 10; ++i) {
    const int64_t expected_run = series[series.size() - 1 - i];
    EXPECT_EQ((*history)[i].run_id, expected_run);
    auto values =
        store_->run_metric_values(expected_run, "http_hello", "default", "throughput.rps");
    ASSERT_TRUE(values.ok() && values->has_value());
    EXPECT_EQ((*history)[i].values, **values);
    EXPECT_EQ((*history)[i].values.size(), 3u);
    EXPECT_FALSE((*history)[i].commit.empty());
  }

  auto everything = store_->baseline_history(query(testbed, 100));
  ASSERT_TRUE(everything.ok());
  EXPECT_EQ(everything->size(), 15u);

  HistoryQuery latency = query(testbed, 3);
  latency.metric = "latency.p99";
  auto p99 = store_->baseline_history(latency);
  ASSERT_TRUE(p99.ok());
  ASSERT_EQ(p99->size(), 3u);
  for (double v : (*p99)[0].values) EXPECT_GT(v, 0.0005);  // seconds, not nanoseconds
}

// A bound for a run judged again: both walks (through the baseline and through the series)
// start below it, so a baseline run stored later is never its history.
TEST_F(Baselines, HistoryBeforeARunHasOnlyTheRunsStoredBeforeIt) {
  std::vector<int64_t> runs;
  ASSERT_NO_FATAL_FAILURE(add_baseline_runs(5, runs));
  HistoryQuery q = query(testbed_id(runs.front()), 2);
  q.before_run = runs[3];
  auto history = store_->baseline_history(q);
  ASSERT_TRUE(history.ok()) << history.message();
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[0].run_id, runs[2]);
  EXPECT_EQ((*history)[1].run_id, runs[1]);
  q.before_run = runs[0];
  auto none = store_->baseline_history(q);
  ASSERT_TRUE(none.ok()) << none.message();
  EXPECT_TRUE(none->empty());
}

TEST_F(Baselines, AWorkloadWithAWindowMeasuredWhileAProcessWasStoppedIsNeverHistory) {
  const int64_t clean = run();
  ASSERT_TRUE(store_->add_baseline("main", clean).ok());
  const int64_t stopped = run_of(measured_while_stopped("worker 0 (pid 4242)"));
  ASSERT_TRUE(store_->add_baseline("main", stopped).ok());

  auto history = store_->baseline_history(query(testbed_id(clean)));
  ASSERT_TRUE(history.ok()) << history.message();
  ASSERT_EQ(history->size(), 1u);
  EXPECT_EQ((*history)[0].run_id, clean);
  // Stored as measured, with who was stopped.
  auto detail = store_->get_run(stopped);
  ASSERT_TRUE(detail.ok()) << detail.message();
  ASSERT_EQ(detail->workloads.at(0).repetitions.size(), 3u);
  EXPECT_EQ(detail->workloads[0].repetitions[1].stopped,
            std::vector<std::string>{"worker 0 (pid 4242)"});
  EXPECT_TRUE(detail->workloads[0].repetitions[0].stopped.empty());
}

// The view series_history is a series' history as the gates read it: one definition, the text of
// internal::history_workload_condition in the view's WHERE clause, so that a query over the view
// shows the figures that baselines, change gates and change points use, and no other (it showed
// workloads measured while a process was stopped or without every worker).
TEST_F(Baselines, SeriesHistoryIsTheRunsTheGatesCallHistory) {
  const int64_t clean = run();
  const int64_t stopped = run_of(measured_while_stopped("worker 0 (pid 4242)"));
  const int64_t degraded = run_of(measured_without_every_worker());
  const int64_t failed = run("failed");
  ASSERT_TRUE(store_->add_baseline("main", clean).ok());
  ASSERT_TRUE(store_->add_baseline("main", stopped).ok());
  ASSERT_NE(degraded, failed);

  auto stmt = store_->database().prepare(
      "SELECT DISTINCT run_id FROM series_history WHERE metric = 'throughput.rps' ORDER BY run_id");
  ASSERT_TRUE(stmt.ok()) << stmt.message();
  std::vector<int64_t> in_view;
  while (true) {
    auto row = stmt->step();
    ASSERT_TRUE(row.ok()) << row.message();
    if (!*row) break;
    in_view.push_back(stmt->int64(0));
  }
  EXPECT_EQ(in_view, std::vector<int64_t>{clean});
  auto history = store_->baseline_history(query(testbed_id(clean)));
  ASSERT_TRUE(history.ok()) << history.message();
  ASSERT_EQ(history->size(), 1u);
  EXPECT_EQ((*history)[0].run_id, clean);

  auto view = store_->database().prepare(
      "SELECT sql FROM sqlite_master WHERE type = 'view' AND name = 'series_history'");
  ASSERT_TRUE(view.ok()) << view.message();
  auto row = view->step();
  ASSERT_TRUE(row.ok() && *row);
  EXPECT_NE(view->text(0).find("WHERE " + internal::history_workload_condition() + "\n"),
            std::string::npos)
      << view->text(0);
}

// A repetition measured after a worker was lost (on_worker_loss = "continue") had less load
// than the workload asks for: its run is never history, and never joins a baseline.
TEST_F(Baselines, ARunMeasuredWithoutEveryWorkerIsNeverHistoryNorABaseline) {
  const int64_t clean = run();
  ASSERT_TRUE(store_->add_baseline("main", clean).ok());
  const int64_t degraded = run_of(measured_without_every_worker());
  auto added = store_->add_baseline("main", degraded);
  ASSERT_FALSE(added.ok());
  EXPECT_EQ(added.message(), "baseline add: run " + std::to_string(degraded) +
                                 " has workload 'http_hello' flagged degraded (measured after a "
                                 "worker was lost); such a run is never a baseline");
  // Even in the baseline (written there by hand), it is not history.
  {
    auto db = sqlite::Database::open(dir_.file("b.db"));
    ASSERT_TRUE(db.ok()) << db.message();
    const std::string insert = "INSERT INTO baselines (name, run_id, added_at) VALUES ('main', " +
                               std::to_string(degraded) + ", 1)";
    ASSERT_TRUE((*db)->exec(insert.c_str()).ok());
  }
  auto history = store_->baseline_history(query(testbed_id(clean)));
  ASSERT_TRUE(history.ok()) << history.message();
  ASSERT_EQ(history->size(), 1u);
  EXPECT_EQ((*history)[0].run_id, clean);
}

// What is judged in memory (`orchestrator calibrate`) and what is read back from the store
// follow one rule of which runs are history: results::not_history_reason is empty exactly for
// the workloads the stored history (internal::history_workload_condition) keeps.
TEST_F(Baselines, TheInMemoryHistoryRuleIsTheStoredOne) {
  std::vector<results::WorkloadResult> shapes{
      testing::test_workload("http_hello", 3), measured_while_stopped("router (pid 4243)"),
      measured_without_every_worker(), testing::test_workload("http_hello", 3)};
  shapes[3].status = results::WorkloadStatus::kFailed;
  std::vector<int64_t> runs;
  for (const results::WorkloadResult& w : shapes) runs.push_back(run_of(w));
  auto history = store_->change_gate_history(series_key(testbed_id(runs[0])), runs.back() + 1, 10);
  ASSERT_TRUE(history.ok()) << history.message();
  std::vector<int64_t> stored;
  for (const auto& point : *history) stored.push_back(point.run_id);
  std::vector<int64_t> in_memory;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (results::not_history_reason(shapes[i]).empty()) in_memory.push_back(runs[i]);
  }
  EXPECT_EQ(in_memory, stored);
  EXPECT_EQ(in_memory, std::vector<int64_t>{runs[0]});
  EXPECT_EQ(results::not_history_reason(shapes[1]),
            "repetition 2 was measured while router (pid 4243) was stopped (flag "
            "process_stopped)");
  EXPECT_EQ(results::not_history_reason(shapes[2]),
            "repetition 3 was measured without every worker (flag degraded)");
  EXPECT_EQ(results::not_history_reason(shapes[3]), "it failed");
}

// The history chart (`report --history`, the web page /history) draws the series whose change
// points it marks: the runs that are history (docs/GATES.md, "Series and baselines"). A run
// measured while a process was stopped, or without every worker, is stored with status ok but
// is no point of it, as it is no point of `history changes`.
TEST_F(Baselines, TheChartedSeriesIsTheHistoryChangePointsRead) {
  const int64_t first = run();
  const int64_t stopped = run_of(measured_while_stopped("router (pid 4243)"));
  const int64_t degraded = run_of(measured_without_every_worker());
  const int64_t last = run();
  ASSERT_LT(stopped, degraded);

  auto series = store_->series_runs(query(testbed_id(first), 50));
  ASSERT_TRUE(series.ok()) << series.message();
  std::vector<int64_t> charted;
  for (const SeriesRun& r : *series) charted.push_back(r.run_id);
  EXPECT_EQ(charted, (std::vector<int64_t>{last, first}));

  auto history = store_->change_gate_history(series_key(testbed_id(first)), last + 1, 50);
  ASSERT_TRUE(history.ok()) << history.message();
  std::vector<int64_t> points;
  for (const auto& point : *history) points.push_back(point.run_id);
  EXPECT_EQ(points, (std::vector<int64_t>{first, last}));
}

// A past run's report charts the series as it was when the run was stored: the runs up to and
// including it, newest first, whatever was stored after it (`report RUN` gives what
// `run --html` wrote, docs/REPORTS.md).
TEST_F(Baselines, ThePastRunsHistoryStopsAtThatRun) {
  const int64_t first = run();
  const int64_t second = run();
  const int64_t third = run();
  HistoryQuery q = query(testbed_id(first), 50);
  q.through_run = second;
  auto series = store_->series_runs(q);
  ASSERT_TRUE(series.ok()) << series.message();
  std::vector<int64_t> charted;
  for (const SeriesRun& r : *series) charted.push_back(r.run_id);
  EXPECT_EQ(charted, (std::vector<int64_t>{second, first}));
  q.through_run = 0;  // every run
  series = store_->series_runs(q);
  ASSERT_TRUE(series.ok()) << series.message();
  ASSERT_EQ(series->size(), 3u);
  EXPECT_EQ(series->front().run_id, third);
  // Its change points are looked for in the same runs.
  ChangeSeriesFilter f;
  f.scenario = "quickstart";
  f.metric = "throughput.rps";
  f.through_run = second;
  auto changes = store_->change_points(f, Store::stored_change_options());
  ASSERT_TRUE(changes.ok()) << changes.message();
  ASSERT_EQ(changes->size(), 1u);
  EXPECT_EQ((*changes)[0].points, 2);
  f.through_run = 0;
  changes = store_->change_points(f, Store::stored_change_options());
  ASSERT_TRUE(changes.ok()) << changes.message();
  ASSERT_EQ(changes->size(), 1u);
  EXPECT_EQ((*changes)[0].points, 3);
}

// A charted run's value is its figure, the one its report prints and its change points analyse:
// for latency the merged histogram's percentile, not the median of its repetitions' (one slow
// repetition moves the first, not the second).
TEST_F(Baselines, AChartedRunsValueIsItsFigureAsChangePointsReadIt) {
  results::WorkloadResult slow_once = testing::test_workload("http_hello", 3);
  for (int64_t v = 1; v <= 100; ++v) slow_once.repetitions[2].latency.record(50'000'000);
  slow_once.latency.reset();
  for (const auto& rep : slow_once.repetitions) slow_once.latency.add(rep.latency);
  const int64_t r = run_of(slow_once);
  HistoryQuery q = query(testbed_id(r));
  q.metric = "latency.p99";
  auto series = store_->series_runs(q);
  ASSERT_TRUE(series.ok()) << series.message();
  ASSERT_EQ(series->size(), 1u);
  const double figure = *results::metric_figure(slow_once, "latency.p99");
  EXPECT_EQ((*series)[0].figure, figure);
  std::vector<double> values = (*series)[0].values;
  std::sort(values.begin(), values.end());
  EXPECT_NE(values[1], figure) << "the median of the repetitions would tell nothing apart";

  ChangeSeriesKey key{"quickstart", testbed_id(r), "http_hello",
                      "default",    q.params_hash, "latency.p99"};
  auto points = store_->change_gate_history(key, r + 1, 50);
  ASSERT_TRUE(points.ok()) << points.message();
  ASSERT_EQ(points->size(), 1u);
  EXPECT_EQ((*points)[0].value, (*series)[0].figure);
}

TEST_F(Baselines, HistoryIsCompleteWhenTheSeriesHasManyRunsOutsideTheBaseline) {
  std::vector<int64_t> members;
  ASSERT_NO_FATAL_FAILURE(add_baseline_runs(3, members));
  for (int i = 0; i < 30; ++i) run();
  auto history = store_->baseline_history(query(testbed_id(members[0])));
  ASSERT_TRUE(history.ok()) << history.message();
  ASSERT_EQ(history->size(), 3u);
  EXPECT_EQ((*history)[0].run_id, members[2]);
  EXPECT_EQ((*history)[2].run_id, members[0]);
}

TEST_F(Baselines, HistoryIsCompleteWhenTheBaselineHoldsManyOtherRuns) {
  std::vector<int64_t> members;
  ASSERT_NO_FATAL_FAILURE(add_baseline_runs(3, members));
  for (int i = 0; i < 30; ++i) {
    const int64_t other = run("ok", "quickstart", testing::test_testbed("elsewhere"));
    ASSERT_TRUE(store_->add_baseline("main", other).ok());
  }
  auto history = store_->baseline_history(query(testbed_id(members[0])));
  ASSERT_TRUE(history.ok()) << history.message();
  ASSERT_EQ(history->size(), 3u);
  EXPECT_EQ((*history)[0].run_id, members[2]);
  EXPECT_EQ((*history)[2].run_id, members[0]);
}

TEST_F(Baselines, HistoryLeavesOutRunsWhoseMetricWasNotCollected) {
  results::WorkloadResult no_router = testing::test_workload("http_hello", 2);
  for (auto& rep : no_router.repetitions) rep.router = {};
  const int64_t old_run = run();
  const int64_t new_run = run_of(no_router);
  ASSERT_TRUE(store_->add_baseline("main", old_run).ok());
  ASSERT_TRUE(store_->add_baseline("main", new_run).ok());
  HistoryQuery q = query(testbed_id(old_run));
  q.metric = "router.rss_bytes";
  auto history = store_->baseline_history(q);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 1u);
  EXPECT_EQ((*history)[0].run_id, old_run);
}

// A workload that keeps its connections (and sessions) sets them up before its first window:
// its later repetitions set up none and have no figure of their own. That is nothing to
// measure, not a figure missing: the run is history of connect.p99 and session_setup.p99, its
// values the repetitions that set some up, as results::metric_values gives them live.
TEST_F(Baselines, AWorkloadThatKeepsItsConnectionsIsHistoryOfTheirSetup) {
  results::WorkloadResult kept = testing::test_workload("http_hello", 3);
  for (size_t i = 0; i < kept.repetitions.size(); ++i) {
    results::Repetition& rep = kept.repetitions[i];
    rep.setup.emplace();
    rep.session_setup.emplace();
    if (i > 0) continue;  // set up before the first window, kept after it
    rep.setup->connections = 2;
    rep.setup->connect.record(40'000);
    rep.setup->connect.record(60'000);
    rep.setup->ttfb.record(150'000);
    rep.setup->ttfb.record(170'000);
    rep.session_setup->record(300'000);
    rep.session_setup->record(320'000);
  }
  const int64_t r = run_of(kept);
  ASSERT_TRUE(store_->add_baseline("main", r).ok());
  for (const char* metric : {"connect.p99", "ttfb.p99", "session_setup.p99"}) {
    HistoryQuery q = query(testbed_id(r));
    q.metric = metric;
    auto history = store_->baseline_history(q);
    ASSERT_TRUE(history.ok()) << history.message();
    ASSERT_EQ(history->size(), 1u) << metric;
    EXPECT_EQ((*history)[0].run_id, r);
    const auto live = results::metric_values(kept, metric);
    ASSERT_TRUE(live.has_value()) << metric;
    ASSERT_EQ(live->size(), 1u) << metric;
    EXPECT_EQ((*history)[0].values, *live) << metric;
    EXPECT_EQ((*history)[0].figure, *results::metric_figure(kept, metric)) << metric;
    auto stored = store_->run_metric_values(r, "http_hello", "default", metric);
    ASSERT_TRUE(stored.ok()) << stored.message();
    ASSERT_TRUE(stored->has_value()) << metric << " read back as not collected";
    EXPECT_EQ(**stored, *live) << metric;
  }
  // Cleartext: no repetition has a TLS handshake, so that figure is not collected at all.
  HistoryQuery tls = query(testbed_id(r));
  tls.metric = "tls_handshake.p99";
  auto none = store_->baseline_history(tls);
  ASSERT_TRUE(none.ok()) << none.message();
  EXPECT_TRUE(none->empty());
  auto stored = store_->run_metric_values(r, "http_hello", "default", "tls_handshake.p99");
  ASSERT_TRUE(stored.ok()) << stored.message();
  EXPECT_FALSE(stored->has_value());
}

// The bundled worker's WAMP over TLS reports its TLS handshakes in `setup` (connections 0, no
// connect, TLS or first-byte histogram), cleartext WAMP no setup at all: a WAMP session is timed
// only as a whole. connect.p99, tls_handshake.p99 and ttfb.p99 are not measured for either, and
// each stored repetition reads so (no value, and not "nothing to measure", which is a workload's
// whose workers time connections and set none up in that window), as in memory.
TEST_F(Baselines, AWampWorkloadsConnectionFiguresReadNotMeasuredOverTlsOrNot) {
  results::WorkloadResult over_tls = testing::test_workload("wamp_tls", 2);
  results::WorkloadResult clear = testing::test_workload("wamp_clear", 2);
  for (results::WorkloadResult* w : {&over_tls, &clear}) {
    w->spec.protocol = scenario::Protocol::kWampRpc;
    for (results::Repetition& rep : w->repetitions) {
      rep.session_setup.emplace();
      if (rep.index == 0) rep.session_setup->record(300'000);
    }
  }
  over_tls.spec.tls.enabled = true;
  for (results::Repetition& rep : over_tls.repetitions) rep.setup.emplace();
  over_tls.repetitions[0].setup->handshakes = 2;
  run_of(over_tls);
  run_of(clear);

  auto db = sqlite::Database::open(dir_.file("b.db"));
  ASSERT_TRUE(db.ok()) << db.message();
  for (const char* metric : {"connect.p99", "tls_handshake.p99", "ttfb.p99"}) {
    EXPECT_FALSE(results::metric_values(over_tls, metric)) << metric;
    EXPECT_FALSE(results::metric_values(clear, metric)) << metric;
    const auto sql = metric_sql(metric);
    ASSERT_TRUE(sql);
    auto rows = (*db)->prepare("SELECT (" + std::string(sql->value) + ") IS NULL, COALESCE((" +
                               std::string(sql->nothing_to_measure) +
                               "), 0) FROM repetitions ORDER BY workload_id, idx");
    ASSERT_TRUE(rows.ok()) << rows.message();
    size_t read = 0;
    while (true) {
      auto row = rows->step();
      ASSERT_TRUE(row.ok()) << row.message();
      if (!*row) break;
      ++read;
      EXPECT_EQ(rows->int64(0), 1) << metric << ", row " << read;
      EXPECT_EQ(rows->int64(1), 0) << metric << ", row " << read << " reads nothing to measure";
    }
    EXPECT_EQ(read, 4u) << metric;
  }
}

// A paired gate pairs two variants' windows by repetition (docs/GATES.md, "Paired gates"):
// read back for `orchestrator gate RUN`, each value keeps the repetition it is of, as in memory.
TEST_F(Baselines, StoredValuesKeepTheRepetitionEachIsOf) {
  results::WorkloadResult w = testing::test_workload("http_hello", 4);
  w.repetitions[1].successes = 0;  // nothing to measure: no latency, skipped
  w.repetitions[1].latency.reset();
  const int64_t r = run_of(w);
  auto stored = store_->run_metric_values_by_repetition(r, "http_hello", "default", "latency.p99");
  ASSERT_TRUE(stored.ok()) << stored.message();
  ASSERT_TRUE(stored->has_value());
  const auto live = results::metric_values_by_repetition(w, "latency.p99");
  ASSERT_TRUE(live.has_value());
  ASSERT_EQ(live->size(), 3u);
  EXPECT_EQ(**stored, *live);
  EXPECT_EQ((**stored)[1].repetition, 2u);
}

TEST_F(Baselines, HistoryOfAnUnknownBaselineIsEmptyAndAnUnknownMetricIsAnError) {
  const int64_t r = run();
  ASSERT_TRUE(store_->add_baseline("main", r).ok());
  HistoryQuery q = query(testbed_id(r));
  q.baseline = "nope";
  auto empty = store_->baseline_history(q);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
  q.baseline = "main";
  q.metric = "throughput.qps";
  EXPECT_FALSE(store_->baseline_history(q).ok());
}

}  // namespace
}  // namespace benchgate::store
