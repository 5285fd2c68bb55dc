// The descriptors a spawned child has: its stdio and nothing else of the orchestrator's, wherever
// the orchestrator's own descriptors lie (below, between or above those the spawn keeps open
// until the exec) and whether close_range(2) works or not. Each child lists /proc/self/fd: ls's
// own are 0, 1 (the pipe to the READY reader), 2 and 3 (the folder it reads).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "orchestrator/processes/child_process.h"
#include "orchestrator/processes/pinned_programs.h"
#include "process_log.h"
#include "refuse_syscall.h"

namespace benchgate::processes {
namespace {

using namespace std::chrono_literals;

const test_support::ProcessLog descriptors_test_log("benchgate-descriptors-test-");

// A shell that prints "READY " and the descriptors it has open.
SpawnOptions descriptor_lister() {
  SpawnOptions options;
  options.name = "descriptor lister";
  options.executable = "/bin/sh";
  options.args = {"-c", "echo \"READY $(ls /proc/self/fd | tr '\\n' ' ')\""};
  options.stderr_log = descriptors_test_log.path();
  return options;
}

// The READY line of a descriptor lister, or why there is none.
std::string listed_descriptors() {
  auto child = ChildProcess::spawn(descriptor_lister());
  if (!child.ok()) return "no child: " + child.message();
  auto line = (*child)->wait_ready_line(std::chrono::steady_clock::now() + 10s);
  return line.ok() ? *line : "no READY line: " + line.message();
}

// A descriptor of /dev/null without close-on-exec, numbered `at_least` or above.
int held_descriptor(int at_least) {
  const int fd = ::open("/dev/null", O_RDONLY);
  if (fd < 0 || at_least <= fd) return fd;
  const int moved = ::fcntl(fd, F_DUPFD, at_least);
  ::close(fd);
  return moved;
}

TEST(ChildProcess, NoDescriptorOfTheOrchestratorReachesTheChildButItsStdio) {
  // One the orchestrator holds without close-on-exec (as a test runner's log, or a library's
  // file), below the descriptors the spawn opens for the child's stdio.
  const int held = held_descriptor(0);
  ASSERT_GE(held, 0);
  EXPECT_EQ(listed_descriptors(), "READY 0 1 2 3 ");
  ::close(held);
}

// Above every descriptor the spawn keeps until the exec (the launcher's error pipe), and
// between two of them: a pinned program's descriptor, opened first, and the error pipe, opened
// by the spawn after the held one.
TEST(ChildProcess, NoDescriptorBetweenOrAboveTheKeptOnesReachesTheChild) {
  PinnedPrograms pinned;
  pinned.pin("/bin/sh");
  ASSERT_TRUE(pinned.install());
  const int between = held_descriptor(0);
  const int above = held_descriptor(900);
  ASSERT_GE(between, 0);
  ASSERT_GE(above, 900);
  EXPECT_EQ(listed_descriptors(), "READY 0 1 2 3 ");
  ::close(between);
  ::close(above);
}

// Makes close_range(2) fail with EPERM in this process and what it starts, as an older
// container's seccomp profile does; false when the filter cannot be installed.
bool refuse_close_range() { return test_support::refuse_syscall(__NR_close_range); }

// Ends a death test's child with `code`, and "child saw: LINE" on stderr when the child's
// READY line was not `expected`. _Exit runs no destructor: the log (named by the pid) is
// removed first.
[[noreturn]] void finish(int code, const std::string& line = "") {
  if (!line.empty()) std::fprintf(stderr, "child saw: %s\n", line.c_str());
  std::error_code ignored;
  std::filesystem::remove(descriptors_test_log.path(), ignored);
  std::_Exit(code);
}

// Where close_range is refused (EPERM, not only ENOSYS), the child closes the descriptors one
// by one: before, it returned having closed none, and the held descriptor reached the program.
// In a child process: the filter stays for the life of the process that installed it.
TEST(ChildProcess, WhereCloseRangeIsRefusedTheDescriptorsAreClosedOneByOne) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        if (!refuse_close_range()) finish(10);
        if (::close_range(1000, 1000, 0) == 0 || errno != EPERM) finish(11);
        const int held = held_descriptor(0);
        const int above = held_descriptor(900);
        if (held < 0 || above < 900) finish(12);
        const std::string line = listed_descriptors();
        if (line != "READY 0 1 2 3 ") finish(13, line);
        finish(0);
      },
      ::testing::ExitedWithCode(0), "");
}

// The spawn asks once whether close_range works; a filter installed since (filters are only
// ever added) refuses it in the child all the same, which then closes descriptors one by one
// up to a bound it did not read from /proc.
TEST(ChildProcess, WhereCloseRangeIsRefusedAfterItWorkedTheDescriptorsAreStillClosed) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        const std::string first = listed_descriptors();
        if (first != "READY 0 1 2 3 ") finish(10, first);
        if (!refuse_close_range()) finish(11);
        const int held = held_descriptor(0);
        const int above = held_descriptor(900);
        if (held < 0 || above < 900) finish(12);
        const std::string line = listed_descriptors();
        if (line != "READY 0 1 2 3 ") finish(13, line);
        finish(0);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace benchgate::processes
