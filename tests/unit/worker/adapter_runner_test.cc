// How run_tool starts a load tool (worker/adapters/tool_runner.cc), held to what the
// orchestrator's spawn does (orchestrator/processes/child_process.cc): nothing of the worker's
// reaches the tool but its stdio, an argument with a NUL is refused before anything starts, the
// tool starts with default signal dispositions and nothing blocked, a failed exec or step before
// it is an error naming that step (not a tool that "exited 127") and leaves no child, and the
// deadline holds even for a tool that closed its output.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "../orchestrator/processes/refuse_syscall.h"
#include "common/process/process_tree.h"
#include "worker/adapters/tool_runner.h"

namespace benchgate::worker::adapters {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class ToolRunnerSpawn : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "benchgate-tool-runner-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  // A descriptor of a file of this test's folder without close-on-exec, numbered `at_least` or
  // above: one the worker holds (a library's file) that must not reach the tool.
  int held_descriptor(int at_least) {
    const int fd = ::open((dir_ / "held").c_str(), O_RDWR | O_CREAT, 0600);
    if (fd < 0 || at_least <= fd) return fd;
    const int moved = ::fcntl(fd, F_DUPFD, at_least);
    ::close(fd);
    return moved;
  }

  fs::path dir_;
};

// This process's children, ended or not.
std::set<pid_t> own_children() {
  std::set<pid_t> children;
  for (const auto& process : list_processes()) {
    if (process.ppid == ::getpid()) children.insert(process.pid);
  }
  return children;
}

// The descriptors `ls` has open when the tool's shell starts it: 0, 1 (the pipe to tr), 2 and
// 3 (the folder it reads), and whatever else reached the tool.
std::string tool_descriptors() {
  auto run = run_tool({"/bin/sh", "-c", "ls /proc/self/fd | tr '\\n' ' '"},
                      std::chrono::steady_clock::now() + 30s, {});
  if (!run.ok()) return "no run: " + run.message();
  return run->out;
}

TEST_F(ToolRunnerSpawn, NoDescriptorOfTheWorkerReachesTheToolButItsStdio) {
  const int low = held_descriptor(0);
  const int high = held_descriptor(900);
  ASSERT_GE(low, 0);
  ASSERT_GE(high, 900);
  EXPECT_EQ(tool_descriptors(), "0 1 2 3 ");
  ::close(low);
  ::close(high);
}

TEST_F(ToolRunnerSpawn, AnArgumentHoldingANulIsRefusedBeforeAnythingStarts) {
  const std::set<pid_t> before = own_children();
  auto run = run_tool({"/bin/echo", "a", std::string("b\0c", 3)},
                      std::chrono::steady_clock::now() + 30s, {});
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.message(),
            "cannot start /bin/echo: argv[2] 'b\\x00c' holds a NUL byte (\\u0000), which no "
            "program argument can carry; it was not started");
  EXPECT_EQ(own_children(), before);
}

TEST_F(ToolRunnerSpawn, AMissingProgramIsAnErrorNamingTheExecAndLeavesNoChild) {
  const std::set<pid_t> before = own_children();
  auto run = run_tool({(dir_ / "missing").string()}, std::chrono::steady_clock::now() + 30s, {});
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.message(),
            "cannot start " + (dir_ / "missing").string() + ": exec: no such file or directory");
  EXPECT_EQ(own_children(), before);
}

TEST_F(ToolRunnerSpawn, AFileTheKernelCannotExecuteIsAnErrorNamingTheExec) {
  const std::string garbage = (dir_ / "garbage").string();
  std::ofstream(garbage) << "not a program\n";
  fs::permissions(garbage, fs::perms::owner_all);
  const std::set<pid_t> before = own_children();
  auto run = run_tool({garbage}, std::chrono::steady_clock::now() + 30s, {});
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.message(), "cannot start " + garbage + ": exec: exec format error");
  EXPECT_EQ(own_children(), before);
}

// The worker ignores and blocks signals of its own (SIGTERM and SIGINT are blocked for
// sigwait); an ignored signal stays ignored across exec, so the tool would inherit it.
TEST_F(ToolRunnerSpawn, TheToolStartsWithDefaultSignalDispositionsAndNothingBlocked) {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction old_usr1 {};
  ASSERT_EQ(::sigaction(SIGUSR1, &ignore, &old_usr1), 0);
  sigset_t blocked, old_mask;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGUSR2);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &blocked, &old_mask), 0);
  auto run = run_tool({"/bin/grep", "-E", "^Sig(Ign|Blk):", "/proc/self/status"},
                      std::chrono::steady_clock::now() + 30s, {});
  ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  ::sigaction(SIGUSR1, &old_usr1, nullptr);
  ASSERT_TRUE(run.ok()) << run.message();
  EXPECT_EQ(run->out, "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
}

// A tool that closed its stdout and stderr (as a daemon does) but runs on: the runner stopped
// reading and then waited for it with no deadline.
TEST_F(ToolRunnerSpawn, AToolThatClosedItsOutputIsStillKilledAtTheDeadline) {
  auto run = run_tool({"/bin/sh", "-c", "exec >&- 2>&-; sleep 5"},
                      std::chrono::steady_clock::now() + 300ms, {});
  ASSERT_TRUE(run.ok()) << run.message();
  EXPECT_TRUE(run->timed_out);
  EXPECT_EQ(run->signal, SIGKILL);
}

TEST_F(ToolRunnerSpawn, AToolThatClosedItsOutputIsStillStoppedWhenCancelled) {
  int polls = 0;
  auto run = run_tool({"/bin/sh", "-c", "exec >&- 2>&-; sleep 5"},
                      std::chrono::steady_clock::now() + 60s, [&] { return ++polls > 5; });
  ASSERT_TRUE(run.ok()) << run.message();
  EXPECT_TRUE(run->cancelled);
  EXPECT_EQ(run->signal, SIGKILL);
}

// A step between fork and exec that fails (setpgid, refused here by a seccomp filter as a
// container's profile may) is named in the error; the tool does not run outside its own group,
// where the adapter's kill of the group would not reach what it left. In a death test's child:
// the filter stays for the life of the process.
TEST_F(ToolRunnerSpawn, AStepBeforeTheExecThatFailsIsNamed) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        // The "threadsafe" style runs the test again in a new process, SetUp included, whose
        // TearDown never runs: its folder goes before each exit.
        const auto exit_with = [this](int code) {
          std::error_code ignored;
          fs::remove_all(dir_, ignored);
          std::_Exit(code);
        };
        if (!processes::test_support::refuse_syscall(__NR_setpgid)) exit_with(10);
        auto run = run_tool({"/bin/true"}, std::chrono::steady_clock::now() + 30s, {});
        if (run.ok()) exit_with(11);
        if (run.message() != "cannot start /bin/true: setpgid: operation not permitted") {
          std::fprintf(stderr, "message: %s\n", run.message().c_str());
          exit_with(12);
        }
        exit_with(0);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace benchgate::worker::adapters
