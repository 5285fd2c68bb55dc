// `orchestrator serve` runs one job at a time, so a submitted scenario may not hold the run
// slot longer than the operator's --max-run-seconds (orchestrator/serve/run_bound.h): a
// workload's timeout or a startup_timeout past it, or timeouts that add up past it over the
// runs the scenario makes, are refused at submission with file:line:column, key and value.
#include <gtest/gtest.h>

#include <string>

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
