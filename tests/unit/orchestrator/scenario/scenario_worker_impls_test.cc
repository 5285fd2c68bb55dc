// [worker_impls.NAME]: what the loader accepts (a command, with ${scenario_dir} expanded) and
// what it rejects (an empty command, an undefined worker name, the reserved name "builtin").
#include <gtest/gtest.h>

#include <string>

#include "hermetic_options.h"
#include "orchestrator/scenario/scenario_loader.h"

namespace benchgate::scenario {
namespace {

LoadResult load(const std::string& text) {
  LoadOptions options = test_support::hermetic_options();
  return load_scenario_text(text, "/tmp/dir/s.toml", options);
}

std::string errors_of(const LoadResult& r) {
  std::string out;
  for (const Diagnostic& d : r.diagnostics) out += d.format() + "\n";
  return out;
}

TEST(ScenarioWorkerImpls, ReadsTheCommandAndExpandsScenarioDir) {
  auto r = load(R"(name = "w"
[worker_impls.python]
command = ["/usr/bin/python3", "${scenario_dir}/worker.py"]
[[workloads]]
name = "a"
worker = "python"
[[workloads]]
name = "b"
)");
  ASSERT_TRUE(r.ok()) << errors_of(r);
  const auto& impls = r.scenario->worker_impls;
  ASSERT_EQ(impls.count("python"), 1u);
  EXPECT_EQ(impls.at("python").command,
            (std::vector<std::string>{"/usr/bin/python3", "/tmp/dir/worker.py"}));
  EXPECT_EQ(r.scenario->workloads[0].worker, "python");
  EXPECT_EQ(r.scenario->workloads[1].worker, "builtin");
}

TEST(ScenarioWorkerImpls, AWorkerNotDefinedIsAnErrorNamingTheKnownOnes) {
  auto r = load(R"(name = "w"
[worker_impls.python]
command = ["python3"]
[[workloads]]
name = "a"
worker = "pyton"
)");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(errors_of(r).find("worker 'pyton' is not defined"), std::string::npos) << errors_of(r);
  EXPECT_NE(errors_of(r).find("known: builtin, python"), std::string::npos) << errors_of(r);
}

TEST(ScenarioWorkerImpls, AnEmptyCommandOrArgumentIsAnError) {
  for (const char* command : {"[]", "[\"\"]", "[\"a\", \"\"]"}) {
    auto r = load(std::string("name = \"w\"\n[worker_impls.x]\ncommand = ") + command +
                  "\n[[workloads]]\nname = \"a\"\n");
    ASSERT_FALSE(r.ok()) << command;
    EXPECT_NE(errors_of(r).find("must be a program and its arguments"), std::string::npos)
        << errors_of(r);
  }
}

TEST(ScenarioWorkerImpls, ACommandIsRequiredAndMustBeStrings) {
  auto missing = load("name = \"w\"\n[worker_impls.x]\n[[workloads]]\nname = \"a\"\n");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(errors_of(missing).find("'command'"), std::string::npos) << errors_of(missing);
  auto numbers =
      load("name = \"w\"\n[worker_impls.x]\ncommand = [1]\n[[workloads]]\nname = \"a\"\n");
  ASSERT_FALSE(numbers.ok());
  EXPECT_NE(errors_of(numbers).find("array of strings"), std::string::npos) << errors_of(numbers);
}

TEST(ScenarioWorkerImpls, BuiltinIsAReservedName) {
  auto r = load(
      "name = \"w\"\n[worker_impls.builtin]\ncommand = [\"x\"]\n[[workloads]]\nname = \"a\"\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(errors_of(r).find("'builtin' is the bundled worker's"), std::string::npos)
      << errors_of(r);
}

TEST(ScenarioWorkerImpls, AnAdapterIsReadWithoutACommand) {
  auto r = load(R"(name = "w"
[worker_impls.h2load]
adapter = "h2load"
[[workloads]]
name = "a"
worker = "h2load"
)");
  ASSERT_TRUE(r.ok()) << errors_of(r);
  EXPECT_EQ(r.scenario->worker_impls.at("h2load").adapter, "h2load");
  EXPECT_TRUE(r.scenario->worker_impls.at("h2load").command.empty());
}

TEST(ScenarioWorkerImpls, AnUnknownAdapterNamesTheKnownOnesAtItsValue) {
  auto r = load("name = \"w\"\n[worker_impls.x]\nadapter = \"ab\"\n[[workloads]]\nname = \"a\"\n");
  EXPECT_EQ(errors_of(r),
            "/tmp/dir/s.toml:3:11: error: unknown adapter 'ab' in [worker_impls.x] (known: "
            "h2load, wrk)\n");
}

// startup_timeout: how long its workers may take to start; absent, the engine's deadline.
TEST(ScenarioWorkerImpls, StartupTimeoutIsAPositiveDurationOfAnImplementation) {
  auto r = load(R"(name = "w"
[worker_impls.jvm]
command = ["java", "-jar", "worker.jar"]
startup_timeout = "2m"
[worker_impls.h2load]
adapter = "h2load"
[[workloads]]
name = "a"
worker = "jvm"
)");
  ASSERT_TRUE(r.ok()) << errors_of(r);
  EXPECT_EQ(r.scenario->worker_impls.at("jvm").startup_timeout_ns, 120'000'000'000);
  EXPECT_EQ(r.scenario->worker_impls.at("h2load").startup_timeout_ns, 0);
  auto zero = load(
      "name = \"w\"\n[worker_impls.x]\nadapter = \"wrk\"\nstartup_timeout = \"0ms\"\n"
      "[[workloads]]\nname = \"a\"\n");
  EXPECT_NE(errors_of(zero).find("/tmp/dir/s.toml:4:19: error: key 'startup_timeout'"),
            std::string::npos)
      << errors_of(zero);
}

TEST(ScenarioWorkerImpls, CompareWorkersListsTheVariantsInOrderAgainstTheScenariosRouter) {
  auto r = load(R"(name = "w"
[router]
threads = 2
[worker_impls.h2load]
adapter = "h2load"
[worker_impls.wrk]
adapter = "wrk"
[compare]
workers = ["builtin", "h2load", "wrk"]
[defaults]
repetitions = 4
[[workloads]]
name = "a"
)");
  ASSERT_TRUE(r.ok()) << errors_of(r);
  EXPECT_EQ(r.scenario->compare_workers, (std::vector<std::string>{"builtin", "h2load", "wrk"}));
  EXPECT_TRUE(r.scenario->compare_routers.empty());
  EXPECT_EQ(r.scenario->router.threads, 2u);
}

TEST(ScenarioWorkerImpls, CompareWorkersRefusesAWorkerSetInDefaults) {
  auto r = load(R"(name = "w"
[worker_impls.wrk]
adapter = "wrk"
[compare]
workers = ["builtin", "wrk"]
[defaults]
repetitions = 2
worker = "wrk"
[[workloads]]
name = "a"
)");
  EXPECT_EQ(errors_of(r),
            "/tmp/dir/s.toml:8:10: error: key 'worker' in [defaults] conflicts with [compare] "
            "workers, which runs every workload with each listed worker: remove it\n");
}

TEST(ScenarioWorkerImpls, CompareWorkersRefusesRouterVariants) {
  auto r = load(R"(name = "w"
[routers.a]
[worker_impls.wrk]
adapter = "wrk"
[compare]
workers = ["builtin", "wrk"]
[[workloads]]
name = "a"
repetitions = 2
)");
  EXPECT_NE(errors_of(r).find("a comparison of workers runs against [router]"), std::string::npos)
      << errors_of(r);
}

}  // namespace
}  // namespace benchgate::scenario
