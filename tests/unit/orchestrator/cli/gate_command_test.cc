// `orchestrator gate RUN` judges a stored run whose scenario has a gate the loader refuses now
// (a rule added since the run): that gate is an error naming the loader's reason, the others
// are judged as before, and the exit code is the one docs/GATES.md gives those verdicts.
#include "orchestrator/cli/gate_command.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
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

  // A run of a workload whose workers ran wrk (worker_impls adapter): no histogram, each
  // repetition the tool's own figures (p99 150us and 180us, max 400us and 900us), stored with
  // `text` as its scenario.
  int64_t stored_tool_run(const std::string& text) {
    auto store = store::Store::open(path_);
    EXPECT_TRUE(store.ok()) << store.message();
    if (!store.ok()) return 0;
    store::RunInfo info = store::testing::test_run_info("quickstart");
    info.scenario_text = text;
    auto id = (*store)->begin_run(info);
    EXPECT_TRUE(id.ok()) << id.message();
    if (!id.ok()) return 0;
    results::WorkloadResult w;
    w.spec = store::testing::test_workload_spec("hello_wrk");
    w.spec.worker = "wrk";
    for (uint32_t i = 0; i < 2; ++i) {
      results::Repetition rep;
      rep.index = i;
      rep.duration_ns = 1'000'000'000;
      rep.in_window = true;
      rep.operations = rep.successes = rep.window_successes = 1000;
      results::ToolLatency t;
      t.tool = "wrk 4.2.0";
      t.mean_ns = 100'000;
      t.max_ns = i == 0 ? 400'000 : 900'000;
      t.percentiles_ns[results::percentile_key(99)] = i == 0 ? 150'000 : 180'000;
      rep.tool_latency = t;
      w.repetitions.push_back(rep);
    }
    EXPECT_TRUE((*store)->store_workload(*id, w).ok());
    EXPECT_TRUE((*store)->finish_run(*id, "ok", 0).ok());
    return *id;
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

// A tool's figures read back from the store are judged as the live run judged them: a
// percentile the median of the repetitions' own, the max the max of theirs, each explained as
// what it is (docs/GATES.md, "What a gate judges"), and a gate on a percentile the tool never
// prints, which the loader now refuses, is an error quoting the loader.
TEST_F(GateCommand, AToolsStoredFiguresAreJudgedAsTheMedianOfItsRepetitions) {
  const int64_t run = stored_tool_run(
      "name = \"quickstart\"\n"
      "[worker_impls.wrk]\n"
      "adapter = \"wrk\"\n"
      "[[workloads]]\n"
      "name = \"hello_wrk\"\n"
      "worker = \"wrk\"\n"
      "[[gates]]\n"
      "workload = \"hello_wrk\"\n"
      "metric = \"latency.p99\"\n"
      "max = \"1s\"\n"
      "[[gates]]\n"
      "workload = \"hello_wrk\"\n"
      "metric = \"latency.max\"\n"
      "max = \"500us\"\n"
      "[[gates]]\n"
      "workload = \"hello_wrk\"\n"
      "metric = \"latency.p95\"\n"
      "max = \"1s\"\n");
  EXPECT_EQ(gate(run), 3) << "a critical gate with verdict error exits 3";
  const std::vector<store::GateRecord> records = verdicts(run);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].metric, "latency.p99");
  EXPECT_EQ(records[0].verdict, "pass");
  ASSERT_TRUE(records[0].observed.has_value());
  EXPECT_DOUBLE_EQ(*records[0].observed, 165e-6);
  EXPECT_EQ(records[0].explanation, "165us (median of 2 repetitions) within max 1s");
  EXPECT_EQ(records[1].metric, "latency.max");
  EXPECT_EQ(records[1].verdict, "fail");
  ASSERT_TRUE(records[1].observed.has_value());
  EXPECT_DOUBLE_EQ(*records[1].observed, 900e-6);
  EXPECT_EQ(records[1].explanation, "900us (max of 2 repetitions) above max 500us");
  EXPECT_EQ(records[2].metric, "latency.p95");
  EXPECT_EQ(records[2].verdict, "error");
  EXPECT_EQ(records[2].explanation,
            "the scenario loader now refuses this gate, so it is not judged: line 17: gate metric "
            "'latency.p95' can never be measured for workload 'hello_wrk': it is run by worker "
            "'wrk', the wrk adapter, which prints latency at p50, p75, p90, p99 and p99.9 only "
            "(and its mean and max); latency.p95 is measured by the bundled worker and a "
            "[worker_impls] program");
}

// A failed run's reports say the reason the store holds, as `report RUN` and the run's own
// reports do (it said "run N is failed").
TEST_F(GateCommand, AFailedRunsReportsSayItsStoredReason) {
  int64_t run = 0;
  {
    auto store = store::Store::open(path_);
    ASSERT_TRUE(store.ok()) << store.message();
    store::RunInfo info = store::testing::test_run_info("quickstart");
    info.scenario_text = "name = \"quickstart\"\n[[workloads]]\nname = \"http_hello\"\n";
    auto id = (*store)->begin_run(info);
    ASSERT_TRUE(id.ok()) << id.message();
    run = *id;
    ASSERT_TRUE((*store)->finish_run(run, "failed", 3, "workload http_hello failed: boom").ok());
  }
  GateFlags flags;
  flags.run_id = run;
  flags.db_path = path_;
  flags.json_path = dir_.file("gate.json");
  EXPECT_EQ(gate_command(flags), 3);
  std::ifstream in(flags.json_path);
  const nlohmann::json json = nlohmann::json::parse(in);
  EXPECT_EQ(json.dump().find("is failed"), std::string::npos) << json.dump();
  EXPECT_NE(json.dump().find("workload http_hello failed: boom"), std::string::npos) << json.dump();
}

// A run still measured is refused before anything is judged or stored (it was judged, its
// workloads "did not run", and stored as its first evaluation), with the usage exit code.
TEST_F(GateCommand, ARunStillRunningIsRefusedAndNothingIsStored) {
  auto store = store::Store::open(path_);  // open while `gate` runs: the run's owner is alive
  ASSERT_TRUE(store.ok()) << store.message();
  store::RunInfo info = store::testing::test_run_info("quickstart");
  info.scenario_text = scenario_text("critical");
  auto run = (*store)->begin_run(info);
  ASSERT_TRUE(run.ok()) << run.message();
  ::testing::internal::CaptureStderr();
  const int code = gate(*run);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, 2);
  EXPECT_EQ(
      err,
      "error: run " + std::to_string(*run) +
          " is still running; `gate` judges a run once it ended (see `orchestrator runs show " +
          std::to_string(*run) + "`); nothing was judged or stored\n");
  EXPECT_TRUE(verdicts(*run).empty());
  auto stored = (*store)->get_run(*run);
  ASSERT_TRUE(stored.ok()) << stored.message();
  EXPECT_EQ(stored->run.status, "running");
}

// A run whose orchestrator is gone is no run going on: `gate` judges it (abandoned, exit 3)
// and says why it exits 3.
TEST_F(GateCommand, AnAbandonedRunIsJudgedAndSaysWhyItExits3) {
  int64_t run = 0;
  {
    auto store = store::Store::open(path_);
    ASSERT_TRUE(store.ok()) << store.message();
    store::RunInfo info = store::testing::test_run_info("quickstart");
    info.scenario_text = scenario_text("critical");
    auto id = (*store)->begin_run(info);
    ASSERT_TRUE(id.ok()) << id.message();
    run = *id;
  }  // closed: the next open finds its owner gone
  ::testing::internal::CaptureStderr();
  const int code = gate(run);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, 3);
  EXPECT_NE(err.find("error: run " + std::to_string(run) +
                     " is stored abandoned: its orchestrator was killed; `gate` exits 3 for a "
                     "run that did not end ok, whatever its verdicts\n"),
            std::string::npos)
      << err;
  EXPECT_EQ(verdicts(run).size(), 2u);
}

// A failed run exits 3 whatever its verdicts: one line says so, with its stored status and
// reason (it exited 3 below a table of verdicts none of which is a failure or an error).
TEST_F(GateCommand, ARunThatDidNotEndOkSaysWhyGateExits3) {
  int64_t run = 0;
  {
    auto store = store::Store::open(path_);
    ASSERT_TRUE(store.ok()) << store.message();
    store::RunInfo info = store::testing::test_run_info("quickstart");
    info.scenario_text =
        "name = \"quickstart\"\n[[workloads]]\nname = \"http_hello\"\n[[gates]]\n"
        "workload = \"http_hello\"\nmetric = \"throughput.rps\"\nmin = 1\n";
    auto id = (*store)->begin_run(info);
    ASSERT_TRUE(id.ok()) << id.message();
    run = *id;
    ASSERT_TRUE((*store)->store_workload(run, store::testing::test_workload("http_hello")).ok());
    ASSERT_TRUE((*store)->finish_run(run, "failed", 3, "cannot store results: disk full").ok());
  }
  ::testing::internal::CaptureStderr();
  const int code = gate(run);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, 3);
  EXPECT_EQ(err, "error: run " + std::to_string(run) +
                     " is stored failed: cannot store results: disk full; `gate` exits 3 for a "
                     "run that did not end ok, whatever its verdicts\n");
  const std::vector<store::GateRecord> records = verdicts(run);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].verdict, "pass") << records[0].explanation;
}

}  // namespace
}  // namespace benchgate::cli
