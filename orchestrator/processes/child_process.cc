#include "orchestrator/processes/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

// Boost 1.81's Process v2 with std::filesystem (BOOST_PROCESS_USE_STD_FS) forgets these two
// includes; they must come first.
#include <boost/optional.hpp>
#include <type_traits>
// clang-format off
#include <boost/asio/io_context.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/stdio.hpp>
#include <boost/system/system_error.hpp>
// clang-format on
#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

#include "common/process/fork_exec.h"
#include "common/util/errno_text.h"
#include "common/util/shown_list.h"
#include "common/util/shown_text.h"
#include "orchestrator/app/interrupt.h"
#include "orchestrator/processes/pinned_programs.h"
#include "orchestrator/processes/process_guard.h"

namespace benchgate::processes {
namespace bp = boost::process::v2;
namespace asio = boost::asio;

namespace {

// Runs in the child between fork and exec: default signal dispositions and no signal blocked,
// its own process group and cgroup (before it can start anything), and death with the parent.
struct ChildSetup {
  pid_t parent;
  int cgroup_procs_fd;       // -1: no cgroup
  const char* const* env;    // the child's environment (prepared before the fork)
  int exec_fd = -1;          // a pinned program's descriptor (pinned_programs.h); -1: by its path
  unsigned close_bound = 0;  // fork_exec::close_all_but's fallback bound, set before the fork
  // The write end of a close-on-exec pipe through which the child names the step that failed
  // (fork_exec::send_step_failure): Boost's launcher sends the parent the errno alone.
  int step_fd = -1;
  bool* child_failed = nullptr;  // set in the parent when the child reported a failure
  // In the parent, before the fork: the descriptors are ones the child keeps until its exec,
  // and the fallback's bound is read (no /proc in the child: only async-signal-safe calls there).
  bp::error_code on_setup(bp::posix::default_launcher& launcher, const std::filesystem::path&,
                          const char* const*) {
    if (exec_fd >= 0) launcher.fd_whitelist.push_back(exec_fd);
    launcher.fd_whitelist.push_back(step_fd);
    close_bound = fork_exec::descriptor_close_bound();
    return {};
  }
  // In the child: names `step` to the parent, and returns the errno for Boost to send.
  bp::error_code failed(const char* step) const {
    const int error = errno;
    fork_exec::send_step_failure(step_fd, step, error);
    errno = error;  // what the launcher writes to its own pipe
    return {error, bp::system_category()};
  }
  bp::error_code on_exec_setup(bp::posix::default_launcher& launcher, const std::filesystem::path&,
                               const char* const* argv) {
    launcher.env = env;
    // The program starts with no signal ignored (the orchestrator ignores SIGPIPE) or blocked.
    fork_exec::default_signal_dispositions();
    sigset_t none;
    sigemptyset(&none);
    if (::sigprocmask(SIG_SETMASK, &none, nullptr) != 0) return failed("sigprocmask");
    if (::setpgid(0, 0) != 0) return failed("setpgid");
    if (cgroup_procs_fd >= 0 && ::write(cgroup_procs_fd, "0", 1) != 1) {
      return failed("the move into its cgroup (cgroup.procs)");
    }
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return failed("prctl(PR_SET_PDEATHSIG)");
    // The parent may have died between fork and prctl; then nobody would signal us.
    if (::getppid() != parent) ::_exit(1);
    // Nothing of the orchestrator's reaches the program but its stdio: the launcher keeps its
    // own error pipe (close-on-exec) and exec_fd (close-on-exec too) open until the exec. Not
    // Boost 1.81's close_all, which closes only those above the highest kept descriptor (it
    // compares each kept descriptor with itself, not with the next), leaving the ones between
    // two kept descriptors open.
    fork_exec::close_all_but(launcher.fd_whitelist.data(), launcher.fd_whitelist.size(),
                             close_bound);
    if (exec_fd < 0) return {};  // the launcher executes the path
    // The pinned file is executed here, not the path the launcher would. Only an error returns.
    ::execveat(exec_fd, "", const_cast<char* const*>(argv), const_cast<char* const*>(env),
               AT_EMPTY_PATH);
    return failed("exec");
  }
  // When the exec or a step before it fails, Boost's launcher sends the parent the errno and
  // then calls exit(), which would run the orchestrator's atexit handlers and static destructors
  // in this copy of it (the process guard's stop takes a mutex another thread may have held at
  // the fork, and kills what it takes for adopted children). A forked child ends with _exit.
  // Variadic: Boost 1.81 looks for this member with five arguments and calls it with four.
  template <typename... Ignored>
  void on_exec_error(bp::posix::default_launcher&, Ignored&&...) {
    ::_exit(EXIT_FAILURE);
  }
  // In the parent, when the spawn fails: after the fork, the child sent the errno of a step
  // before its exec or of the exec, and is ending (on_exec_error). Nobody else would wait for
  // it: it is no ChildProcess, and reap_adopted (run as another child stops, where the guard
  // runs) leaves the orchestrator's own group alone, where a child that failed before its
  // setpgid still is: that one stayed a zombie until the orchestrator exited. SIGKILL bounds
  // the wait, should it have got past its exec after all (the parent's read of the errno
  // failed).
  template <typename... Ignored>
  void on_error(bp::posix::default_launcher& launcher, Ignored&&...) {
    if (launcher.pid <= 0) return;  // no fork, or a failed one
    if (child_failed != nullptr) *child_failed = true;
    ::kill(launcher.pid, SIGKILL);
    while (::waitpid(launcher.pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
};

// The pipe a spawn's child names the step that failed through (ChildSetup::step_fd).
struct StepPipe {
  std::array<int, 2> fds{-1, -1};
  StepPipe() = default;
  StepPipe(const StepPipe&) = delete;
  StepPipe& operator=(const StepPipe&) = delete;
  ~StepPipe() {
    for (const int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
  }
};

// Why the launcher failed: the step the child named ("setpgid: operation not permitted"), or
// the exec where a child failed without naming one (the launcher's own exec of the path), or,
// where no child failed (no pipe, no fork), the launcher's words.
std::string spawn_failure(int step_fd, bool child_failed, const boost::system::system_error& e) {
  if (const auto step = fork_exec::receive_step_failure(step_fd)) return fork_exec::describe(*step);
  if (child_failed) return "exec: " + errno_text(e.code().value());
  return e.what();
}

// The names Linux may give a program started from descriptor `fd` (execveat(AT_EMPTY_PATH)):
// the opened file's own name since Linux 6.14 (python3.11 for a pinned /usr/bin/python3), the
// descriptor's number before. Known before the fork: the child's /proc/PID/comm read after the
// spawn may already name the program it exec'd next (a wrapper's `exec nghttpd`).
std::vector<std::string> names_from_descriptor(int fd) {
  std::vector<std::string> names = {std::to_string(fd)};
  std::error_code ec;
  std::string target = std::filesystem::read_symlink("/proc/self/fd/" + std::to_string(fd), ec);
  // An unlinked file's link reads "PATH (deleted)"; its name is PATH's.
  struct stat info {};
  constexpr std::string_view kDeleted = " (deleted)";
  if (!ec && ::fstat(fd, &info) == 0 && info.st_nlink == 0 && target.ends_with(kDeleted)) {
    target.resize(target.size() - kDeleted.size());
  }
  if (!ec) names.push_back(std::filesystem::path(target).filename().string());
  return names;
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
           ::strsignal(WTERMSIG(status)) + ")";
  }
  return "stopped";
}

// Why `options` cannot become an argv, or nothing: argv's entries are C strings, so a NUL would
// cut the program or an argument short, and the child would run other than what was checked
// (serve's admission compares whole arguments). Checked before anything is forked.
std::optional<std::string> nul_in_argv(const SpawnOptions& options) {
  // argv[0] is the program, argv[i] args[i - 1].
  for (size_t i = 0; i <= options.args.size(); ++i) {
    const std::string& arg = i == 0 ? options.executable.native() : options.args[i - 1];
    if (!fork_exec::holds_nul(arg)) continue;
    return "cannot start " + options.name + ": " +
           (i == 0 ? "its program '" : "argv[" + std::to_string(i) + "] '") + shown_text(arg) +
           "' holds a NUL byte (\\u0000), which no program argument can carry; it was not "
           "started";
  }
  return std::nullopt;
}

// Why an entry of `options.environment` cannot reach the child, or nothing: an environment
// entry is a C string as well, and the child would see the variable cut short.
std::optional<std::string> nul_in_environment(const SpawnOptions& options) {
  for (const std::string& entry : options.environment) {
    if (!fork_exec::holds_nul(entry)) continue;
    const size_t eq = entry.find('=');
    return "cannot start " + options.name + ": environment variable " +
           shown_text(entry.substr(0, eq)) + " '" +
           shown_text(eq == std::string::npos ? std::string() : entry.substr(eq + 1)) +
           "' holds a NUL byte (\\u0000), which no environment variable can carry; it was not "
           "started";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::filesystem::path> find_executable(const std::string& name) {
  // An executable regular file: a folder passes access(X_OK) too, and would be "found" where
  // the spawn then fails (and where the worker's lookup of a tool would go on searching).
  auto executable_file = [](const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) {
    if (executable_file(name)) return std::filesystem::absolute(name);
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;  // not the current folder (worker/adapters/tool.h alike)
    auto candidate = std::filesystem::path(dir) / name;
    if (executable_file(candidate.string())) return candidate;
  }
  return std::nullopt;
}

std::optional<std::string> program_file_problem(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    const int error = errno;
    return error == ENOENT || error == ENOTDIR ? "does not exist" : errno_text(error);
  }
  if (S_ISDIR(info.st_mode)) return "is a folder, not a regular file";
  if (!S_ISREG(info.st_mode)) return "is not a regular file";
  if (::access(path.c_str(), X_OK) != 0) return "is not executable";
  return std::nullopt;
}

std::optional<std::string> program_path_problem(const std::string& program) {
  if (program.find('/') == std::string::npos) return std::nullopt;
  const auto why = program_file_problem(program);
  if (!why) return std::nullopt;
  std::string where;
  if (program.front() != '/') {
    std::error_code ec;
    const auto cwd = std::filesystem::current_path(ec);
    where = " (a relative path, resolved against the working directory " +
            (ec ? std::string("of the orchestrator") : cwd.string()) + ")";
  }
  return "the command's program '" + program + "'" + where + " " + *why;
}

Expected<std::unique_ptr<ChildProcess>> ChildProcess::spawn(const SpawnOptions& options) {
  if (auto problem = nul_in_argv(options)) return Error{*problem};
  if (auto problem = nul_in_environment(options)) return Error{*problem};
  auto exe = find_executable(options.executable.string());
  if (!exe) {
    return Error{"cannot start " + options.name + ": executable '" + options.executable.string() +
                 "' not found"};
  }
  // A pinned program (pinned_programs.h) starts from the file that was checked. This copy holds
  // its descriptor open up to the exec, whatever the job's teardown does to the set meanwhile.
  const std::optional<PinnedFile> pinned = pinned_file(options.executable.string());
  if (pinned && pinned->fd < 0) {
    return Error{"cannot start " + options.name + ": '" + options.executable.string() +
                 "' could not be opened when its job started (" + pinned->problem + ")"};
  }
  if (pinned && pinned->script && !names_pinned_file(options.executable.string(), *pinned)) {
    return Error{"cannot start " + options.name + ": '" + options.executable.string() +
                 "' names another file now than the one checked when its job started; it was "
                 "not started"};
  }
  std::unique_ptr<ChildProcess> child(new ChildProcess());
  child->name_ = options.name;
  child->started_names_ = {exe->filename().string()};
  child->stderr_log_ = options.stderr_log;
  // The log is this child's alone: a file left by an earlier child of the same name (calibrate
  // runs a scenario again and again in one folder) is emptied, not written over from its
  // start, which would leave the old tail behind and quote it as this child's stderr.
  if (!options.stderr_log.empty()) {
    std::error_code ignored;
    std::filesystem::remove(options.stderr_log, ignored);
  }
  child->guard_ = std::make_unique<GuardedChild>();

  asio::io_context ctx;
  asio::readable_pipe out(ctx);
  std::optional<bp::process> proc;
  // The orchestrator's environment with the options' variables replacing any of their names.
  std::vector<std::string> env_strings;
  for (char** entry = environ; *entry; ++entry) {
    const std::string_view text(*entry);
    const bool replaced = std::any_of(
        options.environment.begin(), options.environment.end(), [&](const std::string& extra) {
          const auto eq = extra.find('=');
          return eq != std::string::npos && text.substr(0, eq + 1) == extra.substr(0, eq + 1);
        });
    if (!replaced) env_strings.emplace_back(text);
  }
  env_strings.insert(env_strings.end(), options.environment.begin(), options.environment.end());
  std::vector<const char*> env;
  for (const auto& entry : env_strings) env.push_back(entry.c_str());
  env.push_back(nullptr);
  // Not const: Boost calls on_exec_setup only on a mutable initializer (a const one would be
  // skipped without a word).
  ChildSetup setup{::getpid(), child->guard_->cgroup_procs_fd(), env.data()};
  // A script is started by its path, checked just above (pinned_programs.h).
  if (pinned && !pinned->script) {
    setup.exec_fd = pinned->fd;
    child->started_names_ = names_from_descriptor(pinned->fd);
  }
  // Non-blocking: the parent reads it only once the launcher said the child failed, and then
  // the child's StepFailure, if it sent one, is there already (sent before Boost's errno).
  StepPipe steps;
  if (::pipe2(steps.fds.data(), O_CLOEXEC | O_NONBLOCK) != 0) {
    return Error{"cannot start " + options.name + ": pipe: " + errno_text(errno)};
  }
  setup.step_fd = steps.fds[1];
  bool child_failed = false;
  setup.child_failed = &child_failed;
  auto spawning = lock_spawning();
  try {
    if (options.capture_stdout) {
      proc.emplace(ctx, *exe, options.args, bp::process_stdio{nullptr, out, options.stderr_log},
                   setup);
    } else {
      proc.emplace(ctx, *exe, options.args, bp::process_stdio{nullptr, nullptr, options.stderr_log},
                   setup);
    }
  } catch (const boost::system::system_error& e) {
    return Error{"cannot start " + options.name + " (" + exe->string() +
                 "): " + spawn_failure(steps.fds[0], child_failed, e)};
  } catch (const std::exception& e) {
    return Error{"cannot start " + options.name + " (" + exe->string() + "): " + e.what()};
  }
  child->pid_ = proc->id();
  child->guard_->started(child->pid_);
  spawning.unlock();
  // The orchestrator reaps and signals the child itself (waitpid, kill on the group), so
  // the Boost handle is detached instead of terminating the child when it goes out of scope.
  proc->detach();
  if (options.capture_stdout) {
    child->stdout_fd_ = out.release();
    ::fcntl(child->stdout_fd_, F_SETFL, ::fcntl(child->stdout_fd_, F_GETFL) | O_NONBLOCK);
  }
  return child;
}

ChildProcess::~ChildProcess() {
  stop();
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
}

namespace {

constexpr const char* kReadyRule =
    "READY grpc=HOST:PORT must be a line of its own on stdout, flushed at once";

// Text a child printed, as these messages quote it: its start, cut and escaped.
std::string shown_stdout(const std::string& text) { return "'" + shown_cut(text, 120) + "'"; }

// What stdout showed of a child that printed no READY line, and where READY must go: a worker
// that prints it to a pipe without flushing (Python's print, C's stdio) holds it in a buffer.
std::string no_ready_hint(const std::string& last_line, const std::string& unfinished) {
  const std::string rule = kReadyRule;
  if (!unfinished.empty()) {
    return " (its stdout ends with " + shown_stdout(unfinished) + " and no line break: " + rule +
           ")";
  }
  if (!last_line.empty())
    return " (the last line on its stdout was " + shown_stdout(last_line) + "; " + rule + ")";
  return " (nothing came on its stdout: " + rule + ", not on stderr)";
}

}  // namespace

Expected<std::string> ChildProcess::wait_ready_line(
    std::chrono::steady_clock::time_point deadline) {
  if (stdout_fd_ < 0) return Error{name_ + ": stdout is not captured"};
  while (true) {
    auto newline = stdout_buffer_.find('\n');
    while (newline != std::string::npos) {
      std::string line = stdout_buffer_.substr(0, newline);
      stdout_buffer_.erase(0, newline + 1);
      if (line.rfind("READY", 0) == 0) return line;
      last_stdout_line_ = std::move(line);
      newline = stdout_buffer_.find('\n');
    }
    // A line is kept whole until it ends: one that never does (megabytes with no line break)
    // would grow the buffer without bound, and no READY line is that long.
    if (stdout_buffer_.size() > kMaxReadyLineBytes) {
      return Error{name_ + " printed more than " + std::to_string(kMaxReadyLineBytes) +
                       " bytes on its stdout with no line break and no READY (they begin with " +
                       shown_stdout(stdout_buffer_) + "; " + kReadyRule + ")",
                   ErrorKind::kFailed, stderr_tail()};
    }
    if (app::interrupted()) {
      return Error{"interrupted while waiting for " + name_, ErrorKind::kInterrupted};
    }
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      return Error{name_ + " did not print READY before its deadline" +
                       no_ready_hint(last_stdout_line_, stdout_buffer_),
                   ErrorKind::kFailed, stderr_tail()};
    }
    pollfd pfd{stdout_fd_, POLLIN, 0};
    auto wait_ms = std::min<int64_t>(
        100, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1);
    ::poll(&pfd, 1, static_cast<int>(wait_ms));
    char buf[4096];
    ssize_t n = ::read(stdout_fd_, buf, sizeof buf);
    if (n > 0) {
      stdout_buffer_.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
      // stdout closed: the child exited (or closed it) without a READY line.
      for (int i = 0; i < 50 && running(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      return Error{name_ + " " + exit_description() + " before it was ready", ErrorKind::kFailed,
                   stderr_tail()};
    }
  }
}

void ChildProcess::reap(int status) { wait_status_ = status; }

bool ChildProcess::ended_unreaped(bool block) {
  siginfo_t info{};
  const int options = WEXITED | WNOWAIT | (block ? 0 : WNOHANG);
  if (::waitid(P_PID, static_cast<id_t>(pid_), &info, options) != 0 || info.si_pid != pid_) {
    return false;
  }
  // A zombie keeps its comm (the name of the program it last exec'd, cut to 15 bytes) until it
  // is reaped; its /proc/PID/exe and cmdline go with its memory when it exits.
  std::ifstream comm("/proc/" + std::to_string(pid_) + "/comm");
  std::string program;
  if (std::getline(comm, program)) ended_program_ = program;
  return true;
}

bool ChildProcess::running() {
  if (wait_status_ || pid_ <= 0) return false;
  if (ended_unreaped(false)) {
    int status = 0;
    if (::waitpid(pid_, &status, 0) == pid_) reap(status);
    return false;
  }
  // It may have ended since (then without its program's name), or be no child of ours.
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    reap(status);
    return false;
  }
  if (r < 0 && errno == ECHILD) {
    wait_status_ = 0;
    return false;
  }
  return true;
}

bool ChildProcess::stopped() const {
  if (wait_status_ || pid_ <= 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid_) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  // "PID (COMM) STATE ...": COMM may hold spaces and parentheses, so look after the last ')'.
  auto close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size()) return false;
  const char state = line[close + 2];
  return state == 'T' || state == 't';
}

bool ChildProcess::stopped_since_last_call() {
  if (wait_status_ || pid_ <= 0) return std::exchange(stop_seen_, false);
  // Collects every stop and continue reported since the last call; an exit ends the child.
  ended_unreaped(false);  // what it was running, before the loop reaps it
  while (true) {
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, WNOHANG | WUNTRACED | WCONTINUED);
    if (r != pid_) break;
    if (WIFSTOPPED(status) || WIFCONTINUED(status)) {
      stop_seen_ = true;
    } else {
      reap(status);
      break;
    }
  }
  // A traced child stops for its tracer, which is told instead of the parent.
  if (stopped()) stop_seen_ = true;
  return std::exchange(stop_seen_, false);
}

std::string ChildProcess::exit_description() {
  if (running()) return "is running";
  std::string running_text;
  // The kernel keeps 15 bytes of a program's name: a longer name that starts so is the same.
  constexpr size_t kCommBytes = 15;
  const bool started_so = std::any_of(
      started_names_.begin(), started_names_.end(),
      [&](const std::string& name) { return ended_program_ == name.substr(0, kCommBytes); });
  if (!ended_program_.empty() && !started_so) {
    // The child may have named itself (prctl(PR_SET_NAME)): its name is quoted escaped.
    running_text = "(running " + shown_text(ended_program_) + ") ";
  }
  return running_text + (wait_status_ ? describe_status(*wait_status_) : "exited");
}

void ChildProcess::stop(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return;
  if (running()) {
    ::kill(-pid_, SIGTERM);
    ::kill(-pid_, SIGCONT);  // a frozen child cannot act on SIGTERM
    auto deadline = std::chrono::steady_clock::now() + grace;
    while (running() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (running()) {
      ::kill(-pid_, SIGKILL);
      int status = 0;
      ended_unreaped(true);
      if (::waitpid(pid_, &status, 0) == pid_) reap(status);
    }
  }
  // Anything the child left in its process group goes too, and (where there is one) its
  // cgroup, which holds also what left the group.
  ::kill(-pid_, SIGKILL);
  if (guard_) guard_->release();
  reap_adopted();
}

std::string ChildProcess::stderr_tail(size_t max_bytes) const {
  std::ifstream in(stderr_log_, std::ios::binary | std::ios::ate);
  if (!in) return {};
  auto size = static_cast<size_t>(in.tellg());
  size_t start = size > max_bytes ? size - max_bytes : 0;
  in.seekg(static_cast<std::streamoff>(start));
  std::string tail(size - start, '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
  return tail;
}

}  // namespace benchgate::processes
