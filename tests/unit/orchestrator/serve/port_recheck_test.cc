// A queued job's ${port:NAME} ports were free when its scenario was submitted; one that
// something listens on by the time the job starts is named, and the job starts nothing
// (orchestrator/serve/run_executor.h, port_taken_since_loaded).
#include <gtest/gtest.h>

#include <string>

#include "executor_test_support.h"
#include "orchestrator/cli/exit_codes.h"
#include "orchestrator/serve/run_executor.h"
#include "tests/unit/orchestrator/loopback_test_support.h"

namespace benchgate::serve {
namespace {

// A listener on a free loopback port, closed at the end of the test.
using Listener = test_support::LoopbackListener;

TEST(PortRecheck, APortTakenWhileTheJobWaitedIsNamedAndNothingStarts) {
  Listener other;
  ASSERT_TRUE(other.bound());
  scenario::Scenario s;
  s.ports["sut"] = other.port();
  const auto taken = port_taken_since_loaded(s);
  ASSERT_TRUE(taken);
  EXPECT_EQ(*taken, "${port:sut} = " + std::to_string(other.port()) +
                        " was free when the scenario was submitted and cannot be used now "
                        "(address already in use); nothing was started: submit the scenario "
                        "again for a free port");
}

TEST(PortRecheck, PortsStillFreeLetTheJobStart) {
  uint16_t port = 0;
  {
    Listener was;  // picked free, then closed again
    ASSERT_TRUE(was.bound());
    port = was.port();
  }
  scenario::Scenario s;
  s.ports["sut"] = port;
  EXPECT_FALSE(port_taken_since_loaded(s));
  EXPECT_FALSE(port_taken_since_loaded(scenario::Scenario{}));
}

TEST(PortRecheck, AQueuedJobWhosePortWasTakenEndsNamingItAndStartsNothing) {
  testing::ExecutorBench bench;
  Listener other;
  ASSERT_TRUE(other.bound());
  scenario::Scenario s = testing::short_scenario();
  s.ports["sut"] = other.port();
  auto job = bench.submit(s);
  ASSERT_TRUE(job);
  const auto ended = testing::ExecutorBench::wait_end(*job);
  const std::string named = "${port:sut} = " + std::to_string(other.port()) +
                            " was free when the scenario was submitted and cannot be used now";
  EXPECT_EQ(ended.status.state, JobState::kFinished);
  EXPECT_EQ(ended.status.exit_code, cli::kExitRunError);
  EXPECT_EQ(ended.status.error.rfind(named, 0), 0u) << ended.status.error;
  EXPECT_EQ(ended.err.rfind("error: " + named, 0), 0u) << ended.err;
  // Nothing started: no system under test, no worker pool, no stored run.
  EXPECT_TRUE(bench.factories().made_suts.empty());
  EXPECT_TRUE(bench.factories().pool_binaries.empty());
  auto runs = bench.db().list_runs(10);
  ASSERT_TRUE(runs) << runs.message();
  EXPECT_TRUE(runs->empty());
}

}  // namespace
}  // namespace benchgate::serve
