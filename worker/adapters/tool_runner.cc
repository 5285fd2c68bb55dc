#include "worker/adapters/tool_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>

#include "common/process/fork_exec.h"
#include "common/util/errno_text.h"
#include "common/util/shown_text.h"

namespace benchgate::worker::adapters {
namespace {

using Clock = std::chrono::steady_clock;

// How often a running tool is checked for cancellation and its deadline.
constexpr int kPollMs = 20;

int64_t timeval_ns(const timeval& tv) {
  return static_cast<int64_t>(tv.tv_sec) * 1'000'000'000 + static_cast<int64_t>(tv.tv_usec) * 1000;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// What the child needs, prepared before the fork: nothing is allocated after it.
struct ChildPlan {
  char* const* argv;
  int out_fd;
  int err_fd;
  int step_fd;  // the close-on-exec pipe a failed step is reported through
  pid_t parent;
  unsigned close_bound;  // fork_exec::close_all_but's fallback bound
  const sigset_t* mask;  // the mask to run the tool with (none blocked)
};

[[noreturn]] void fail_step(const ChildPlan& plan, const char* step) {
  fork_exec::send_step_failure(plan.step_fd, step, errno);
  ::_exit(127);
}

// In the child between fork and exec: async-signal-safe calls only. Every signal is blocked
// (by the parent, around the fork) until the dispositions are back to their defaults, so no
// handler of the worker's runs in this copy of it; an ignored signal would stay ignored across
// the exec, and the worker ignores and blocks signals of its own.
[[noreturn]] void exec_child(const ChildPlan& plan) {
  fork_exec::default_signal_dispositions();
  // Its own group (the adapter kills what it leaves there), before it can start anything.
  if (::setpgid(0, 0) != 0) fail_step(plan, "setpgid");
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail_step(plan, "prctl(PR_SET_PDEATHSIG)");
  if (::getppid() != plan.parent) ::_exit(127);  // the parent died before prctl took effect
  const int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd < 0) fail_step(plan, "open /dev/null");
  if (::dup2(null_fd, STDIN_FILENO) < 0 || ::dup2(plan.out_fd, STDOUT_FILENO) < 0 ||
      ::dup2(plan.err_fd, STDERR_FILENO) < 0) {
    fail_step(plan, "dup2");
  }
  // Nothing of the worker's reaches the tool but its stdio; the step pipe is close-on-exec.
  int keep[] = {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO, plan.step_fd};
  fork_exec::close_all_but(keep, sizeof keep / sizeof keep[0], plan.close_bound);
  if (::sigprocmask(SIG_SETMASK, plan.mask, nullptr) != 0) fail_step(plan, "sigprocmask");
  ::execv(plan.argv[0], plan.argv);
  fail_step(plan, "exec");
}

// Why `argv` cannot be run, or nothing: a NUL would cut an argument short in the child.
std::optional<std::string> nul_in_argv(const std::vector<std::string>& argv) {
  for (size_t i = 0; i < argv.size(); ++i) {
    if (!fork_exec::holds_nul(argv[i])) continue;
    return "cannot start " + shown_text(argv[0]) + ": argv[" + std::to_string(i) + "] '" +
           shown_text(argv[i]) +
           "' holds a NUL byte (\\u0000), which no program argument can carry; it was not started";
  }
  return std::nullopt;
}

}  // namespace

Expected<ToolRun> run_tool(const std::vector<std::string>& argv, Clock::time_point deadline,
                           const std::function<bool()>& cancelled) {
  if (argv.empty()) return Error{"no command to run"};
  if (auto problem = nul_in_argv(argv)) return Error{*problem};
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  std::array<int, 2> out_pipe{-1, -1};
  std::array<int, 2> err_pipe{-1, -1};
  std::array<int, 2> step_pipe{-1, -1};
  auto close_pipes = [&] {
    for (auto* pipe : {&out_pipe, &err_pipe, &step_pipe}) {
      close_fd((*pipe)[0]);
      close_fd((*pipe)[1]);
    }
  };
  if (::pipe2(out_pipe.data(), O_CLOEXEC) != 0 || ::pipe2(err_pipe.data(), O_CLOEXEC) != 0 ||
      ::pipe2(step_pipe.data(), O_CLOEXEC) != 0) {
    const std::string why = errno_text(errno);
    close_pipes();
    return Error{"cannot create pipes for " + argv[0] + ": " + why};
  }
  sigset_t none;
  sigemptyset(&none);
  const ChildPlan plan{args.data(),  out_pipe[1], err_pipe[1],
                       step_pipe[1], ::getpid(),  fork_exec::descriptor_close_bound(),
                       &none};
  // Blocked around the fork: see exec_child.
  sigset_t all, previous;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &previous);
  const pid_t pid = ::fork();
  if (pid == 0) exec_child(plan);
  const int fork_error = errno;
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  close_fd(out_pipe[1]);
  close_fd(err_pipe[1]);
  close_fd(step_pipe[1]);
  if (pid < 0) {
    close_pipes();
    return Error{"cannot start " + argv[0] + ": fork: " + errno_text(fork_error)};
  }
  // Also from here, so a kill right after fork finds the group even if the child has not
  // run setpgid yet.
  ::setpgid(pid, pid);
  // Until the exec closes the pipe, or the child reports the step that failed and ends. It is
  // waited for here: nobody else would, and it would stay a zombie of the worker's.
  const std::optional<fork_exec::StepFailure> failed =
      fork_exec::receive_step_failure(step_pipe[0]);
  close_fd(step_pipe[0]);
  if (failed) {
    close_pipes();
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    return Error{"cannot start " + argv[0] + ": " + fork_exec::describe(*failed)};
  }

  ToolRun run;
  bool killed = false;
  auto kill_group = [&] {
    if (killed) return;
    killed = true;
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
  };
  // Whether the tool has ended, without reaping it: while it is a zombie its group id cannot
  // be reused, so the kill below can only reach helpers it left in its group. A wait that
  // fails (no such child) has nothing left to wait for.
  auto ended = [&] {
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT | WNOHANG) != 0) {
      return errno != EINTR;
    }
    return info.si_pid == pid;
  };
  std::array<std::string*, 2> sinks{&run.out, &run.err};
  std::array<int, 2> fds{out_pipe[0], err_pipe[0]};
  char buffer[16384];
  // Until its output is closed and it has ended: a tool may close its stdout and stderr and
  // run on, and the deadline and a cancel still hold for it.
  while (fds[0] >= 0 || fds[1] >= 0 || !ended()) {
    std::array<pollfd, 2> polled{};
    // A closed pipe is left out (poll skips a negative descriptor).
    for (size_t i = 0; i < 2; ++i) polled[i] = {fds[i], POLLIN, 0};
    const int ready = ::poll(polled.data(), polled.size(), kPollMs);
    if (ready < 0 && errno != EINTR) {
      // Nothing more can be read: the run ends with what was.
      kill_group();
      close_fd(fds[0]);
      close_fd(fds[1]);
    }
    for (size_t i = 0; i < 2 && ready > 0; ++i) {
      if (fds[i] < 0 || (polled[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t n = ::read(fds[i], buffer, sizeof buffer);
      if (n > 0) {
        const size_t room = kMaxCapturedBytes - std::min(kMaxCapturedBytes, sinks[i]->size());
        sinks[i]->append(buffer, std::min(room, static_cast<size_t>(n)));
      } else if (n == 0 || errno != EINTR) {
        close_fd(fds[i]);
      }
    }
    if (!killed && cancelled && cancelled()) {
      run.cancelled = true;
      kill_group();
    } else if (!killed && Clock::now() >= deadline) {
      run.timed_out = true;
      kill_group();
    }
  }
  close_fd(fds[0]);
  close_fd(fds[1]);

  ::kill(-pid, SIGKILL);
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
  run.cpu_user_ns = timeval_ns(usage.ru_utime);
  run.cpu_system_ns = timeval_ns(usage.ru_stime);
  return run;
}

std::string last_line(std::string_view text) {
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  const size_t start = text.rfind('\n');
  std::string_view line = start == std::string_view::npos ? text : text.substr(start + 1);
  while (!line.empty() && is_space(line.front())) line.remove_prefix(1);
  return std::string(line);
}

std::string describe_failure(std::string_view tool, const ToolRun& run) {
  std::string what(tool);
  if (run.cancelled) return what + " was stopped (the stream was cancelled)";
  if (run.timed_out) {
    what += " did not finish by its deadline and was killed";
  } else if (run.signal != 0) {
    what += " was killed by signal " + std::to_string(run.signal);
  } else {
    what += " exited with status " + std::to_string(run.exit_code);
  }
  std::string line = last_line(run.err);
  if (line.empty()) line = last_line(run.out);
  if (!line.empty()) what += ": " + line;
  return what;
}

}  // namespace benchgate::worker::adapters
