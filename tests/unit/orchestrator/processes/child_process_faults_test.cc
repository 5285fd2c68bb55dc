// A frozen child (SIGSTOP) is recognised as such, and stop() still ends it: the orchestrator
// never waits on a process that cannot run.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <thread>

#include "orchestrator/processes/child_process.h"
#include "process_log.h"

namespace benchgate::processes {
namespace {

using namespace std::chrono_literals;

// Where this test process's frozen children write their stderr.
const test_support::ProcessLog frozen_test_log("benchgate-frozen-test-");

std::unique_ptr<ChildProcess> ready_child() {
  SpawnOptions options;
  options.name = "frozen child";
  options.executable = "/bin/sh";
  options.args = {"-c", "echo READY; while true; do sleep 1; done"};
  options.stderr_log = frozen_test_log.path();
  auto child = ChildProcess::spawn(options);
  EXPECT_TRUE(child.ok()) << child.message();
  EXPECT_TRUE((*child)->wait_ready_line(std::chrono::steady_clock::now() + 10s).ok());
  return std::move(child).value();
}

// Signals arrive asynchronously: wait (bounded) until the state shows.
bool becomes(ChildProcess& child, bool stopped) {
  for (int i = 0; i < 500; ++i) {
    if (child.stopped() == stopped) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

TEST(ChildProcessFaults, ARunningChildIsNotStopped) {
  auto child = ready_child();
  EXPECT_FALSE(child->stopped());
  child->stop(200ms);
}

TEST(ChildProcessFaults, ASigstoppedChildIsStoppedAndRunningUntilContinued) {
  auto child = ready_child();
  ::kill(child->pid(), SIGSTOP);
  EXPECT_TRUE(becomes(*child, true));
  EXPECT_TRUE(child->running());
  ::kill(child->pid(), SIGCONT);
  EXPECT_TRUE(becomes(*child, false));
  child->stop(200ms);
}

TEST(ChildProcessFaults, StopEndsAFrozenChildThroughSigterm) {
  auto child = ready_child();
  const pid_t pid = child->pid();
  ::kill(pid, SIGSTOP);
  ASSERT_TRUE(becomes(*child, true));
  child->stop(5s);  // SIGCONT lets it act on SIGTERM; SIGKILL only if it does not
  EXPECT_FALSE(child->running());
  EXPECT_FALSE(child->stopped());
  EXPECT_NE(::kill(pid, 0), 0);
  EXPECT_NE(child->exit_description().find("signal 15"), std::string::npos)
      << child->exit_description();
}

TEST(ChildProcessFaults, AStopThatEndedBeforeTheCallIsStillSeenOnce) {
  auto child = ready_child();
  EXPECT_FALSE(child->stopped_since_last_call());
  ::kill(child->pid(), SIGSTOP);
  ASSERT_TRUE(becomes(*child, true));
  ::kill(child->pid(), SIGCONT);
  ASSERT_TRUE(becomes(*child, false));
  // Stopped and continued again before anyone asked: the stop is reported, once.
  EXPECT_TRUE(child->stopped_since_last_call());
  EXPECT_FALSE(child->stopped_since_last_call());
  EXPECT_TRUE(child->running());
  child->stop(200ms);
}

TEST(ChildProcessFaults, AChildStoppedNowIsSeenAtEveryCall) {
  auto child = ready_child();
  ::kill(child->pid(), SIGSTOP);
  ASSERT_TRUE(becomes(*child, true));
  EXPECT_TRUE(child->stopped_since_last_call());
  EXPECT_TRUE(child->stopped_since_last_call());  // still stopped
  child->stop(5s);
  EXPECT_FALSE(child->stopped_since_last_call());
}

TEST(ChildProcessFaults, AnExitedChildIsNotStopped) {
  auto child = ready_child();
  child->stop(200ms);
  EXPECT_FALSE(child->stopped());
}

}  // namespace
}  // namespace benchgate::processes
