// Which bundled binaries a run needs and why one of them cannot be started
// (orchestrator/app/bundled_binary.h): checked before anything starts or is stored.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "orchestrator/app/bundled_binary.h"
#include "store_test_support.h"

namespace benchgate::app {
namespace {

scenario::Scenario builtin_scenario() {
  scenario::Scenario s;
  s.name = "s";
  s.workloads.emplace_back();
  s.workloads.back().name = "w";
  s.workloads.back().workers = 1;
  return s;
}

std::string problem(const std::string& path, const std::string& origin = "--worker-bin") {
  auto usable = check_binary({path, origin}, "worker executable");
  return usable ? "" : usable.message();
}

TEST(BundledBinary, AMissingFileAFolderAndAFileWithoutExecutePermissionAreEachNamed) {
  store::testing::TempDir dir;
  EXPECT_EQ(problem(dir.file("none")),
            "worker executable '" + dir.file("none") + "' (from --worker-bin): does not exist");
  EXPECT_EQ(problem(dir.file(""), "$BENCHGATE_WORKER_BIN"),
            "worker executable '" + dir.file("") +
                "' (from $BENCHGATE_WORKER_BIN): is a folder, not a regular file");
  const std::string plain = dir.file("plain");
  std::ofstream(plain) << "#!/bin/sh\n";
  ::chmod(plain.c_str(), 0644);
  // The words of a command's program path (processes::program_path_problem), one definition.
  EXPECT_EQ(problem(plain + "/x"),
            "worker executable '" + plain + "/x' (from --worker-bin): does not exist");
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0700), 0);
  EXPECT_EQ(problem(dir.file("fifo")), "worker executable '" + dir.file("fifo") +
                                           "' (from --worker-bin): is not a regular file");
  if (::access(plain.c_str(), X_OK) != 0) {  // root may execute it all the same
    EXPECT_EQ(problem(plain),
              "worker executable '" + plain + "' (from --worker-bin): is not executable");
  }
  ::chmod(plain.c_str(), 0755);
  EXPECT_EQ(problem(plain), "");
}

TEST(BundledBinary, ANameWithoutASlashIsLookedUpOnPath) {
  EXPECT_EQ(problem("sh"), "");
  EXPECT_EQ(problem("benchgate-test-no-such-program"),
            "worker executable 'benchgate-test-no-such-program' (from --worker-bin): no "
            "executable of that name on PATH");
}

TEST(BundledBinary, ABuiltinScenarioNeedsTheRouterAndTheWorker) {
  const auto needed = needed_binaries({builtin_scenario()}, false);
  EXPECT_TRUE(needed.router);
  EXPECT_TRUE(needed.worker);
}

TEST(BundledBinary, AnExternalSystemNeedsNoRouterAndRemoteWorkersNoWorker) {
  scenario::Scenario s = builtin_scenario();
  s.router.impl = scenario::RouterImpl::kExternal;
  EXPECT_FALSE(needed_binaries({s}, false).router);
  EXPECT_TRUE(needed_binaries({s}, false).worker);
  EXPECT_FALSE(needed_binaries({s}, true).worker);
  s.workers.at = {"127.0.0.1:1"};
  EXPECT_FALSE(needed_binaries({s}, false).worker);
}

TEST(BundledBinary, AWorkerProgramOfItsOwnNeedsNoBundledWorker) {
  scenario::Scenario s = builtin_scenario();
  s.worker_impls["own"].command = {"sh"};
  s.workloads.back().worker = "own";
  EXPECT_FALSE(needed_binaries({s}, false).worker);
  // Nor does an adapter whose tool is not installed: the engine starts nothing for it.
  s.worker_impls["own"] = {};
  s.worker_impls["own"].adapter = "benchgate-test-no-such-program";
  EXPECT_FALSE(needed_binaries({s}, false).worker);
  // An adapter whose tool is there runs as the bundled worker.
  s.worker_impls["own"].adapter = "sh";
  EXPECT_TRUE(needed_binaries({s}, false).worker);
}

TEST(BundledBinary, AComparisonOfRoutersNeedsTheRouterOnlyWhenOneIsBuiltin) {
  scenario::Scenario s = builtin_scenario();
  s.router.impl = scenario::RouterImpl::kExternal;
  s.routers["a"].impl = scenario::RouterImpl::kExternal;
  s.routers["b"].impl = scenario::RouterImpl::kCommand;
  s.compare_routers = {"a", "b"};
  EXPECT_FALSE(needed_binaries({s}, false).router);
  s.routers["b"].impl = scenario::RouterImpl::kBuiltin;
  EXPECT_TRUE(needed_binaries({s}, false).router);
}

// Every router variant is loaded by the workload's own `worker` (docs/SCENARIOS.md, "Comparing
// routers: `[routers.NAME]` and `[compare]`"): a worker program of its own needs no bundled worker
// there either.
TEST(BundledBinary, AComparisonOfRoutersNeedsTheWorkerOnlyForItsWorkloadsThatUseIt) {
  scenario::Scenario s = builtin_scenario();
  s.routers["a"].impl = scenario::RouterImpl::kBuiltin;
  s.routers["b"].impl = scenario::RouterImpl::kBuiltin;
  s.compare_routers = {"a", "b"};
  EXPECT_TRUE(needed_binaries({s}, false).worker);
  s.worker_impls["own"].command = {"sh"};
  s.workloads.back().worker = "own";
  EXPECT_FALSE(needed_binaries({s}, false).worker);
  s.worker_impls["own"] = {};
  s.worker_impls["own"].adapter = "sh";
  EXPECT_TRUE(needed_binaries({s}, false).worker);
}

TEST(BundledBinary, AMissingRouterIsNamedBeforeAnythingStarts) {
  const auto usable = check_needed_binaries({builtin_scenario()}, "/nonexistent/router",
                                            "/nonexistent/worker", false);
  ASSERT_FALSE(usable);
  EXPECT_EQ(usable.message(),
            "router executable '/nonexistent/router' (from --router-bin): does not exist");
}

// What a run records of the binaries it starts (docs/MEASUREMENT.md, "Measured binaries").
TEST(MeasuredBinaries, TheRouterAndTheLocalWorkersAreRecordedWithTheirOrigin) {
  store::testing::TempDir dir;
  const std::string router = dir.file("router");
  std::ofstream(router) << "#!/bin/sh\n";
  ::chmod(router.c_str(), 0755);
  engine::EngineOptions options;
  options.router_binary = router;
  options.router_origin = "--router-bin";
  options.worker_binary = "sh";  // looked up on PATH, as when it is spawned
  options.worker_origin = "PATH";
  const auto binaries = measured_binaries(builtin_scenario(), options);
  ASSERT_EQ(binaries.size(), 2u);
  EXPECT_EQ(binaries[0].role, "router");
  EXPECT_EQ(binaries[0].path, std::filesystem::canonical(router).string());
  EXPECT_EQ(binaries[0].origin, "--router-bin");
  EXPECT_TRUE(binaries[0].sha256.has_value());  // a script has no build-id
  EXPECT_EQ(binaries[1].role, "worker");
  EXPECT_TRUE(binaries[1].path.starts_with("/")) << binaries[1].path;
  EXPECT_EQ(binaries[1].origin, "PATH");
  // Remote workers are not identified.
  options.worker_addresses = {"127.0.0.1:1"};
  const auto remote = measured_binaries(builtin_scenario(), options);
  ASSERT_EQ(remote.size(), 1u);
  EXPECT_EQ(remote[0].role, "router");
}

TEST(MeasuredBinaries, ACommandSystemsProgramIsRecordedWhenItResolvesToAFile) {
  store::testing::TempDir dir;
  const std::string program = dir.file("system");
  std::ofstream(program) << "#!/bin/sh\nexec sleep 1\n";
  ::chmod(program.c_str(), 0755);
  scenario::Scenario s = builtin_scenario();
  s.workloads.back().workers = 0;
  s.router.impl = scenario::RouterImpl::kCommand;
  s.router.command = {program, "--port", "1"};
  engine::EngineOptions options;
  options.router_binary = "/nonexistent/router";
  const auto binaries = measured_binaries(s, options);
  ASSERT_EQ(binaries.size(), 1u);
  EXPECT_EQ(binaries[0].role, "command");
  EXPECT_EQ(binaries[0].origin, "command");
  EXPECT_EQ(binaries[0].path, std::filesystem::canonical(program).string());
  // Its arguments, which tell two variants of one program apart, go with it.
  EXPECT_EQ(binaries[0].arguments, "--port 1");
  s.router.command = {dir.file("missing")};
  EXPECT_TRUE(measured_binaries(s, options).empty());
}

// README: a run records each binary the orchestrator starts itself, a [worker_impls] program
// as much as a command system under test; an adapter's program is the bundled worker.
TEST(MeasuredBinaries, AWorkerImplsProgramAWorkloadUsesIsRecordedWithItsArguments) {
  store::testing::TempDir dir;
  const std::string program = dir.file("my-worker");
  std::ofstream(program) << "#!/bin/sh\nexec sleep 1\n";
  ::chmod(program.c_str(), 0755);
  scenario::Scenario s = builtin_scenario();
  s.worker_impls["mine"].command = {program, "--threads", "4"};
  s.worker_impls["unused"].command = {program};
  s.worker_impls["h2"].adapter = "h2load";
  s.workloads.back().worker = "mine";
  engine::EngineOptions options;
  options.router_binary = "/nonexistent/router";
  const auto binaries = measured_binaries(s, options);
  ASSERT_EQ(binaries.size(), 1u);
  EXPECT_EQ(binaries[0].role, "worker mine");
  EXPECT_EQ(binaries[0].origin, "command");
  EXPECT_EQ(binaries[0].path, std::filesystem::canonical(program).string());
  EXPECT_EQ(binaries[0].arguments, "--threads 4");
  // Compared workers: each one the comparison runs.
  s.compare_workers = {"builtin", "unused"};
  const auto compared = measured_binaries(s, options);
  ASSERT_EQ(compared.size(), 1u);
  EXPECT_EQ(compared[0].role, "worker unused");
  EXPECT_EQ(compared[0].arguments, "");
}

TEST(MeasuredBinaries, RunWarnsOnlyWhenARouterFromElsewhereTakesThisFoldersRevision) {
  ::unsetenv("BENCHGATE_ROUTER_BIN");
  const std::vector<scenario::Scenario> scenarios = {builtin_scenario()};
  EXPECT_EQ(foreign_router_warning(scenarios, "/c/router", false, false, false),
            "warning: the router measured is /c/router (from --router-bin), not this build, but "
            "the run stores this working folder's commit and branch; give the router's with "
            "--commit and --branch");
  EXPECT_EQ(foreign_router_warning(scenarios, "/c/router", false, true, false),
            "warning: the router measured is /c/router (from --router-bin), not this build, but "
            "the run stores this working folder's branch; give the router's with --branch");
  EXPECT_EQ(foreign_router_warning(scenarios, "/c/router", false, true, true), "");
  EXPECT_EQ(foreign_router_warning(scenarios, "", false, false, false), "");  // the bundled one
  ::setenv("BENCHGATE_ROUTER_BIN", "/d/router", 1);
  EXPECT_EQ(foreign_router_warning(scenarios, "", false, false, true),
            "warning: the router measured is /d/router (from $BENCHGATE_ROUTER_BIN), not this "
            "build, but the run stores this working folder's commit; give the router's with "
            "--commit");
  ::unsetenv("BENCHGATE_ROUTER_BIN");
  scenario::Scenario external = builtin_scenario();
  external.router.impl = scenario::RouterImpl::kExternal;
  EXPECT_EQ(foreign_router_warning({external}, "/c/router", false, false, false), "");
}

}  // namespace
}  // namespace benchgate::app
