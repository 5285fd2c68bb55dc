// A queued job's ${port:NAME} ports were free when its scenario was submitted; one that
// something listens on by the time the job starts is named, and the job starts nothing
// (orchestrator/serve/run_executor.h, port_taken_since_loaded).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

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

// The scenario may reach its port on another loopback address than 127.0.0.1, where a listener
// holds no port of 127.0.0.1's: that address is bound as written too (only 127.0.0.1 was).
TEST(PortRecheck, APortTakenOnTheOtherLoopbackAddressAKeyNamesIsNamed) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(0x7f000035);  // 127.0.0.53
  socklen_t size = sizeof address;
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), size), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size), 0);
  const uint16_t port = ntohs(address.sin_port);
  scenario::Scenario s;
  s.ports["sut"] = port;
  s.router.impl = scenario::RouterImpl::kExternal;
  s.router.address = "127.0.0.53:" + std::to_string(port);
  const auto taken = port_taken_since_loaded(s);
  ::close(fd);
  ASSERT_TRUE(taken);
  EXPECT_EQ(*taken, "${port:sut} = " + std::to_string(port) +
                        " was free when the scenario was submitted and cannot be used now "
                        "([router] address '127.0.0.53:" +
                        std::to_string(port) +
                        "': address already in use); nothing was started: submit the scenario "
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
