// A relative gate whose baseline holds the workload only on other testbeds than the judged run's
// (docs/GATES.md, "Series and baselines"): no_baseline names both testbeds, what tells them
// apart, and what to do, as it names a changed definition, instead of the plain "has no run".
#include <gtest/gtest.h>

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
              const std::string& kernel = "6.1.0") {
    store::RunInfo info;
    info.scenario = "quickstart";
    info.scenario_text = "name = \"quickstart\"\n";
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

}  // namespace
}  // namespace benchgate::gating
