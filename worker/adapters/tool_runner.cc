#include "worker/adapters/tool_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

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

// In the child between fork and exec: async-signal-safe calls only.
[[noreturn]] void exec_child(char* const* argv, int out_fd, int err_fd, pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took effect
  ::setpgid(0, 0);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  const int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(err_fd, STDERR_FILENO);
  ::execv(argv[0], argv);
  ::_exit(127);
}

}  // namespace

Expected<ToolRun> run_tool(const std::vector<std::string>& argv, Clock::time_point deadline,
                           const std::function<bool()>& cancelled) {
  if (argv.empty()) return Error{"no command to run"};
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  std::array<int, 2> out_pipe{-1, -1};
  std::array<int, 2> err_pipe{-1, -1};
  if (::pipe2(out_pipe.data(), O_CLOEXEC) != 0 || ::pipe2(err_pipe.data(), O_CLOEXEC) != 0) {
    const std::string why = std::strerror(errno);
    for (int* fd : {&out_pipe[0], &out_pipe[1], &err_pipe[0], &err_pipe[1]}) close_fd(*fd);
    return Error{"cannot create pipes for " + argv[0] + ": " + why};
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) exec_child(args.data(), out_pipe[1], err_pipe[1], parent);
  close_fd(out_pipe[1]);
  close_fd(err_pipe[1]);
  if (pid < 0) {
    const std::string why = std::strerror(errno);
    close_fd(out_pipe[0]);
    close_fd(err_pipe[0]);
    return Error{"cannot start " + argv[0] + ": " + why};
  }
  // Also from here, so a kill right after fork finds the group even if the child has not
  // run setpgid yet.
  ::setpgid(pid, pid);

  ToolRun run;
  bool killed = false;
  auto kill_group = [&] {
    if (killed) return;
    killed = true;
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
  };
  std::array<std::string*, 2> sinks{&run.out, &run.err};
  std::array<int, 2> fds{out_pipe[0], err_pipe[0]};
  char buffer[16384];
  while (fds[0] >= 0 || fds[1] >= 0) {
    std::array<pollfd, 2> polled{};
    for (size_t i = 0; i < 2; ++i) polled[i] = {fds[i], POLLIN, 0};
    const int ready = ::poll(polled.data(), polled.size(), kPollMs);
    if (ready < 0 && errno != EINTR) break;
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

  // Wait for the tool without reaping it: while it is a zombie its group id cannot be reused,
  // so the kill below can only reach helpers it left in its group.
  siginfo_t info{};
  while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
  }
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
  } else if (run.exit_code == 127 && run.err.empty() && run.out.empty()) {
    what += " could not be executed";
  } else {
    what += " exited with status " + std::to_string(run.exit_code);
  }
  std::string line = last_line(run.err);
  if (line.empty()) line = last_line(run.out);
  if (!line.empty()) what += ": " + line;
  return what;
}

}  // namespace benchgate::worker::adapters
