// `orchestrator gate RUN` judges a stored run whose scenario has a gate the loader refuses now
// (a rule added since the run): that gate is an error naming the loader's reason, the others
// are judged as before, and the exit code is the one docs/GATES.md gives those verdicts.
#include "orchestrator/cli/gate_command.h"

#include <gtest/gtest.h>

#include <string>

#include "orchestrator/store/store.h"
#include "store_test_support.h"

namespace benchgate::cli {
namespace {

using store::testing::TempDir;

// A gate that loaded when the run was stored and is refused now: handshakes.rate of a workload
// that keeps its connections (refused at load since the rule was added), at line 11.
std::string scenario_text(const std::string& refused_severity) {
  return "name = \"quickstart\"\n"
         "[[workloads]]\n"
         "name = \"http_hello\"\n"
         "[[gates]]\n"
         "workload = \"http_hello\"\n"
         "metric = \"throughput.rps\"\n"
         "min = 1\n"
         "[[gates]]\n"
         "workload = \"http_hello\"\n"
         "severity = \"" +
         refused_severity +
         "\"\n"
         "metric = \"handshakes.rate\"\n"
         "min = 1\n";
}

class GateCommand : public ::testing::Test {
 protected:
  // A run of the test workload that finished ok, stored with `text` as its scenario.
  int64_t stored_run(const std::string& text) {
    auto store = store::Store::open(path_);
    EXPECT_TRUE(store.ok()) << store.message();
    if (!store.ok()) return 0;
    store::RunInfo info = store::testing::test_run_info("quickstart");
    info.scenario_text = text;
    auto id = (*store)->begin_run(info);
    EXPECT_TRUE(id.ok()) << id.message();
    if (!id.ok()) return 0;
    EXPECT_TRUE((*store)->store_workload(*id, store::testing::test_workload("http_hello")).ok());
    EXPECT_TRUE((*store)->finish_run(*id, "ok", 0).ok());
    return *id;
  }

  std::vector<store::GateRecord> verdicts(int64_t run) {
    auto store = store::Store::open(path_);
    EXPECT_TRUE(store.ok()) << store.message();
    if (!store.ok()) return {};
    auto records = (*store)->gate_results(run);
    EXPECT_TRUE(records.ok()) << records.message();
    return records.ok() ? *records : std::vector<store::GateRecord>{};
  }

  int gate(int64_t run) {
    GateFlags flags;
    flags.run_id = run;
    flags.db_path = path_;
    return gate_command(flags);
  }

  TempDir dir_;
  const std::string path_ = dir_.file("gates.db");
};

TEST_F(GateCommand, AGateTheLoaderRefusesNowIsAnErrorNamingWhyAndTheOthersAreJudged) {
  const int64_t run = stored_run(scenario_text("critical"));
  EXPECT_EQ(gate(run), 3) << "a critical gate with verdict error exits 3";
  const std::vector<store::GateRecord> records = verdicts(run);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].metric, "throughput.rps");
  EXPECT_EQ(records[0].verdict, "pass") << records[0].explanation;
  EXPECT_EQ(records[1].gate_index, 1);
  EXPECT_EQ(records[1].workload, "http_hello");
  EXPECT_EQ(records[1].metric, "handshakes.rate");
  EXPECT_EQ(records[1].verdict, "error");
  EXPECT_EQ(records[1].severity, "critical");
  EXPECT_EQ(records[1].explanation,
            "the scenario loader now refuses this gate, so it is not judged: line 11: gate "
            "metric 'handshakes.rate' can never be measured for workload 'http_hello': the "
            "workload keeps its connections; it needs new_connection_per_request = true");
}

TEST_F(GateCommand, AWarningGateTheLoaderRefusesNowDoesNotFailTheRun) {
  const int64_t run = stored_run(scenario_text("warning"));
  EXPECT_EQ(gate(run), 0);
  const std::vector<store::GateRecord> records = verdicts(run);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].verdict, "pass") << records[0].explanation;
  EXPECT_EQ(records[1].verdict, "error");
  EXPECT_EQ(records[1].severity, "warning");
}

TEST_F(GateCommand, AStoredScenarioThatFailsToLoadOutsideItsGatesIsStillRefused) {
  const int64_t run = stored_run(
      "name = \"quickstart\"\n[[workloads]]\nname = \"http_hello\"\n"
      "conections = 2\n");
  EXPECT_EQ(gate(run), 2);
  EXPECT_TRUE(verdicts(run).empty());
}

}  // namespace
}  // namespace benchgate::cli
