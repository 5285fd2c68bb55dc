// A child whose exec fails (a file the kernel cannot execute, started by its path or from a
// pinned descriptor) ends with _exit: it runs none of the orchestrator's atexit handlers and
// static destructors, which the fork copied. Boost 1.81's launcher calls exit(), which ran them
// in the child: the process guard's (process_guard.cc) among them, which takes a mutex another
// thread of the parent may have held at the fork. And the failed spawn waits for that child,
// whatever step of it failed: nothing else would.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "common/process/process_tree.h"
#include "orchestrator/processes/child_process.h"
#include "orchestrator/processes/pinned_programs.h"
#include "process_log.h"
#include "refuse_syscall.h"

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

  // Spawns `executable` (`program()` when empty), which fails, and returns the children of
  // this process the spawn left: those that were not there before it. Each is waited for by
  // its pid (a wait for any child could take one another test of this process left), so that
  // what it ran has ended when the caller looks for its traces.
  std::set<pid_t> children_left_by_failed_spawn(const std::string& executable = "") {
    SpawnOptions options;
    options.name = "garbage child";
    options.executable = executable.empty() ? program() : executable;
    options.stderr_log = exec_failure_log.path();
    options.capture_stdout = false;
    const std::set<pid_t> before = own_children();
    auto child = ChildProcess::spawn(options);
    std::set<pid_t> left;
    const std::set<pid_t> after = own_children();
    std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                        std::inserter(left, left.end()));
    for (const pid_t pid : left) {
      siginfo_t ended{};
      ::waitid(P_PID, static_cast<id_t>(pid), &ended, WEXITED);
    }
    EXPECT_FALSE(child.ok());
    if (!child.ok()) message_ = child.message();
    return left;
  }

  // Ends a death test's child, with what TearDown would remove removed (_Exit runs nothing).
  [[noreturn]] void finish(int code) {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
    fs::remove(exec_failure_log.path(), ignored);
    std::_Exit(code);
  }

  fs::path dir_;
  std::string marker_;
  std::string message_;  // the failed spawn's error
};

TEST_F(ExecFailure, AChildWhoseExecOfItsPathFailsRunsNoExitHandlerOfTheParent) {
  children_left_by_failed_spawn();
  EXPECT_FALSE(fs::exists(marker_));
}

TEST_F(ExecFailure, AChildWhoseExecOfAPinnedDescriptorFailsRunsNoExitHandlerOfTheParent) {
  PinnedPrograms pinned;
  pinned.pin(program());
  ASSERT_TRUE(pinned.install());
  children_left_by_failed_spawn();
  EXPECT_FALSE(fs::exists(marker_));
}

// The child that sent the errno of its failed exec is waited for before the spawn returns its
// error: it was left a zombie, a child of the orchestrator that no ChildProcess knows.
TEST_F(ExecFailure, ASpawnWhoseExecFailsLeavesNoChild) {
  EXPECT_EQ(children_left_by_failed_spawn().size(), 0u);
  PinnedPrograms pinned;
  pinned.pin(program());
  ASSERT_TRUE(pinned.install());
  EXPECT_EQ(children_left_by_failed_spawn().size(), 0u);
}

// The error names the step that failed in the child, here the exec, and why: before, it was
// Boost's launcher's words for the errno alone.
TEST_F(ExecFailure, TheErrorNamesTheExecThatFailed) {
  children_left_by_failed_spawn();
  EXPECT_EQ(message_, "cannot start garbage child (" + program() + "): exec: exec format error");
  PinnedPrograms pinned;
  pinned.pin(program());
  ASSERT_TRUE(pinned.install());
  message_.clear();
  children_left_by_failed_spawn();
  EXPECT_EQ(message_, "cannot start garbage child (" + program() + "): exec: exec format error");
}

// A step between fork and exec that fails (setpgid, refused by a seccomp filter as a
// container's profile may) is named in the error with its errno.
TEST_F(ExecFailure, TheErrorNamesTheStepBeforeTheExecThatFailed) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        if (!test_support::refuse_syscall(__NR_setpgid)) finish(10);
        children_left_by_failed_spawn("/bin/true");
        if (message_ !=
            "cannot start garbage child (/bin/true): setpgid: operation not permitted") {
          std::fprintf(stderr, "message: %s\n", message_.c_str());
          finish(11);
        }
        finish(0);
      },
      ::testing::ExitedWithCode(0), "");
}

// A child that fails before its setpgid (refused by a seccomp filter here) is still in the
// orchestrator's own process group, which reap_adopted leaves alone: it stayed a zombie until
// the orchestrator exited. In a death test's child: the filter stays for the process's life.
TEST_F(ExecFailure, ASpawnWhoseChildFailsBeforeItsOwnGroupLeavesNoChild) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        if (!test_support::refuse_syscall(__NR_setpgid)) finish(10);
        const std::set<pid_t> left = children_left_by_failed_spawn("/bin/true");
        finish(left.empty() ? 0 : 11);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace benchgate::processes
