// [worker_impls.NAME]: what the loader accepts (a command, with ${scenario_dir} expanded) and
// what it rejects (an empty command, an undefined worker name, the reserved name "builtin").
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/scenario/diagnostics.h"
#include "orchestrator/scenario/scenario_loader.h"
#include "scenario_test_support.h"

namespace benchgate::scenario {
namespace {

using test_support::diagnostics_text;

LoadResult load_in_tmp_dir(const std::string& text) {
  return test_support::load_hermetic(text, "/tmp/dir/s.toml");
}

TEST(ScenarioWorkerImpls, ReadsTheCommandAndExpandsScenarioDir) {
  auto r = load_in_tmp_dir(R"(name = "w"
[worker_impls.python]
command = ["/usr/bin/python3", "${scenario_dir}/worker.py"]
[[workloads]]
name = "a"
worker = "python"
[[workloads]]
name = "b"
)");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  const auto& impls = r.scenario->worker_impls;
  ASSERT_EQ(impls.count("python"), 1u);
  EXPECT_EQ(impls.at("python").command,
            (std::vector<std::string>{"/usr/bin/python3", "/tmp/dir/worker.py"}));
  EXPECT_EQ(r.scenario->workloads[0].worker, "python");
  EXPECT_EQ(r.scenario->workloads[1].worker, "builtin");
}

TEST(ScenarioWorkerImpls, AWorkerNotDefinedIsAnErrorNamingTheKnownOnes) {
  auto r = load_in_tmp_dir(R"(name = "w"
[worker_impls.python]
command = ["python3"]
[[workloads]]
name = "a"
worker = "pyton"
)");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(diagnostics_text(r).find("worker 'pyton' is not defined"), std::string::npos)
      << diagnostics_text(r);
  EXPECT_NE(diagnostics_text(r).find("known: builtin, python"), std::string::npos)
      << diagnostics_text(r);
}

TEST(ScenarioWorkerImpls, AMisspeltWorkerIsReportedAtItsValueWithADidYouMean) {
  // At the value that names it (in the workload, or in [defaults] for every workload that
  // inherits it), not at the workload's header, and with the nearest name.
  EXPECT_EQ(test_support::diagnostic_lines(test_support::load_hermetic(R"(name = "w"
[worker_impls.wrk]
adapter = "wrk"
[[workloads]]
name = "a"
worker = "wkr"
)")),
            std::vector<std::string>{
                "s.toml:6:10: error: workload 'a': worker 'wkr' is not defined (did you mean "
                "'wrk'?): no [worker_impls.wkr]; known: builtin, wrk"});
  EXPECT_EQ(test_support::diagnostic_lines(test_support::load_hermetic(R"(name = "w"
[defaults]
worker = "biultin"
[[workloads]]
name = "a"
)")),
            std::vector<std::string>{
                "s.toml:3:10: error: workload 'a': worker 'biultin' is not defined (did you "
                "mean 'builtin'?): no [worker_impls.biultin]; known: builtin"});
}

// Every listed workload naming no worker is told the nearest and the known ones (the search
// compares with every known name: it is made for as many workloads as a load lists errors).
TEST(ScenarioWorkerImpls, EveryListedWorkloadNamingNoWorkerIsToldTheNearest) {
  std::string text = "name = \"w\"\n[worker_impls.wrk]\nadapter = \"wrk\"\n";
  for (int i = 0; i < 150; ++i) {
    text += "[[workloads]]\nname = \"a" + std::to_string(i) + "\"\nworker = \"wkr\"\n";
  }
  LoadResult r = test_support::load_hermetic(text);
  ASSERT_EQ(r.diagnostics.size(), Diagnostics::kMaxListed + 1);
  for (size_t i = 0; i < Diagnostics::kMaxListed; ++i) {
    EXPECT_EQ(r.diagnostics[i].message,
              "workload 'a" + std::to_string(i) +
                  "': worker 'wkr' is not defined (did you mean 'wrk'?): no "
                  "[worker_impls.wkr]; known: builtin, wrk");
  }
}

TEST(ScenarioWorkerImpls, ARefusedImplementationIsReportedOnceNotAgainWhereItIsNamed) {
  // Each [worker_impls.NAME] below is refused for a reason of its own; the workloads (and the
  // comparison) that name it get no second error saying that no such table exists.
  const auto lines = test_support::diagnostic_lines(test_support::load_hermetic(R"(name = "w"
[worker_impls.x]
adapter = "nope"
[worker_impls.y]
command = "prog"
[worker_impls.z]
[worker_impls."A"]
command = ["a"]
[worker_impls.e]
command = []
[compare]
workers = ["builtin", "x"]
[defaults]
repetitions = 2
[[workloads]]
name = "a"
)"));
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "s.toml:3:11: error: unknown adapter 'nope' in [worker_impls.x] (known: "
                       "h2load, wrk)",
                       "s.toml:5:11: error: key 'command' must be an array of strings, got "
                       "string \"prog\"",
                       "s.toml:6:1: error: [worker_impls.z] needs 'command' (a worker program "
                       "and its arguments) or 'adapter' (h2load, wrk)",
                       "s.toml:7:15: error: worker name 'A' must match [a-z0-9_.-]+",
                       "s.toml:10:11: error: key 'command' must be a program and its arguments, "
                       "none of them empty",
                   }));
  for (const char* worker : {"x", "y", "z", "A", "e"}) {
    const auto refused = test_support::diagnostic_lines(test_support::load_hermetic(
        std::string("name = \"w\"\n[worker_impls.x]\nadapter = \"nope\"\n[worker_impls.y]\n"
                    "command = \"prog\"\n[worker_impls.z]\n[worker_impls.\"A\"]\n"
                    "command = [\"a\"]\n[worker_impls.e]\ncommand = []\n[[workloads]]\n"
                    "name = \"a\"\nworker = \"") +
        worker + "\"\n"));
    EXPECT_EQ(refused.size(), 5u) << worker;
    for (const std::string& line : refused) {
      EXPECT_EQ(line.find("is not defined"), std::string::npos) << line;
    }
  }
  // [worker_impls] that is no table at all: one error, none for the names it was to define.
  EXPECT_EQ(test_support::diagnostic_lines(test_support::load_hermetic(
                "name = \"w\"\nworker_impls = 5\n[[workloads]]\nname = \"a\"\nworker = \"py\"\n")),
            std::vector<std::string>{
                "s.toml:2:16: error: key 'worker_impls' must be a table, got integer 5"});
}

TEST(ScenarioWorkerImpls, AMisspeltCommandOrAdapterIsOneErrorAndTheEntryIsRefused) {
  // 'comand' for 'command': reported at the key with what was meant, and not again as an entry
  // with neither 'command' nor 'adapter', nor where a workload names the entry.
  for (const char* key : {"comand", "adaptor"}) {
    const auto lines = test_support::diagnostic_lines(
        test_support::load_hermetic(std::string("name = \"w\"\n[worker_impls.py]\n") + key +
                                    " = [\"x\"]\n[[workloads]]\nname = \"a\"\nworker = \"py\"\n"));
    const std::string meant = std::string(key) == "comand" ? "command" : "adapter";
    EXPECT_EQ(lines,
              std::vector<std::string>{"s.toml:3:1: error: unknown key '" + std::string(key) +
                                       "' in [worker_impls.py] (did you mean '" + meant + "'?)"});
  }
}

TEST(ScenarioWorkerImpls, AnEmptyCommandOrArgumentIsAnError) {
  for (const char* command : {"[]", "[\"\"]", "[\"a\", \"\"]"}) {
    auto r = load_in_tmp_dir(std::string("name = \"w\"\n[worker_impls.x]\ncommand = ") + command +
                             "\n[[workloads]]\nname = \"a\"\n");
    ASSERT_FALSE(r.ok()) << command;
    EXPECT_NE(diagnostics_text(r).find("must be a program and its arguments"), std::string::npos)
        << diagnostics_text(r);
  }
}

TEST(ScenarioWorkerImpls, ACommandIsRequiredAndMustBeStrings) {
  auto missing = load_in_tmp_dir("name = \"w\"\n[worker_impls.x]\n[[workloads]]\nname = \"a\"\n");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(diagnostics_text(missing).find("'command'"), std::string::npos)
      << diagnostics_text(missing);
  auto numbers = load_in_tmp_dir(
      "name = \"w\"\n[worker_impls.x]\ncommand = [1]\n[[workloads]]\nname = \"a\"\n");
  ASSERT_FALSE(numbers.ok());
  EXPECT_NE(diagnostics_text(numbers).find("array of strings"), std::string::npos)
      << diagnostics_text(numbers);
}

TEST(ScenarioWorkerImpls, BuiltinIsAReservedName) {
  auto r = load_in_tmp_dir(
      "name = \"w\"\n[worker_impls.builtin]\ncommand = [\"x\"]\n[[workloads]]\nname = \"a\"\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(diagnostics_text(r).find("'builtin' is the bundled worker's"), std::string::npos)
      << diagnostics_text(r);
}

TEST(ScenarioWorkerImpls, AnAdapterIsReadWithoutACommand) {
  auto r = load_in_tmp_dir(R"(name = "w"
[worker_impls.h2load]
adapter = "h2load"
[[workloads]]
name = "a"
worker = "h2load"
)");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(r.scenario->worker_impls.at("h2load").adapter, "h2load");
  EXPECT_TRUE(r.scenario->worker_impls.at("h2load").command.empty());
}

TEST(ScenarioWorkerImpls, AnUnknownAdapterNamesTheKnownOnesAtItsValue) {
  auto r = load_in_tmp_dir(
      "name = \"w\"\n[worker_impls.x]\nadapter = \"ab\"\n[[workloads]]\nname = \"a\"\n");
  EXPECT_EQ(diagnostics_text(r),
            "/tmp/dir/s.toml:3:11: error: unknown adapter 'ab' in [worker_impls.x] (known: "
            "h2load, wrk)\n");
}

// startup_timeout: how long its workers may take to start; absent, the engine's deadline.
TEST(ScenarioWorkerImpls, StartupTimeoutIsAPositiveDurationOfAnImplementation) {
  auto r = load_in_tmp_dir(R"(name = "w"
[worker_impls.jvm]
command = ["java", "-jar", "worker.jar"]
startup_timeout = "2m"
[worker_impls.h2load]
adapter = "h2load"
[[workloads]]
name = "a"
worker = "jvm"
)");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(r.scenario->worker_impls.at("jvm").startup_timeout_ns, 120'000'000'000);
  EXPECT_EQ(r.scenario->worker_impls.at("h2load").startup_timeout_ns, 0);
  auto zero = load_in_tmp_dir(
      "name = \"w\"\n[worker_impls.x]\nadapter = \"wrk\"\nstartup_timeout = \"0ms\"\n"
      "[[workloads]]\nname = \"a\"\n");
  EXPECT_NE(diagnostics_text(zero).find("/tmp/dir/s.toml:4:19: error: key 'startup_timeout'"),
            std::string::npos)
      << diagnostics_text(zero);
}

TEST(ScenarioWorkerImpls, CompareWorkersListsTheVariantsInOrderAgainstTheScenariosRouter) {
  auto r = load_in_tmp_dir(R"(name = "w"
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
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(r.scenario->compare_workers, (std::vector<std::string>{"builtin", "h2load", "wrk"}));
  EXPECT_TRUE(r.scenario->compare_routers.empty());
  EXPECT_EQ(r.scenario->router.threads, 2u);
}

TEST(ScenarioWorkerImpls, CompareWorkersRefusesAWorkerSetInDefaults) {
  auto r = load_in_tmp_dir(R"(name = "w"
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
  EXPECT_EQ(diagnostics_text(r),
            "/tmp/dir/s.toml:8:10: error: key 'worker' in [defaults] conflicts with [compare] "
            "workers, which runs every workload with each listed worker: remove it\n");
}

TEST(ScenarioWorkerImpls, CompareWorkersRefusesRouterVariants) {
  auto r = load_in_tmp_dir(R"(name = "w"
[routers.a]
[worker_impls.wrk]
adapter = "wrk"
[compare]
workers = ["builtin", "wrk"]
[[workloads]]
name = "a"
repetitions = 2
)");
  EXPECT_NE(diagnostics_text(r).find("a comparison of workers runs against [router]"),
            std::string::npos)
      << diagnostics_text(r);
}

}  // namespace
}  // namespace benchgate::scenario
