// A relative gate whose baseline holds the workload only on other testbeds than the judged run's
// (docs/GATES.md, "Series and baselines"): no_baseline names both testbeds, what tells them
// apart, and what to do, as it names a changed definition, instead of the plain "has no run".
#include <gtest/gtest.h>

#include "orchestrator/gating/other_definition.h"
#include "orchestrator/gating/run_gates.h"
#include "orchestrator/store/store.h"
#include "tests/unit/orchestrator/store/store_test_support.h"

namespace benchgate::gating {
namespace {

results::WorkloadResult measured_with(uint32_t connections) {
  results::WorkloadResult w;
  w.spec.name = "hello";
  w.spec.connections = connections;
  for (uint32_t i = 0; i < 3; ++i) {
    results::Repetition rep;
    rep.index = i;
    rep.duration_ns = 1'000'000'000;
    rep.in_window = true;
    rep.successes = 10'000 + i;
    rep.window_successes = rep.successes;
    rep.operations = rep.successes;
    rep.latency.record_n(100'000, static_cast<int64_t>(rep.successes));
    w.latency.add(rep.latency);
    w.repetitions.push_back(rep);
  }
  return w;
}

class BaselineElsewhere : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = store::Store::open(folder_.file("runs.db"));
    ASSERT_TRUE(opened.ok()) << opened.message();
    store_ = std::move(*opened);
  }
  void TearDown() override { store_.reset(); }

  // A finished ok run of the workload on the testbed of `host` and `kernel`.
  int64_t run(const results::WorkloadResult& w, const std::string& host,
              const std::string& kernel = "6.1.0", const std::string& scenario = "quickstart") {
    store::RunInfo info;
    info.scenario = scenario;
    info.scenario_text = "name = \"" + scenario + "\"\n";
    info.testbed.host = host;
    info.testbed.kernel = kernel;
    auto id = store_->begin_run(info);
    EXPECT_TRUE(id.ok()) << id.message();
    EXPECT_TRUE(store_->store_workload(*id, w).ok());
    EXPECT_TRUE(store_->finish_run(*id, "ok", 0).ok());
    return *id;
  }

  // The gate's verdict on `judged` (a run of `result`) against baseline "main".
  gates::GateOutcome judge(int64_t judged, const results::WorkloadResult& result) {
    auto detail = store_->get_run(judged);
    EXPECT_TRUE(detail.ok()) << detail.message();
    scenario::Gate gate;
    gate.workload = "hello";
    gate.metric = "throughput.rps";
    gate.baseline = "main";
    gate.max_regression = 0.05;
    GateContext context{store_.get(), judged, detail->run.testbed_id, "quickstart", ""};
    auto evaluated = evaluate_gates({gate}, {values_of(result)}, context);
    EXPECT_EQ(evaluated.size(), 1u);
    return evaluated.at(0).outcome;
  }

  store::testing::TempDir folder_;  // declared first: removed after the store is closed
  std::unique_ptr<store::Store> store_;
};

TEST_F(BaselineElsewhere, ABaselineOnlyOnAnotherHostNamesBothTestbedsAndWhatToDo) {
  const int64_t elsewhere = run(measured_with(4), "ci-a");
  ASSERT_TRUE(store_->add_baseline("main", elsewhere).ok());
  const results::WorkloadResult result = measured_with(4);
  const int64_t judged = run(result, "ci-b");
  const gates::GateOutcome o = judge(judged, result);
  EXPECT_EQ(o.verdict, gates::Verdict::kNoBaseline);
  EXPECT_EQ(o.explanation,
            "baseline 'main' has no run with throughput.rps for this workload on this testbed "
            "(testbed 2): its newest runs of the workload are on other testbeds (the latest: run "
            "1, on testbed 1), which differs in host (run 1: ci-a, now: ci-b); a series belongs "
            "to one testbed, so promote a run measured on this one to 'main' (--promote main), "
            "or, where only the host name tells the machines apart (CI runners), give them one "
            "BENCHGATE_TESTBED_HOST");
}

TEST_F(BaselineElsewhere, AnotherMachineIsNotToldToShareAHostName) {
  const int64_t elsewhere = run(measured_with(4), "ci-a", "6.1.0");
  ASSERT_TRUE(store_->add_baseline("main", elsewhere).ok());
  const results::WorkloadResult result = measured_with(4);
  const int64_t judged = run(result, "ci-b", "6.5.0");
  const gates::GateOutcome o = judge(judged, result);
  EXPECT_EQ(o.verdict, gates::Verdict::kNoBaseline);
  EXPECT_NE(o.explanation.find("which differs in host (run 1: ci-a, now: ci-b), kernel (run 1: "
                               "6.1.0, now: 6.5.0); a series belongs to one testbed, so promote "
                               "a run measured on this one to 'main' (--promote main)"),
            std::string::npos)
      << o.explanation;
  EXPECT_EQ(o.explanation.find("BENCHGATE_TESTBED_HOST"), std::string::npos) << o.explanation;
}

// A run of the workload on this testbed, under another definition: that is what the verdict
// says, not that the baseline is elsewhere.
TEST_F(BaselineElsewhere, ARunOnThisTestbedOfAnotherDefinitionIsNamedInstead) {
  const int64_t here = run(measured_with(8), "ci-b");
  const int64_t elsewhere = run(measured_with(4), "ci-a");
  ASSERT_TRUE(store_->add_baseline("main", here).ok());
  ASSERT_TRUE(store_->add_baseline("main", elsewhere).ok());
  const results::WorkloadResult result = measured_with(4);
  const gates::GateOutcome o = judge(run(result, "ci-b"), result);
  EXPECT_EQ(o.verdict, gates::Verdict::kNoBaseline);
  EXPECT_NE(o.explanation.find("measured another definition"), std::string::npos) << o.explanation;
  EXPECT_EQ(o.explanation.find("other testbeds"), std::string::npos) << o.explanation;
}

// other_definition and other_testbed read the baseline's runs in one walk with one limit: the
// 10 newest of this scenario. A run of another definition on this testbed that is the 11th
// newest is seen by neither (no other definition; every run read is on another testbed), the
// 10th newest by both (another definition; not only on other testbeds).
TEST_F(BaselineElsewhere, BothExplanationsReadTheSameTenNewestRuns) {
  for (int elsewhere_runs : {10, 9}) {
    SCOPED_TRACE(std::to_string(elsewhere_runs) + " newer runs on another testbed");
    store_.reset();  // a store of its own for each case
    auto opened =
        store::Store::open(folder_.file("limit" + std::to_string(elsewhere_runs) + ".db"));
    ASSERT_TRUE(opened.ok()) << opened.message();
    store_ = std::move(*opened);
    const int64_t here = run(measured_with(8), "ci-b");
    ASSERT_TRUE(store_->add_baseline("main", here).ok());
    int64_t newest_elsewhere = 0;
    for (int i = 0; i < elsewhere_runs; ++i) {
      newest_elsewhere = run(measured_with(4), "ci-a");
      ASSERT_TRUE(store_->add_baseline("main", newest_elsewhere).ok());
    }
    const results::WorkloadResult result = measured_with(4);
    const int64_t judged = run(result, "ci-b");
    auto detail = store_->get_run(judged);
    ASSERT_TRUE(detail.ok()) << detail.message();
    const GateContext context{store_.get(), judged, detail->run.testbed_id, "quickstart", ""};
    const WorkloadValues values = values_of(result);
    const std::optional<gates::OtherDefinition> definition =
        other_definition("main", values, context);
    const std::optional<gates::OtherTestbed> testbed = other_testbed("main", values, context);
    if (elsewhere_runs == 10) {
      EXPECT_FALSE(definition.has_value()) << "run " << here << " is the 11th newest";
      ASSERT_TRUE(testbed.has_value());
      EXPECT_EQ(testbed->run_id, newest_elsewhere);
    } else {
      ASSERT_TRUE(definition.has_value()) << "run " << here << " is the 10th newest";
      EXPECT_EQ(definition->run_id, here);
      EXPECT_FALSE(testbed.has_value());
    }
  }
}

// `gate RUN --baseline NAME` with a baseline of other scenarios only: the verdict names the
// scenarios it holds and what to do, where it said only that the baseline had no run of the
// metric for this workload on this testbed, as of a baseline not yet seeded.
TEST_F(BaselineElsewhere, ABaselineOfOtherScenariosOnlyNamesThem) {
  const results::WorkloadResult result = measured_with(4);
  ASSERT_TRUE(store_->add_baseline("main", run(result, "ci-b", "6.1.0", "search")).ok());
  ASSERT_TRUE(store_->add_baseline("main", run(result, "ci-b", "6.1.0", "checkout")).ok());
  const gates::GateOutcome o = judge(run(result, "ci-b"), result);
  EXPECT_EQ(o.verdict, gates::Verdict::kNoBaseline);
  EXPECT_EQ(o.explanation,
            "baseline 'main' has no run of scenario 'quickstart': its runs are of scenarios "
            "'checkout', 'search'; a baseline's runs judge only their own scenario's gates, so "
            "promote a run of 'quickstart' to 'main' (--promote main)");
  EXPECT_EQ(other_scenarios_explanation("main", "a", {"b", "c", "d", "e", "f", "g", "h"}),
            "baseline 'main' has no run of scenario 'a': its runs are of scenarios 'b', 'c', "
            "'d', 'e', 'f' and 2 more; a baseline's runs judge only their own scenario's gates, "
            "so promote a run of 'a' to 'main' (--promote main)");
}

// A baseline with a run of this scenario, if only one stored after the judged run, is of this
// scenario: the verdict stays that it has no run of the series, before the judged run, and
// names the later one.
TEST_F(BaselineElsewhere, ABaselineWithALaterRunOfThisScenarioIsNotCalledAnotherScenarios) {
  const results::WorkloadResult result = measured_with(4);
  ASSERT_TRUE(store_->add_baseline("main", run(result, "ci-b", "6.1.0", "search")).ok());
  const int64_t judged = run(result, "ci-b");
  const int64_t later = run(result, "ci-b");
  ASSERT_TRUE(store_->add_baseline("main", later).ok());
  const gates::GateOutcome o = judge(judged, result);
  EXPECT_EQ(o.verdict, gates::Verdict::kNoBaseline);
  const std::string judged_run = "run " + std::to_string(judged);
  EXPECT_EQ(o.explanation, "baseline 'main' has no run with throughput.rps stored before " +
                               judged_run +
                               " for this workload on this testbed; only runs stored before the "
                               "judged run count: its run of this scenario stored after " +
                               judged_run + " is " + std::to_string(later));
}

}  // namespace
}  // namespace benchgate::gating
