// A child whose exec fails (a file the kernel cannot execute, started by its path or from a
// pinned descriptor) ends with _exit: it runs none of the orchestrator's atexit handlers and
// static destructors, which the fork copied. Boost 1.81's launcher calls exit(), which ran them
// in the child: the process guard's (process_guard.cc) among them, which takes a mutex another
// thread of the parent may have held at the fork.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "orchestrator/processes/child_process.h"
#include "orchestrator/processes/pinned_programs.h"
#include "process_log.h"

namespace benchgate::processes {
namespace {

namespace fs = std::filesystem;

const test_support::ProcessLog exec_failure_log("benchgate-exec-failure-test-");

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
  // its errno, before the child ends: the child is the test's only child that ends), and
  // finds no marker of the atexit handler.
  void expect_no_exit_handlers_in_the_child() {
    SpawnOptions options;
    options.name = "garbage child";
    options.executable = program();
    options.stderr_log = exec_failure_log.path();
    options.capture_stdout = false;
    auto child = ChildProcess::spawn(options);
    ASSERT_FALSE(child.ok());
    siginfo_t ended{};
    ASSERT_EQ(::waitid(P_ALL, 0, &ended, WEXITED), 0);
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
