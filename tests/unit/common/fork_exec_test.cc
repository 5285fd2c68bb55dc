// The pieces of a fork and exec that the orchestrator's spawn and the worker's tool runner share
// (common/process/fork_exec.h): the failed step's record through a pipe, and closing every
// descriptor but those kept, whatever order they are given in.
#include "common/process/fork_exec.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <string>

namespace benchgate::fork_exec {
namespace {

struct Pipe {
  std::array<int, 2> fds{-1, -1};
  explicit Pipe(int flags) { EXPECT_EQ(::pipe2(fds.data(), flags), 0); }
  ~Pipe() {
    for (const int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
  }
};

TEST(ForkExec, AFailedStepReadsAsItsNameAndItsErrno) {
  Pipe pipe(O_CLOEXEC);
  send_step_failure(pipe.fds[1], "setpgid", EPERM);
  const auto failure = receive_step_failure(pipe.fds[0]);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->error, EPERM);
  EXPECT_EQ(describe(*failure), "setpgid: operation not permitted");
}

TEST(ForkExec, AStepNameLongerThanTheRecordIsCutNotOverrun) {
  Pipe pipe(O_CLOEXEC);
  send_step_failure(pipe.fds[1], std::string(100, 'x').c_str(), ENOENT);
  const auto failure = receive_step_failure(pipe.fds[0]);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(describe(*failure),
            std::string(sizeof failure->step - 1, 'x') + ": no such file or directory");
}

// The child exec'd (the close-on-exec pipe closed: end of file), or, on a non-blocking pipe,
// has sent nothing.
TEST(ForkExec, NoRecordIsNoFailure) {
  Pipe empty(O_CLOEXEC | O_NONBLOCK);
  EXPECT_FALSE(receive_step_failure(empty.fds[0]).has_value());
  Pipe closed(O_CLOEXEC);
  ::close(closed.fds[1]);
  closed.fds[1] = -1;
  EXPECT_FALSE(receive_step_failure(closed.fds[0]).has_value());
}

// In a forked child, as a spawn calls it: the kept descriptors (given out of order, one between
// two closed ones and one above them) stay open, every other is closed.
TEST(ForkExec, EveryDescriptorButTheKeptOnesIsClosed) {
  Pipe a(0), b(0), c(0);
  const int high = ::fcntl(a.fds[0], F_DUPFD, 700);
  ASSERT_GE(high, 700);
  const unsigned bound = descriptor_close_bound();
  const pid_t pid = ::fork();
  if (pid == 0) {
    int keep[] = {high, STDERR_FILENO, b.fds[0], STDIN_FILENO, STDOUT_FILENO};
    close_all_but(keep, sizeof keep / sizeof keep[0], bound);
    auto open = [](int fd) { return ::fcntl(fd, F_GETFD) != -1; };
    const bool kept = open(high) && open(b.fds[0]) && open(STDERR_FILENO);
    const bool closed =
        !open(a.fds[0]) && !open(a.fds[1]) && !open(b.fds[1]) && !open(c.fds[0]) && !open(c.fds[1]);
    ::_exit(kept && closed ? 0 : (kept ? 2 : 1));
  }
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ::close(high);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: a kept descriptor was closed; 2: another was left open";
}

}  // namespace
}  // namespace benchgate::fork_exec
