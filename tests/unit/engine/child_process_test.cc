// Child processes: readiness line, exit description, and stop() leaving nothing behind.
#include "orchestrator/processes/child_process.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>

namespace benchgate::processes {
namespace {

using namespace std::chrono_literals;

SpawnOptions shell(const std::string& script) {
  SpawnOptions options;
  options.name = "test child";
  options.executable = "/bin/sh";
  options.args = {"-c", script};
  options.stderr_log = std::filesystem::temp_directory_path() /
                       ("benchgate-child-test-" + std::to_string(::getpid()) + ".log");
  std::filesystem::remove(options.stderr_log);
  return options;
}

TEST(ChildProcess, ReturnsTheReadyLine) {
  auto child = ChildProcess::spawn(shell("echo noise; echo 'READY grpc=127.0.0.1:1'; sleep 30"));
  ASSERT_TRUE(child.ok()) << child.message();
  auto line = (*child)->wait_ready_line(std::chrono::steady_clock::now() + 10s);
  ASSERT_TRUE(line.ok()) << line.message();
  EXPECT_EQ(*line, "READY grpc=127.0.0.1:1");
  EXPECT_TRUE((*child)->running());
  (*child)->stop(100ms);
  EXPECT_FALSE((*child)->running());
}

TEST(ChildProcess, AChildThatExitsBeforeReadyIsExplainedWithItsStderr) {
  auto child = ChildProcess::spawn(shell("echo 'bad flag --x' >&2; exit 2"));
  ASSERT_TRUE(child.ok());
  auto line = (*child)->wait_ready_line(std::chrono::steady_clock::now() + 10s);
  ASSERT_FALSE(line.ok());
  EXPECT_NE(line.message().find("exited with status 2"), std::string::npos) << line.message();
  EXPECT_NE(line.message().find("bad flag --x"), std::string::npos) << line.message();
}

TEST(ChildProcess, ADeadlineWithoutReadyIsAnError) {
  auto child = ChildProcess::spawn(shell("sleep 30"));
  ASSERT_TRUE(child.ok());
  auto line = (*child)->wait_ready_line(std::chrono::steady_clock::now() + 200ms);
  ASSERT_FALSE(line.ok());
  EXPECT_NE(line.message().find("deadline"), std::string::npos);
}

TEST(ChildProcess, StopKillsAChildThatIgnoresSigterm) {
  auto child = ChildProcess::spawn(shell("trap '' TERM; echo READY; while true; do sleep 1; done"));
  ASSERT_TRUE(child.ok());
  ASSERT_TRUE((*child)->wait_ready_line(std::chrono::steady_clock::now() + 10s).ok());
  const pid_t pid = (*child)->pid();
  (*child)->stop(200ms);
  EXPECT_FALSE((*child)->running());
  EXPECT_NE(::kill(pid, 0), 0);  // gone (and reaped)
  EXPECT_NE((*child)->exit_description().find("signal 9"), std::string::npos);
}

TEST(ChildProcess, AMissingExecutableIsAClearError) {
  SpawnOptions options = shell("");
  options.executable = "/nonexistent/router";
  auto child = ChildProcess::spawn(options);
  ASSERT_FALSE(child.ok());
  EXPECT_NE(child.message().find("not found"), std::string::npos);
}

}  // namespace
}  // namespace benchgate::processes
