// Which runs of one `orchestrator run` join the --promote baseline (orchestrator/app/run_one.h):
// each only when it exited 0 and the whole invocation exits 0.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>

#include "orchestrator/app/interrupt.h"
#include "orchestrator/app/run_one.h"
#include "orchestrator/store/store.h"
#include "store_test_support.h"

namespace benchgate::app {
namespace {

report::ScenarioReport finished(const std::string& scenario, int64_t run_id, int exit_code) {
  report::ScenarioReport r;
  r.result.scenario = scenario;
  r.run_id = run_id;
  r.exit_code = exit_code;
  r.status = "ok";
  return r;
}

class Promotion : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = store::Store::open(dir_.file("runs.db"));
    ASSERT_TRUE(opened.ok()) << opened.message();
    store_ = std::move(*opened);
    out_ = std::tmpfile();
    ASSERT_NE(out_, nullptr);
  }
  void TearDown() override {
    set_run_cancelled(false);
    if (out_ != nullptr) std::fclose(out_);
  }

  // `status` other than "ok": a run the store refuses to promote (add_baseline).
  int64_t stored_run(const std::string& status = "ok") {
    auto id = store_->begin_run(store::testing::test_run_info());
    EXPECT_TRUE(id.ok()) << id.message();
    EXPECT_TRUE(store_->finish_run(*id, status, 0).ok());
    return *id;
  }
  size_t baseline_size() {
    auto listed = store_->list_baselines("main");
    EXPECT_TRUE(listed.ok()) << listed.message();
    return listed ? listed->size() : 0;
  }
  std::string printed() {
    std::fflush(out_);
    std::rewind(out_);
    std::string text;
    for (int c; (c = std::fgetc(out_)) != EOF;) text.push_back(static_cast<char>(c));
    return text;
  }

  store::testing::TempDir dir_;
  std::unique_ptr<store::Store> store_;
  std::FILE* out_ = nullptr;
};

// Scenario a's run exited 0, scenario b's gate failed: the invocation exits 1, a pipeline fails
// on it, and a's run does not join the baseline either; the line says why.
TEST_F(Promotion, ARunThatExited0IsNotPromotedWhenAnotherScenarioOfTheInvocationDidNot) {
  report::TerminalReport terminal(out_, out_);
  std::vector<report::ScenarioReport> reports = {finished("a", stored_run(), 0),
                                                 finished("b", stored_run(), 1)};
  const std::string held_back = promotion_held_back(reports, 1);
  EXPECT_NE(held_back.find("scenario b (run " + std::to_string(reports[1].run_id) + ") exited 1"),
            std::string::npos)
      << held_back;
  for (auto& r : reports) promote_run(r, {"", "main", false}, *store_, terminal, held_back);
  EXPECT_EQ(baseline_size(), 0u);
  EXPECT_EQ(reports[0].exit_code, 0);
  EXPECT_NE(printed().find("run " + std::to_string(reports[0].run_id) +
                           " not promoted to 'main': scenario b"),
            std::string::npos)
      << printed();
}

// An interrupt (here a service's cancel) after scenario a's run completed: the invocation
// exits 3 and what it completed before the interrupt is not promoted.
TEST_F(Promotion, NoRunIsPromotedAfterAnInterrupt) {
  report::TerminalReport terminal(out_, out_);
  std::vector<report::ScenarioReport> reports = {finished("a", stored_run(), 0)};
  set_run_cancelled(true);
  const std::string held_back = promotion_held_back(reports, 3);
  EXPECT_NE(held_back.find("cancelled through the service"), std::string::npos) << held_back;
  promote_run(reports[0], {"", "main", false}, *store_, terminal, held_back);
  EXPECT_EQ(baseline_size(), 0u);
}

// The invocation exits 0: every run is promoted, as before.
TEST_F(Promotion, EveryRunIsPromotedWhenTheInvocationExits0) {
  report::TerminalReport terminal(out_, out_);
  std::vector<report::ScenarioReport> reports = {finished("a", stored_run(), 0),
                                                 finished("b", stored_run(), 0)};
  const std::string held_back = promotion_held_back(reports, 0);
  EXPECT_EQ(held_back, "");
  for (auto& r : reports) promote_run(r, {"", "main", false}, *store_, terminal, held_back);
  EXPECT_EQ(baseline_size(), 2u);
}

// promote_runs, as run_locally calls it: scenario b exited 1, so the invocation exits 1 and a's
// run, which exited 0, is held back too.
TEST_F(Promotion, PromoteRunsPromotesNoneWhenAnotherRunOfTheInvocationDidNotExit0) {
  report::TerminalReport terminal(out_, out_);
  std::vector<report::ScenarioReport> reports = {finished("a", stored_run(), 0),
                                                 finished("b", stored_run(), 1)};
  EXPECT_FALSE(promote_runs(reports, {"", "main", false}, *store_, terminal, 1));
  EXPECT_EQ(baseline_size(), 0u);
  EXPECT_EQ(reports[0].exit_code, 0);
}

// The store refuses a's promotion (its stored run is not `ok`): a exits 3, so the invocation
// does, and b's run, which exited 0, is not promoted after it; the line says why.
TEST_F(Promotion, NoRunIsPromotedAfterTheStoreRefusedOne) {
  report::TerminalReport terminal(out_, out_);
  std::vector<report::ScenarioReport> reports = {finished("a", stored_run("aborted"), 0),
                                                 finished("b", stored_run(), 0)};
  EXPECT_TRUE(promote_runs(reports, {"", "main", false}, *store_, terminal, 0));
  EXPECT_EQ(reports[0].exit_code, 3);
  EXPECT_EQ(reports[1].exit_code, 0);
  EXPECT_EQ(baseline_size(), 0u);
  EXPECT_NE(printed().find("run " + std::to_string(reports[1].run_id) + " not promoted to " +
                           "'main': run " + std::to_string(reports[0].run_id) +
                           " could not be promoted, so the invocation exits 3"),
            std::string::npos)
      << printed();
}

// The store refuses the promotion of b, the later scenario: the invocation exits 3, so a's run,
// which exited 0 and was checked first, is not in the baseline either (one transaction for
// every promotion of the invocation); the line says why.
TEST_F(Promotion, NoRunIsPromotedWhenTheStoreRefusesALaterOne) {
  report::TerminalReport terminal(out_, out_);
  std::vector<report::ScenarioReport> reports = {finished("a", stored_run(), 0),
                                                 finished("b", stored_run("aborted"), 0)};
  EXPECT_TRUE(promote_runs(reports, {"", "main", false}, *store_, terminal, 0));
  EXPECT_EQ(baseline_size(), 0u);
  EXPECT_EQ(reports[0].exit_code, 0);
  EXPECT_EQ(reports[1].exit_code, 3);
  auto b = store_->get_run(reports[1].run_id);
  ASSERT_TRUE(b.ok()) << b.message();
  EXPECT_EQ(b->run.exit_code.value_or(-1), 3);
  EXPECT_NE(printed().find("error: cannot promote run " + std::to_string(reports[1].run_id)),
            std::string::npos)
      << printed();
  EXPECT_NE(printed().find("run " + std::to_string(reports[0].run_id) + " not promoted to " +
                           "'main': run " + std::to_string(reports[1].run_id) +
                           " could not be promoted, so the invocation exits 3"),
            std::string::npos)
      << printed();
  EXPECT_EQ(printed().find("promoted run "), std::string::npos) << printed();
}

}  // namespace
}  // namespace benchgate::app
