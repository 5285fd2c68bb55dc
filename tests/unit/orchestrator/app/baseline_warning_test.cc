// `run --baseline NAME` without `--promote NAME` warns before the load when NAME has no run of
// the scenario and other baselines have (a misspelt name judged every relative gate
// no_baseline and exited 0, silently), naming them with a did-you-mean; it stays quiet where
// the name may be meant to be new. The engine runs through fakes, the store is a real file.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "engine_fakes.h"
#include "orchestrator/app/run_one.h"
#include "orchestrator/store/store.h"
#include "store_test_support.h"

namespace benchgate::app {
namespace {

using engine::testing::FakeFactories;
using engine::testing::FakePool;
using engine::testing::FakeSut;

// One workload with a relative gate on baseline `main`.
scenario::Scenario gated_scenario() {
  scenario::Workload w;
  w.name = "w1";
  w.warmup_ns = 0;
  w.duration_ns = 10'000'000;
  w.repetitions = 1;
  w.workers = 1;
  w.connections = 1;
  scenario::Gate gate;
  gate.workload = "w1";
  gate.metric = "throughput.rps";
  gate.baseline = "main";
  gate.max_regression = 0.05;
  scenario::Scenario s;
  s.name = "fakes";
  s.workloads = {w};
  s.gates = {gate};
  return s;
}

class BaselineWarning : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = store::Store::open(dir_.file("runs.db"));
    ASSERT_TRUE(opened.ok()) << opened.message();
    store_ = std::move(*opened);
    std::filesystem::create_directories(dir_.file("logs"));
    options_.factories = &factories_;
    options_.log_dir = dir_.file("logs");
  }

  // A finished run of `scenario` added to baseline `name`.
  void promoted(const std::string& name, const std::string& scenario) {
    auto id = store_->begin_run(store::testing::test_run_info(scenario));
    ASSERT_TRUE(id.ok()) << id.message();
    ASSERT_TRUE(store_->finish_run(*id, "ok", 0).ok());
    ASSERT_TRUE(store_->add_baseline(name, *id).ok());
  }

  // Everything run_one wrote (the terminal's lines and its live lines), and its exit code.
  std::string run(const scenario::Scenario& s, const RunPolicy& policy, int* exit_code = nullptr) {
    // One more of each for every run: the factories hand them out in order.
    factories_.suts.push_back(FakeSut::Script{});
    factories_.pools.push_back(FakePool::Script{});
    std::FILE* out = std::tmpfile();
    EXPECT_NE(out, nullptr);
    if (out == nullptr) return "";
    std::string text;
    {
      report::TerminalReport terminal(out, out);
      auto report =
          run_one(s, policy, options_, *store_, store::testing::test_run_info(), terminal, nullptr);
      if (exit_code != nullptr) *exit_code = report.exit_code;
    }
    std::rewind(out);
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, out)) > 0;) text.append(buffer, n);
    std::fclose(out);
    return text;
  }

  store::testing::TempDir dir_;
  std::unique_ptr<store::Store> store_;
  FakeFactories factories_;
  engine::EngineOptions options_;
};

TEST_F(BaselineWarning, AMisspeltBaselineIsSaidBeforeTheLoadWithTheBaselinesOfTheScenario) {
  promoted("main", "fakes");
  promoted("v2", "fakes");
  promoted("release", "other");  // of another scenario: not named
  int exit_code = -1;
  const std::string out = run(gated_scenario(), RunPolicy{"mian", "", false}, &exit_code);
  const std::string warning =
      "warning: --baseline 'mian' has no run of scenario 'fakes' (did you mean 'main'?); "
      "baselines with runs of it: main, v2; every relative gate will be no_baseline, a failure "
      "only with --strict (--promote mian seeds a new baseline)\n";
  EXPECT_TRUE(out.starts_with(warning)) << out;
  EXPECT_EQ(exit_code, 0) << "the exit code stays the one docs/GATES.md gives no_baseline";
}

TEST_F(BaselineWarning, UnderStrictItSaysTheRunFails) {
  promoted("main", "fakes");
  int exit_code = -1;
  const std::string out = run(gated_scenario(), RunPolicy{"mian", "", true}, &exit_code);
  EXPECT_NE(out.find("every relative gate will be no_baseline, which fails the run under "
                     "--strict (--promote mian seeds a new baseline)\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(exit_code, 1);
}

TEST_F(BaselineWarning, NothingIsSaidWhereTheNameMayBeMeantToBeNew) {
  // No baseline of the scenario at all: nothing to suggest.
  promoted("main", "other");
  EXPECT_EQ(run(gated_scenario(), RunPolicy{"mian", "", false}).find("warning:"),
            std::string::npos);
  promoted("main", "fakes");
  // --promote seeds it.
  EXPECT_EQ(run(gated_scenario(), RunPolicy{"mian", "mian", false}).find("warning:"),
            std::string::npos);
  // A baseline with runs of the scenario.
  EXPECT_EQ(run(gated_scenario(), RunPolicy{"main", "", false}).find("warning:"),
            std::string::npos);
  // No relative gate: --baseline changes nothing.
  scenario::Scenario absolute = gated_scenario();
  absolute.gates[0].baseline.clear();
  absolute.gates[0].max_regression.reset();
  absolute.gates[0].min = 1;
  EXPECT_EQ(run(absolute, RunPolicy{"mian", "", false}).find("warning:"), std::string::npos);
}

}  // namespace
}  // namespace benchgate::app
