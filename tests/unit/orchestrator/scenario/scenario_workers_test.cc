// [workers] (remote workers: at, count, on_worker_loss) and on_worker_loss in [defaults] and a
// workload: what the loader keeps, and where its errors point.
#include <gtest/gtest.h>

#include <string>

#include "orchestrator/scenario/scenario_loader.h"
#include "scenario_test_support.h"

namespace benchgate::scenario {
namespace {

using test_support::diagnostics_text;

LoadResult load_with_workers_env(const std::string& text) {
  LoadOptions options = test_support::hermetic_options();
  options.getenv = [](const std::string& name) -> std::optional<std::string> {
    if (name == "WORKERS") return std::string("benchgate-worker");
    return std::nullopt;
  };
  return load_scenario_text(text, "s.toml", options);
}

TEST(ScenarioWorkers, WithoutTheTableNothingIsRemoteAndAWorkerLossFails) {
  auto r = load_with_workers_env("name = \"s\"\n[[workloads]]\nname = \"a\"\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_TRUE(r.scenario->workers.at.empty());
  EXPECT_EQ(r.scenario->workers.count, 0u);
  EXPECT_EQ(r.scenario->workloads[0].on_worker_loss, WorkerLoss::kFail);
}

TEST(ScenarioWorkers, ReadsAtCountAndThePolicyEachWorkloadInherits) {
  auto r = load_with_workers_env(R"(name = "s"
[workers]
at = "dns:${env:WORKERS}:7800"
count = 3
on_worker_loss = "continue"
[defaults]
workers = 3
connections = 3
[[workloads]]
name = "inherits"
[[workloads]]
name = "own"
on_worker_loss = "fail"
)");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(r.scenario->workers.at, std::vector<std::string>{"dns:benchgate-worker:7800"});
  EXPECT_EQ(r.scenario->workers.count, 3u);
  EXPECT_EQ(r.scenario->workloads[0].on_worker_loss, WorkerLoss::kContinue);
  EXPECT_EQ(r.scenario->workloads[1].on_worker_loss, WorkerLoss::kFail);
  EXPECT_EQ(r.scenario->workers.at_where.line, 3u);
}

TEST(ScenarioWorkers, DefaultsSetThePolicyAndAListOfAddressesIsKept) {
  auto r = load_with_workers_env(R"(name = "s"
[workers]
at = ["10.0.0.7:7800", "[fd00::7]:7800"]
[defaults]
on_worker_loss = "continue"
[[workloads]]
name = "a"
)");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(r.scenario->workers.at, (std::vector<std::string>{"10.0.0.7:7800", "[fd00::7]:7800"}));
  EXPECT_EQ(r.scenario->workloads[0].on_worker_loss, WorkerLoss::kContinue);
}

TEST(ScenarioWorkers, EveryMistakeNamesItsKeyAtItsValue) {
  auto r = load_with_workers_env(R"(name = "s"
[workers]
at = ["10.0.0.7", "dns::7800"]
count = 0
on_worker_lost = "continue"
[[workloads]]
name = "a"
on_worker_loss = "retry"
)");
  ASSERT_FALSE(r.ok());
  const std::string errors = diagnostics_text(r);
  EXPECT_NE(errors.find("s.toml:3:6: error: key 'at' in [workers]: '10.0.0.7' is not an address "
                        "to connect to: it has no :PORT; expected HOST:PORT with a port of 1 to "
                        "65535 (\"127.0.0.1:7700\", \"[::1]:7700\"), dns:NAME:PORT or unix:PATH"),
            std::string::npos)
      << errors;
  EXPECT_NE(errors.find("'dns::7800' is not an address to connect to: its NAME is empty"),
            std::string::npos)
      << errors;
  EXPECT_NE(errors.find("s.toml:4:9: error: key 'count' must be at least 1, got 0"),
            std::string::npos)
      << errors;
  EXPECT_NE(errors.find("s.toml:5:1: error: unknown key 'on_worker_lost' in [workers]"),
            std::string::npos)
      << errors;
  EXPECT_NE(errors.find("s.toml:8:18: error: key 'on_worker_loss' must be one of"),
            std::string::npos)
      << errors;
}

// A worker listening on unix:PATH (`worker --listen unix:PATH`) is reached there, as with
// --workers-at; before, [workers] at read "unix" as a host and the path as a port.
TEST(ScenarioWorkers, AWorkerOnAUnixSocketIsTaken) {
  auto r = load_with_workers_env(
      "name = \"s\"\n[workers]\nat = [\"unix:/run/benchgate/w.sock\", \"h:7800\"]\n"
      "[[workloads]]\nname = \"a\"\n");
  ASSERT_TRUE(r.ok()) << diagnostics_text(r);
  EXPECT_EQ(r.scenario->workers.at,
            (std::vector<std::string>{"unix:/run/benchgate/w.sock", "h:7800"}));
}

TEST(ScenarioWorkers, AnEmptyListIsRefused) {
  auto r = load_with_workers_env("name = \"s\"\n[workers]\nat = []\n[[workloads]]\nname = \"a\"\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(
      diagnostics_text(r).find("s.toml:3:6: error: key 'at' in [workers] must name at least one"),
      std::string::npos)
      << diagnostics_text(r);
}

}  // namespace
}  // namespace benchgate::scenario
