// `orchestrator serve` runs one job at a time, so a submitted scenario may not hold the run
// slot longer than the operator's --max-run-seconds (orchestrator/serve/run_bound.h): a
// workload's timeout or a startup_timeout past it, or timeouts that add up past it over the
// runs the scenario makes, are refused at submission with file:line:column, key and value.
// Nor may its routers and workers have more processes running at once than --max-processes
// (processes_at_once): before it, one submitted scenario could start a router for each of
// thousands of compared [routers.NAME] tables, or 1,024 workers for each worker implementation.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "orchestrator/scenario/scenario_loader.h"
#include "orchestrator/serve/admission.h"
#include "orchestrator/serve/run_bound.h"
#include "orchestrator/serve/run_executor.h"

namespace benchgate::serve {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

AdmissionPolicy at_most(int64_t seconds) {
  AdmissionPolicy policy;
  policy.max_run_ns = seconds * kSecond;
  return policy;
}

// A workload named `name` whose own timeout is `timeout` ("10s").
std::string timed_workload(const std::string& name, const std::string& timeout,
                           int repetitions = 2) {
  return "\n[[workloads]]\nname = \"" + name +
         "\"\nprotocol = \"http1\"\ntarget = \"/\"\nwarmup = \"0s\"\nduration = \"1s\"\n"
         "repetitions = " +
         std::to_string(repetitions) + "\ntimeout = \"" + timeout + "\"\n";
}

Admission submit_timed(const std::string& text, const AdmissionPolicy& policy) {
  return admit_content("client.toml", "name = \"s\"\n" + text, policy);
}

void expect_too_long(const Admission& a, const std::string& line) {
  EXPECT_FALSE(a.scenario);
  EXPECT_EQ(a.refusal, Refusal::kInvalid) << a.message;
  EXPECT_NE(a.message.find(line), std::string::npos) << a.message;
}

TEST(RunBound, AWorkloadTimeoutLongerThanTheServiceAllowsIsRefused) {
  expect_too_long(submit_timed(timed_workload("w", "2h"), at_most(3600)),
                  "client.toml:3:1: error: workload 'w' timeout = 7200s is longer than this "
                  "service's --max-run-seconds (3600 s)\n");
  EXPECT_TRUE(submit_timed(timed_workload("w", "2h"), at_most(7200)).scenario);
}

TEST(RunBound, AStartupTimeoutLongerThanTheServiceAllowsIsRefused) {
  const std::string router = "[router]\nimpl = \"builtin\"\nstartup_timeout = \"1000h\"\n";
  const Admission a = submit_timed(router + timed_workload("w", "10s"), at_most(3600));
  // The one line that says why (the table's place: the model keeps the key's only for
  // the keys that reach something).
  EXPECT_EQ(a.message,
            "client.toml:2:1: error: [router] startup_timeout = 3600000s is longer than this "
            "service's --max-run-seconds (3600 s)\n");
  expect_too_long(a, "[router] startup_timeout");
}

TEST(RunBound, TimeoutsThatAddUpPastTheLimitAreRefusedAtTheWorkloadThatPassesIt) {
  const std::string two = timed_workload("a", "40m") + timed_workload("b", "40m");
  const Admission a = submit_timed(two, at_most(3600));
  expect_too_long(a, "workload 'b' makes the run's bound 4800s");
  EXPECT_NE(a.message.find("longer than this service's --max-run-seconds (3600 s)"),
            std::string::npos)
      << a.message;
  EXPECT_EQ(a.message.find("workload 'a'"), std::string::npos) << a.message;
  EXPECT_TRUE(submit_timed(two, at_most(4800)).scenario);
}

TEST(RunBound, AComparisonRunsEveryWindowOfEveryVariantUnderTheTimeout) {
  const std::string compared =
      "[routers.x]\nimpl = \"builtin\"\n[routers.y]\nimpl = \"builtin\"\n"
      "startup_timeout = \"5s\"\n[compare]\nrouters = [\"x\", \"y\"]\n";
  const std::string text = compared + timed_workload("w", "10s", 4);
  const Admission a = submit_timed(text, at_most(3600));
  ASSERT_TRUE(a.scenario) << a.message;
  // 2 variants * 4 repetitions * 10 s, and y's 5 s startup.
  EXPECT_EQ(run_bound_ns(*a.scenario), 85 * kSecond);
  expect_too_long(submit_timed(text, at_most(84)), "workload 'w' makes the run's bound 85s");
  EXPECT_TRUE(submit_timed(text, at_most(85)).scenario);
}

TEST(RunBound, StartupsThatAddUpPastTheLimitAreRefusedAtTheStartupThatPassesIt) {
  const std::string compared =
      "[routers.x]\nimpl = \"builtin\"\nstartup_timeout = \"40m\"\n[routers.y]\n"
      "impl = \"builtin\"\nstartup_timeout = \"40m\"\n[compare]\nrouters = [\"x\", \"y\"]\n";
  const Admission a = submit_timed(compared + timed_workload("w", "10s"), at_most(3600));
  EXPECT_EQ(a.message,
            "client.toml:5:1: error: [routers.y] startup_timeout makes the startup_timeouts set "
            "add up to 4800s, longer than this service's --max-run-seconds (3600 s); shorter "
            "startups fit\n");
  // The workloads play no part: without any, the startups are still too long.
  const Admission fits = submit_timed(compared + timed_workload("w", "10s"), at_most(7200));
  ASSERT_TRUE(fits.scenario) << fits.message;
  scenario::Scenario without_workloads = *fits.scenario;
  without_workloads.workloads.clear();
  EXPECT_NE(longer_than_allowed(without_workloads, 3600 * kSecond)
                .find("[routers.y] startup_timeout makes the startup_timeouts set add up to 4800s"),
            std::string::npos);
}

TEST(RunBound, AWorkloadAConfirmingGateJudgesCountsTwice) {
  const std::string gate =
      "\n[[gates]]\nworkload = \"w\"\nmetric = \"latency.p99\"\nkind = \"change\"\n"
      "confirm = 1\n";
  const Admission a = submit_timed(timed_workload("w", "10s") + gate, at_most(3600));
  ASSERT_TRUE(a.scenario) << a.message;
  EXPECT_EQ(run_bound_ns(*a.scenario), 20 * kSecond);
}

AdmissionPolicy at_most_processes(size_t processes) {
  AdmissionPolicy policy;
  policy.allowed_commands = {"/bin/true", "wrk"};
  // As the service resolves `--allow-command wrk` as it starts (resolve_adapter_programs): the
  // adapter's tool is checked against that, not against the list.
  policy.adapter_programs = {{"wrk", {"/usr/bin/wrk", true}}};
  policy.max_processes = processes;
  return policy;
}

// A workload of `workers` workers (and as many connections) run by `worker`.
std::string workload_of(const std::string& name, int workers,
                        const std::string& worker = "builtin") {
  return "\n[[workloads]]\nname = \"" + name +
         "\"\nprotocol = \"http1\"\ntarget = \"/\"\nwarmup = \"0s\"\nduration = \"1s\"\n"
         "repetitions = 2\ntimeout = \"10s\"\nworkers = " +
         std::to_string(workers) + "\nconnections = " + std::to_string(workers) +
         (worker == "builtin" ? std::string() : "\nworker = \"" + worker + "\"") + "\n";
}

void expect_too_many(const Admission& a, const std::string& message) {
  EXPECT_FALSE(a.scenario);
  EXPECT_EQ(a.refusal, Refusal::kInvalid) << a.message;
  EXPECT_EQ(a.message, message);
}

// Every compared router is started before the first workload and runs to the end, beside the
// workers they all share (engine/comparison_runner.cc): 3 routers and the 4 workers of the
// largest workload.
TEST(ProcessBound, ComparedRoutersAndTheWorkersTheyShareAllRunAtOnce) {
  const std::string compared =
      "[routers.a]\nimpl = \"builtin\"\n[routers.b]\nimpl = \"builtin\"\n[routers.c]\n"
      "impl = \"builtin\"\n[compare]\nrouters = [\"a\", \"b\", \"c\"]\n";
  const std::string text = compared + workload_of("four", 4) + workload_of("two", 2);
  const Admission fits = submit_timed(text, at_most_processes(7));
  ASSERT_TRUE(fits.scenario) << fits.message;
  EXPECT_EQ(processes_at_once(*fits.scenario, false), 7u);
  // The service's --workers-at runs the bundled workers elsewhere: only the routers are here.
  EXPECT_EQ(processes_at_once(*fits.scenario, true), 3u);
  expect_too_many(submit_timed(text, at_most_processes(6)),
                  "client.toml:11:1: error: workload 'four' workers = 4 makes the run have 7 "
                  "processes at once (3 routers, 4 workers), more than this service's "
                  "--max-processes (6); fewer workers or variants fit; nothing was started\n");
}

// Thousands of [routers.NAME] tables were as many routers: refused at the one past the bound.
TEST(ProcessBound, RouterVariantsPastTheBoundAreRefusedAtTheFirstOnePastIt) {
  std::string compared, names;
  for (int i = 1; i <= 5; ++i) {
    compared += "[routers.r" + std::to_string(i) + "]\nimpl = \"builtin\"\n";
    names += std::string(i == 1 ? "" : ", ") + "\"r" + std::to_string(i) + "\"";
  }
  const std::string text =
      compared + "[compare]\nrouters = [" + names + "]\n" + workload_of("w", 1);
  // r4's table is on line 8 ("name" on line 1, each table two lines).
  expect_too_many(submit_timed(text, at_most_processes(3)),
                  "client.toml:8:1: error: [routers.r4] makes the run have 6 processes at once "
                  "(5 routers, 1 worker), more than this service's --max-processes (3); fewer "
                  "workers or variants fit; nothing was started\n");
  EXPECT_TRUE(submit_timed(text, at_most_processes(6)).scenario);
}

// Comparing workers, each compared worker has a pool as large as the largest workload; an
// adapter's worker runs its tool beside it; a command's worker is one process.
TEST(ProcessBound, EveryComparedWorkerHasItsOwnPoolAndAnAdapterItsTools) {
  const std::string compared =
      "[router]\nimpl = \"builtin\"\n[worker_impls.cmd]\ncommand = [\"/bin/true\"]\n"
      "[worker_impls.tool]\nadapter = \"wrk\"\n[compare]\nworkers = [\"builtin\", \"cmd\", "
      "\"tool\"]\n";
  const std::string text = compared + workload_of("three", 3) + workload_of("five", 5);
  const Admission fits = submit_timed(text, at_most_processes(21));
  ASSERT_TRUE(fits.scenario) << fits.message;
  // 1 router, 5 bundled workers, 5 of cmd, 5 of tool with their 5 tools.
  EXPECT_EQ(processes_at_once(*fits.scenario, false), 21u);
  EXPECT_EQ(processes_at_once(*fits.scenario, true), 16u);
  expect_too_many(
      submit_timed(text, at_most_processes(20)),
      "client.toml:22:1: error: workload 'five' workers = 5 (compared worker 'tool') makes the "
      "run have 21 processes at once (1 router, 15 workers, 5 tools their adapters run), more "
      "than this service's --max-processes (20); fewer workers or variants fit; nothing was "
      "started\n");
}

// Without a comparison, the bundled worker's pool is as large as its largest workload and
// every worker implementation the workloads name has a pool of its own; an external system is
// started by nobody.
TEST(ProcessBound, EachWorkerImplementationHasAPoolOfItsLargestWorkload) {
  const std::string impl = "[worker_impls.cmd]\ncommand = [\"/bin/true\"]\n";
  const std::string text = impl + workload_of("a", 2) + workload_of("b", 6) +
                           workload_of("c", 3, "cmd") + workload_of("d", 1, "cmd");
  const Admission fits = submit_timed(text, at_most_processes(10));
  ASSERT_TRUE(fits.scenario) << fits.message;
  EXPECT_EQ(processes_at_once(*fits.scenario, false), 10u);  // 1 router, 6 bundled, 3 of cmd
  EXPECT_EQ(processes_at_once(*fits.scenario, true), 4u);
  expect_too_many(submit_timed(text, at_most_processes(9)),
                  "client.toml:27:1: error: workload 'c' workers = 3 (worker 'cmd') makes the "
                  "run have 10 processes at once (1 router, 9 workers), more than this "
                  "service's --max-processes (9); fewer workers or variants fit; nothing was "
                  "started\n");
  scenario::Scenario external = *fits.scenario;
  external.router.impl = scenario::RouterImpl::kExternal;
  EXPECT_EQ(processes_at_once(external, false), 9u);
}

// The default bound refuses the loader's largest workload; the service's own --workers-at
// takes the bundled workers off this machine, so the same scenario fits then.
TEST(ProcessBound, TheDefaultBoundRefusesAThousandLocalWorkers) {
  AdmissionPolicy policy;
  EXPECT_EQ(policy.max_processes, kDefaultMaxProcesses);
  const Admission a = submit_timed(workload_of("many", 1024), policy);
  expect_too_many(a,
                  "client.toml:3:1: error: workload 'many' workers = 1024 makes the run have "
                  "1025 processes at once (1 router, 1024 workers), more than this service's "
                  "--max-processes (64); fewer workers or variants fit; nothing was started\n");
  policy.worker_addresses = {"10.0.0.9:7800"};
  EXPECT_TRUE(submit_timed(workload_of("many", 1024), policy).scenario);
  // A run's timeouts and its processes are both said when both are past their bounds.
  policy = AdmissionPolicy{};
  policy.max_run_ns = 5 * kSecond;
  const Admission both = submit_timed(workload_of("many", 1024), policy);
  EXPECT_NE(both.message.find("workload 'many' timeout = 10s is longer"), std::string::npos)
      << both.message;
  EXPECT_NE(both.message.find("workers = 1024 makes the run have 1025"), std::string::npos)
      << both.message;
}

// The --scenarios folder's files are the operator's: run by name, nothing bounds them.
TEST(ProcessBound, AScenarioOfTheServicesFolderIsNotBounded) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("process-bound-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "own.toml") << "name = \"own\"\n" << workload_of("many", 1024);
  AdmissionPolicy policy;
  policy.scenarios_dir = dir.string();
  policy.max_processes = 1;
  const Admission a = admit_by_name("own", policy);
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(a.scenario) << a.message;
}

// The project's scenarios (the operator's, as a client would send them) fit the default: each
// one, however many the folder holds, is admitted under it.
TEST(ProcessBound, TheProjectsScenariosFitTheDefault) {
  size_t scenarios = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(BENCHGATE_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".toml") continue;
    const scenario::LoadResult loaded = scenario::load_scenario_file(entry.path().string());
    ASSERT_TRUE(loaded.ok()) << entry.path();
    ++scenarios;
    EXPECT_LE(processes_at_once(*loaded.scenario, false), kDefaultMaxProcesses) << entry.path();
    EXPECT_EQ(more_processes_than_allowed(*loaded.scenario, false, kDefaultMaxProcesses), "")
        << entry.path();
  }
  EXPECT_GT(scenarios, 0u);
}

// --max-run-seconds stops a run as a cancel does; a stop that came once run_one had judged the
// run (as it stored it, or returned) did not stop it, and its stored exit code stands
// (orchestrator/serve/run_executor.h, stop_reached_run).
TEST(RunDeadline, AStopAfterTheRunWasJudgedLeavesItsOutcome) {
  report::ScenarioReport passed;
  EXPECT_FALSE(stop_reached_run(passed));
  report::ScenarioReport gate_failed;
  gate_failed.exit_code = 1;
  EXPECT_FALSE(stop_reached_run(gate_failed));
  // Failed on its own: exit code 3 anyway, and the failure is what the client is told.
  report::ScenarioReport failed;
  failed.result.error = "system under test is not reachable";
  failed.exit_code = 3;
  EXPECT_FALSE(stop_reached_run(failed));
}

TEST(RunDeadline, AStopTheRunSawStoppedIt) {
  report::ScenarioReport stopped;
  stopped.result.interrupted = true;
  stopped.exit_code = 3;
  EXPECT_TRUE(stop_reached_run(stopped));
  // Measured to the end, then judged while the stop was set: run_one made it exit 3.
  report::ScenarioReport judged_stopped;
  judged_stopped.exit_code = 3;
  EXPECT_TRUE(stop_reached_run(judged_stopped));
}

}  // namespace
}  // namespace benchgate::serve
