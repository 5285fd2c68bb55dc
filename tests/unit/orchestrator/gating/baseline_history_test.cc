// Which stored runs a run's relative gates are judged against (orchestrator/gating/run_gates.h):
// the baseline runs stored before it, whenever the gates are evaluated.
#include <gtest/gtest.h>

#include "orchestrator/gating/other_definition.h"
#include "orchestrator/gating/run_gates.h"
#include "orchestrator/store/definition_differences.h"
#include "orchestrator/store/store.h"
#include "tests/unit/orchestrator/store/store_test_support.h"

namespace benchgate::gating {
namespace {

results::WorkloadResult measured(uint64_t successes) {
  results::WorkloadResult w;
  w.spec.name = "hello";
  w.spec.connections = 4;
  for (uint32_t i = 0; i < 3; ++i) {
    results::Repetition rep;
    rep.index = i;
    rep.duration_ns = 1'000'000'000;
    rep.in_window = true;
    rep.successes = successes + i;
    rep.window_successes = rep.successes;
    rep.operations = rep.successes;
    rep.latency.record_n(100'000, static_cast<int64_t>(rep.successes));
    w.latency.add(rep.latency);
    w.repetitions.push_back(rep);
  }
  return w;
}

class BaselineHistory : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = store::Store::open(folder_.file("runs.db"));
    ASSERT_TRUE(opened.ok()) << opened.message();
    store_ = std::move(*opened);
  }
  void TearDown() override { store_.reset(); }

  // A finished ok run of the workload.
  int64_t run(const results::WorkloadResult& w) {
    store::RunInfo info;
    info.scenario = "quickstart";
    info.scenario_text = "name = \"quickstart\"\n";
    info.testbed.host = "bench-host-1";
    auto id = store_->begin_run(info);
    EXPECT_TRUE(id.ok()) << id.message();
    EXPECT_TRUE(store_->store_workload(*id, w).ok());
    EXPECT_TRUE(store_->finish_run(*id, "ok", 0).ok());
    return *id;
  }

  store::testing::TempDir folder_;  // declared first: removed after the store is closed
  std::unique_ptr<store::Store> store_;
};

// `orchestrator gate RUN` judges an old run again: the baseline runs measured after it (here
// one far faster, promoted later) were not its history, and would fail it for a slowdown
// that came after it.
TEST_F(BaselineHistory, ARunJudgedAgainSeesOnlyTheBaselineRunsStoredBeforeIt) {
  const int64_t before = run(measured(10'000));
  const results::WorkloadResult judged_result = measured(10'000);
  const int64_t judged = run(judged_result);
  const int64_t after = run(measured(20'000));
  ASSERT_TRUE(store_->add_baseline("main", before).ok());
  ASSERT_TRUE(store_->add_baseline("main", after).ok());
  auto detail = store_->get_run(judged);
  ASSERT_TRUE(detail.ok()) << detail.message();

  scenario::Gate gate;
  gate.workload = "hello";
  gate.metric = "throughput.rps";
  gate.baseline = "main";
  gate.max_regression = 0.05;
  GateContext context{store_.get(), judged, detail->run.testbed_id, "quickstart", ""};
  auto evaluated = evaluate_gates({gate}, {values_of(judged_result)}, context);

  ASSERT_EQ(evaluated.size(), 1u);
  EXPECT_EQ(evaluated[0].outcome.baseline_run_ids, std::vector<int64_t>{before});
  EXPECT_NE(evaluated[0].outcome.verdict, gates::Verdict::kFail)
      << evaluated[0].outcome.explanation;
}

// A run judged again whose baseline holds runs stored only after it (`baseline list` shows
// them) has no baseline: the explanation says "before run N" and names the newer runs, where
// "has no run with throughput.rps" read as false beside `baseline list`.
TEST_F(BaselineHistory, ANoBaselineOfARunJudgedAgainSaysBeforeItAndNamesTheNewerRuns) {
  const results::WorkloadResult judged_result = measured(10'000);
  const int64_t judged = run(judged_result);
  const int64_t after = run(measured(10'000));
  const int64_t later = run(measured(10'000));
  ASSERT_TRUE(store_->add_baseline("main", after).ok());
  ASSERT_TRUE(store_->add_baseline("main", later).ok());
  auto detail = store_->get_run(judged);
  ASSERT_TRUE(detail.ok()) << detail.message();

  scenario::Gate gate;
  gate.workload = "hello";
  gate.metric = "throughput.rps";
  gate.baseline = "main";
  gate.max_regression = 0.05;
  GateContext context{store_.get(), judged, detail->run.testbed_id, "quickstart", ""};
  auto evaluated = evaluate_gates({gate}, {values_of(judged_result)}, context);
  ASSERT_EQ(evaluated.size(), 1u);
  EXPECT_EQ(evaluated[0].outcome.verdict, gates::Verdict::kNoBaseline);
  const std::string judged_run = "run " + std::to_string(judged);
  EXPECT_EQ(evaluated[0].outcome.explanation,
            "baseline 'main' has no run with throughput.rps stored before " + judged_run +
                " for this workload on this testbed; only runs stored before the judged run "
                "count: its runs of this scenario stored after " +
                judged_run + " are " + std::to_string(after) + " and " + std::to_string(later));

  // Judged as the newest run (`run`), nothing is newer: the explanation is as it was.
  GateContext newest{store_.get(), 0, detail->run.testbed_id, "quickstart", ""};
  EXPECT_TRUE(newer_baseline_runs("main", newest).empty());
  EXPECT_EQ(before_judged_run_explanation("baseline 'main' has no run with throughput.rps for "
                                          "this workload on this testbed",
                                          "main", "throughput.rps", 1, {}),
            "baseline 'main' has no run with throughput.rps for this workload on this testbed");
}

// The same for the calibrated noise: a calibration stored after the run (here one that makes
// the series far noisier) would change the verdict, the p-value and what the gate could detect
// of a run already judged. The calibration stored before it keeps being the one it used.
TEST_F(BaselineHistory, ARunJudgedAgainKeepsTheCalibrationStoredBeforeIt) {
  const int64_t before = run(measured(10'000));
  ASSERT_TRUE(store_->add_baseline("main", before).ok());
  auto detail = store_->get_run(before);
  ASSERT_TRUE(detail.ok()) << detail.message();
  const results::WorkloadResult judged_result = measured(9'000);
  const WorkloadValues judged_values = values_of(judged_result);
  store::CalibrationRecord calibration;
  calibration.series = {detail->run.testbed_id,    "quickstart",    "hello", "default",
                        judged_values.params_hash, "throughput.rps"};
  calibration.runs = 10;
  calibration.run_ids = {before};
  calibration.mean = 10'000;
  calibration.cv = 0.01;
  calibration.log_sd = 0.01;
  calibration.detectable_1 = 0.04;
  calibration.detectable_5 = 0.02;
  ASSERT_TRUE(store_->store_calibrations({calibration}).ok());
  const int64_t judged = run(judged_result);

  scenario::Gate gate;
  gate.workload = "hello";
  gate.metric = "throughput.rps";
  gate.baseline = "main";
  gate.max_regression = 0.05;
  GateContext context{store_.get(), judged, detail->run.testbed_id, "quickstart", ""};
  auto first = evaluate_gates({gate}, {judged_values}, context);
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(first[0].outcome.method, gates::Method::kCalibratedT) << first[0].outcome.explanation;
  ASSERT_TRUE(first[0].outcome.calibration.has_value());
  EXPECT_EQ(first[0].outcome.calibration->runs, 10);
  EXPECT_EQ(first[0].outcome.verdict, gates::Verdict::kFail) << first[0].outcome.explanation;

  calibration.runs = 3;
  calibration.log_sd = 0.5;
  ASSERT_TRUE(store_->store_calibrations({calibration}).ok());
  auto again = evaluate_gates({gate}, {judged_values}, context);
  ASSERT_EQ(again.size(), 1u);
  const gates::GateOutcome& o = again[0].outcome;
  ASSERT_TRUE(o.calibration.has_value());
  EXPECT_EQ(o.calibration->runs, 10);
  EXPECT_EQ(o.calibration->log_sd, 0.01);
  EXPECT_EQ(o.verdict, first[0].outcome.verdict) << o.explanation;
  EXPECT_EQ(o.p_value, first[0].outcome.p_value);
  EXPECT_EQ(o.detectable, first[0].outcome.detectable);
  EXPECT_EQ(o.explanation, first[0].outcome.explanation);

  // A run begun after the new calibration is judged with it.
  const int64_t later = run(judged_result);
  GateContext later_context{store_.get(), later, detail->run.testbed_id, "quickstart", ""};
  auto fresh = evaluate_gates({gate}, {judged_values}, later_context);
  ASSERT_EQ(fresh.size(), 1u);
  ASSERT_TRUE(fresh[0].outcome.calibration.has_value());
  EXPECT_EQ(fresh[0].outcome.calibration->runs, 3);
}

// A workload whose definition changed (here its duration) is another series, so the baseline
// has no run of it: the no_baseline verdict says that the baseline holds the workload under
// another definition and which parameter changed, so that the user re-baselines, rather than
// that the baseline has no run at all.
TEST_F(BaselineHistory, ABaselineOfAnotherDefinitionIsNamedWithWhatChanged) {
  const int64_t promoted = run(measured(10'000));
  ASSERT_TRUE(store_->add_baseline("main", promoted).ok());
  results::WorkloadResult longer = measured(10'000);
  for (auto& rep : longer.repetitions) rep.duration_ns = 1'500'000'000;
  longer.spec.duration_ns = 1'500'000'000;
  const int64_t judged = run(longer);
  auto detail = store_->get_run(judged);
  ASSERT_TRUE(detail.ok()) << detail.message();

  scenario::Gate gate;
  gate.workload = "hello";
  gate.metric = "throughput.rps";
  gate.baseline = "main";
  gate.max_regression = 0.05;
  GateContext context{store_.get(), judged, detail->run.testbed_id, "quickstart", ""};
  auto evaluated = evaluate_gates({gate}, {values_of(longer)}, context);
  ASSERT_EQ(evaluated.size(), 1u);
  EXPECT_EQ(evaluated[0].outcome.verdict, gates::Verdict::kNoBaseline);
  const std::string& why = evaluated[0].outcome.explanation;
  EXPECT_NE(why.find("the latest: run " + std::to_string(promoted) +
                     ") measured another definition, which differs in duration_ns (run " +
                     std::to_string(promoted) + ": " +
                     std::to_string(measured(0).spec.duration_ns) + ", now: 1500000000)"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("promote a run of this one to 'main'"), std::string::npos) << why;

  // Once the baseline's newest run of the workload is of this definition, a gate without
  // baseline runs lacks them for another reason (the metric), and no definition is named.
  const int64_t same = run(longer);
  ASSERT_TRUE(store_->add_baseline("main", same).ok());
  GateContext later{store_.get(), 0, detail->run.testbed_id, "quickstart", ""};
  EXPECT_FALSE(other_definition("main", values_of(longer), later).has_value());
  EXPECT_TRUE(other_definition("main", values_of(longer), context).has_value());
}

TEST(DefinitionDifferences, NestedKeysAreNamedByPathAndAMissingOneAsNone) {
  EXPECT_EQ(store::definition_differences(
                R"({"a":1,"http":{"target":"/x","method":"GET"},"z":true})",
                R"({"a":1,"http":{"target":"/y","method":"GET"},"b":2})", "run 3", "now"),
            (std::vector<std::string>{"b (run 3: none, now: 2)",
                                      "http.target (run 3: \"/x\", now: \"/y\")",
                                      "z (run 3: true, now: none)"}));
  EXPECT_TRUE(store::definition_differences("not json", "{}", "run 3", "now").empty());
}

}  // namespace
}  // namespace benchgate::gating
