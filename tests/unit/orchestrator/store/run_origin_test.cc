// Whose runs a series holds (docs/GATES.md, "Series and baselines"): a run a client submitted to
// `orchestrator serve` is history only of the clients' runs, the operator's runs (local,
// scheduled) only of the operator's, for change gates, change points and the charted series;
// a baseline judges with its runs whoever submitted them.
#include <gtest/gtest.h>

#include <limits>

#include "orchestrator/store/sqlite.h"
#include "orchestrator/store/store.h"
#include "orchestrator/store/store_internal.h"
#include "orchestrator/store/workload_params.h"
#include "store_test_support.h"

namespace benchgate::store {
namespace {

using testing::TempDir;

class RunOrigin : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Store::open(dir_.file("o.db"));
    ASSERT_TRUE(s.ok()) << s.message();
    store_ = std::move(*s);
  }

  // A finished ok run of the test workload started by `origin`.
  int64_t run(const std::string& origin) {
    RunInfo info = testing::test_run_info();
    info.origin = origin;
    auto id = store_->begin_run(info);
    EXPECT_TRUE(id.ok()) << id.message();
    EXPECT_TRUE(store_->store_workload(*id, testing::test_workload("http_hello", 3)).ok());
    EXPECT_TRUE(store_->finish_run(*id, "ok", 0).ok());
    return *id;
  }

  int64_t testbed() {
    auto detail = store_->get_run(1);
    EXPECT_TRUE(detail.ok());
    return detail->run.testbed_id;
  }

  ChangeSeriesKey key(std::string_view submitted_by) {
    return {"quickstart",
            testbed(),
            "http_hello",
            "default",
            workload_params_hash(testing::test_workload_spec("http_hello")),
            "throughput.rps",
            std::string(submitted_by)};
  }

  // The runs a change gate of a run of `submitted_by` judges against, oldest first.
  std::vector<int64_t> change_gate_history(std::string_view submitted_by) {
    auto points =
        store_->change_gate_history(key(submitted_by), std::numeric_limits<int64_t>::max(), 50);
    EXPECT_TRUE(points.ok()) << points.message();
    std::vector<int64_t> ids;
    for (const auto& p : *points) ids.push_back(p.run_id);
    return ids;
  }

  // The series a report of a run of `submitted_by` charts, newest first.
  std::vector<int64_t> series_runs(std::string_view submitted_by) {
    const ChangeSeriesKey k = key(submitted_by);
    HistoryQuery q;
    q.testbed_id = k.testbed_id;
    q.scenario = k.scenario;
    q.workload = k.workload;
    q.params_hash = k.params_hash;
    q.metric = k.metric;
    q.k = 50;
    q.submitted_by = std::string(submitted_by);
    auto runs = store_->series_runs(q);
    EXPECT_TRUE(runs.ok()) << runs.message();
    std::vector<int64_t> ids;
    for (const auto& r : *runs) ids.push_back(r.run_id);
    return ids;
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(RunOrigin, AClientRunIsHistoryOnlyOfClientRunsAndAnOperatorRunOnlyOfTheOperators) {
  const int64_t local = run("local");
  const int64_t client = run("client");
  const int64_t scheduled = run("scheduled");
  const int64_t client_again = run("client");
  const int64_t local_again = run("local");

  EXPECT_EQ(change_gate_history(kOperatorRuns),
            (std::vector<int64_t>{local, scheduled, local_again}));
  EXPECT_EQ(change_gate_history(kClientRuns), (std::vector<int64_t>{client, client_again}));
  EXPECT_EQ(series_runs(kOperatorRuns), (std::vector<int64_t>{local_again, scheduled, local}));
  EXPECT_EQ(series_runs(kClientRuns), (std::vector<int64_t>{client_again, client}));
}

// The stored analysis keeps one series per side; the listing gives both, the operator's first,
// or one side when asked, with the run count of that side only.
TEST_F(RunOrigin, ChangePointsAreAnalysedPerSide) {
  for (const char* origin : {"local", "client", "scheduled", "client", "client"}) {
    const int64_t id = run(origin);
    ASSERT_TRUE(store_->update_change_points(id).ok());
  }
  ChangeSeriesFilter filter;
  filter.metric = "throughput.rps";
  auto both = store_->change_points(filter, Store::stored_change_options());
  ASSERT_TRUE(both.ok()) << both.message();
  ASSERT_EQ(both->size(), 2u);
  EXPECT_EQ((*both)[0].key.submitted_by, kOperatorRuns);
  EXPECT_EQ((*both)[0].points, 2);
  EXPECT_TRUE((*both)[0].from_store);
  EXPECT_EQ((*both)[1].key.submitted_by, kClientRuns);
  EXPECT_EQ((*both)[1].points, 3);
  EXPECT_TRUE((*both)[1].from_store);

  filter.submitted_by = kClientRuns;
  auto clients = store_->change_points(filter, Store::stored_change_options());
  ASSERT_TRUE(clients.ok()) << clients.message();
  ASSERT_EQ(clients->size(), 1u);
  EXPECT_EQ((*clients)[0].key.submitted_by, kClientRuns);
  EXPECT_EQ((*clients)[0].points, 3);
  auto stored = store_->database().prepare(
      "SELECT submitted_by, points FROM change_series WHERE metric = 'throughput.rps' "
      "ORDER BY submitted_by");
  ASSERT_TRUE(stored.ok()) << stored.message();
  std::vector<std::pair<std::string, int64_t>> rows;
  while (true) {
    auto row = stored->step();
    ASSERT_TRUE(row.ok()) << row.message();
    if (!*row) break;
    rows.emplace_back(stored->text(0), stored->int64(1));
  }
  EXPECT_EQ(rows, (std::vector<std::pair<std::string, int64_t>>{{"client", 3}, {"operator", 2}}));
}

// Relative gates read a baseline: only the operator adds a client's run to one (serve
// --allow-promote), so its runs judge whoever submitted them.
TEST_F(RunOrigin, ABaselineJudgesWithItsRunsWhoeverSubmittedThem) {
  const int64_t local = run("local");
  const int64_t client = run("client");
  ASSERT_TRUE(store_->add_baseline("main", local).ok());
  ASSERT_TRUE(store_->add_baseline("main", client).ok());
  const ChangeSeriesKey k = key(kOperatorRuns);
  HistoryQuery q;
  q.baseline = "main";
  q.testbed_id = k.testbed_id;
  q.scenario = k.scenario;
  q.workload = k.workload;
  q.params_hash = k.params_hash;
  q.metric = k.metric;
  auto history = store_->baseline_history(q);
  ASSERT_TRUE(history.ok()) << history.message();
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[0].run_id, client);
  EXPECT_EQ((*history)[1].run_id, local);
}

// The view shows each row's side with the text the store's queries use.
TEST_F(RunOrigin, TheSeriesHistoryViewSaysWhoseSeriesARowIsOf) {
  const int64_t scheduled = run("scheduled");
  const int64_t client = run("client");
  auto stmt = store_->database().prepare(
      "SELECT run_id, origin, submitted_by FROM series_history WHERE metric = 'throughput.rps' "
      "ORDER BY run_id");
  ASSERT_TRUE(stmt.ok()) << stmt.message();
  std::vector<std::tuple<int64_t, std::string, std::string>> rows;
  while (true) {
    auto row = stmt->step();
    ASSERT_TRUE(row.ok()) << row.message();
    if (!*row) break;
    rows.emplace_back(stmt->int64(0), stmt->text(1), stmt->text(2));
  }
  EXPECT_EQ(rows, (std::vector<std::tuple<int64_t, std::string, std::string>>{
                      {scheduled, "scheduled", "operator"}, {client, "client", "client"}}));
  auto view = store_->database().prepare(
      "SELECT sql FROM sqlite_master WHERE type = 'view' AND name = 'series_history'");
  ASSERT_TRUE(view.ok()) << view.message();
  auto row = view->step();
  ASSERT_TRUE(row.ok() && *row);
  EXPECT_NE(view->text(0).find(internal::series_side_sql() + " AS submitted_by"), std::string::npos)
      << view->text(0);
}

}  // namespace
}  // namespace benchgate::store
