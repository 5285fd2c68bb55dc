// A child whose exec fails (a file the kernel cannot execute, started by its path or from a
// pinned descriptor) ends with _exit: it runs none of the orchestrator's atexit handlers and
// static destructors, which the fork copied. Boost 1.81's launcher calls exit(), which ran them
// in the child: the process guard's (process_guard.cc) among them, which takes a mutex another
// thread of the parent may have held at the fork.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "common/process/process_tree.h"
#include "orchestrator/processes/child_process.h"
#include "orchestrator/processes/pinned_programs.h"
#include "process_log.h"

namespace benchgate::processes {
namespace {

namespace fs = std::filesystem;

const test_support::ProcessLog exec_failure_log("benchgate-exec-failure-test-");

// This process's children, ended or not: a failed spawn's child is the one not there before.
std::set<pid_t> own_children() {
  std::set<pid_t> children;
  for (const auto& process : list_processes()) {
    if (process.ppid == ::getpid()) children.insert(process.pid);
  }
  return children;
}

pid_t test_pid = 0;
std::string* handler_marker = nullptr;  // the file an atexit handler run elsewhere appends to

// Registered in the test's process: it writes only where it runs in another one (a child).
void mark_foreign_exit() {
  if (::getpid() == test_pid || handler_marker == nullptr) return;
  std::ofstream(*handler_marker, std::ios::app) << "atexit ran in a child\n";
}

class ExecFailure : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "benchgate-exec-failure-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    // Executable, but neither ELF nor "#!": execve fails with ENOEXEC.
    std::ofstream(program()) << "not a program\n";
    fs::permissions(program(), fs::perms::owner_all);
    test_pid = ::getpid();
    marker_ = (dir_ / "atexit").string();
    handler_marker = &marker_;
    ASSERT_EQ(std::atexit(mark_foreign_exit), 0);
  }
  void TearDown() override {
    handler_marker = nullptr;
    fs::remove_all(dir_);
  }

  std::string program() const { return (dir_ / "garbage").string(); }

  // Spawns `program()`, waits for the child to end (the spawn fails once the child has sent
  // its errno, before the child ends), and finds no marker of the atexit handler. The child is
  // waited for by its pid, found as the one child that was not there before the spawn: a wait
  // for any child could take one another test of this process left, and look too early.
  void expect_no_exit_handlers_in_the_child() {
    SpawnOptions options;
    options.name = "garbage child";
    options.executable = program();
    options.stderr_log = exec_failure_log.path();
    options.capture_stdout = false;
    const std::set<pid_t> before = own_children();
    auto child = ChildProcess::spawn(options);
    ASSERT_FALSE(child.ok());
    std::set<pid_t> spawned;
    const std::set<pid_t> after = own_children();
    std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                        std::inserter(spawned, spawned.end()));
    ASSERT_EQ(spawned.size(), 1u);
    siginfo_t ended{};
    ASSERT_EQ(::waitid(P_PID, static_cast<id_t>(*spawned.begin()), &ended, WEXITED), 0);
    EXPECT_FALSE(fs::exists(marker_));
  }

  fs::path dir_;
  std::string marker_;
};

TEST_F(ExecFailure, AChildWhoseExecOfItsPathFailsRunsNoExitHandlerOfTheParent) {
  expect_no_exit_handlers_in_the_child();
}

TEST_F(ExecFailure, AChildWhoseExecOfAPinnedDescriptorFailsRunsNoExitHandlerOfTheParent) {
  PinnedPrograms pinned;
  pinned.pin(program());
  ASSERT_TRUE(pinned.install());
  expect_no_exit_handlers_in_the_child();
}

}  // namespace
}  // namespace benchgate::processes
