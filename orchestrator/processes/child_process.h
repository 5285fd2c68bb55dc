// A child process the orchestrator owns: the router, a worker, or a command-line system
// under test. It runs in its own process group (so a terminal's Ctrl-C reaches only the
// orchestrator, which then stops children in order) and, where the process guard has one, in
// a cgroup of its own; it receives SIGKILL if the orchestrator dies (PR_SET_PDEATHSIG), and
// the guard's guardian process kills what it started (process_guard.h), so nothing outlives
// a run. Its stderr goes to a log file whose tail is quoted when the child fails.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/util/expected.h"
#include "orchestrator/processes/process_guard.h"

namespace benchgate::processes {

struct SpawnOptions {
  std::string name;                  // for messages: "router", "worker 2"
  std::filesystem::path executable;  // absolute, or found on PATH
  std::vector<std::string> args;     // argument vector; never passed to a shell
  std::filesystem::path stderr_log;  // where the child's stderr goes
  bool capture_stdout = true;        // read the READY line from stdout
  // "NAME=VALUE" added to the orchestrator's own. Like `executable` and `args`, refused by
  // spawn (naming the variable) when one holds a NUL byte, which a C string cannot carry.
  std::vector<std::string> environment;
};

class ChildProcess {
 public:
  static Expected<std::unique_ptr<ChildProcess>> spawn(const SpawnOptions& options);
  ~ChildProcess();  // stop(), if still running

  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Reads stdout until a line starting with "READY" and returns it, or fails when the
  // deadline passes, the child exits, or `interrupted()` becomes true. At the deadline the error
  // quotes what stdout last showed (a line, or a line with no newline yet) or says it showed
  // nothing, and that READY must be a line of its own on stdout, flushed. A line longer than
  // kMaxReadyLineBytes fails it at once, quoting its start: stdout is read a line at a time,
  // and one without an end would grow without bound.
  Expected<std::string> wait_ready_line(std::chrono::steady_clock::time_point deadline);
  static constexpr size_t kMaxReadyLineBytes = 65536;

  // True while the child has not exited (reaps it when it has).
  bool running();
  // True while the child is alive but stopped (SIGSTOP, SIGTSTP, a debugger): it answers
  // nothing until continued, so waiting on it is pointless.
  bool stopped() const;
  // True when the child was stopped at any moment since the previous call, even if it has
  // been continued since: waitpid reports each stop and continue of a child (WUNTRACED,
  // WCONTINUED) until it is collected, so a brief stop between two calls is not missed. A
  // window calls it before it starts (discarding what came before) and while it runs.
  bool stopped_since_last_call();
  // "exited with status 1" / "killed by signal 9 (Killed)" / "is running"; after
  // "(running nghttpd) " when the program it ended in is not the one it started (`sh -c 'exec
  // nghttpd ...'`), as far as Linux keeps a program's name (15 bytes of it, /proc/PID/comm).
  std::string exit_description();
  // SIGTERM (and SIGCONT, so a stopped child can act on it) to the child's process group,
  // up to `grace` to exit, then SIGKILL; reaps it; then SIGKILL to what is left of its group
  // and its cgroup.
  void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(3000));
  pid_t pid() const { return pid_; }
  const std::string& name() const { return name_; }
  // The last `max_bytes` of the child's stderr log, for error messages.
  std::string stderr_tail(size_t max_bytes = 2000) const;

 private:
  ChildProcess() = default;
  void reap(int status);
  // Whether the child has ended and is not reaped yet (waiting for it when `block`); if so,
  // keeps the name of the program it was running (ended_program_), which reaping loses.
  bool ended_unreaped(bool block);

  std::string name_;
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  std::string stdout_buffer_;
  std::string last_stdout_line_;  // the last line read before READY, for the error without it
  std::filesystem::path stderr_log_;
  std::optional<int> wait_status_;
  // The names the program spawned runs under: its file name, or for a pinned descriptor those
  // Linux may give it (names_from_descriptor, child_process.cc).
  std::vector<std::string> started_names_;
  std::string ended_program_;  // the program it was running when it ended, if read
  bool stop_seen_ = false;     // see stopped_since_last_call()
  std::unique_ptr<GuardedChild> guard_;
};

// Finds an executable regular file: an absolute or relative path as is, otherwise on PATH,
// whose empty entries are skipped (a shell would search the current folder there).
std::optional<std::filesystem::path> find_executable(const std::string& name);

// Why the file at `path` cannot be started as a program, in the words every check of a
// program's path uses (program_path_problem below, the orchestrator's check of --router-bin
// and --worker-bin, app/bundled_binary.h): "does not exist" (a missing file, or a file where a
// folder of the path should be), "is a folder, not a regular file", "is not a regular file",
// "is not executable" (no execute permission for this user), or what else stat(2) said;
// nothing when it can be started.
std::optional<std::string> program_file_problem(const std::string& path);

// Why a command's program written as a path (with a '/': never looked up on PATH) cannot be
// started: "the command's program 'PATH' " and program_file_problem's words ("does not
// exist", ...), a relative path naming the working directory it is resolved against, as the
// spawn resolves it ("'./b/router' (a relative path, resolved against the working directory
// /srv/ci) does not exist"); nothing when it can be started, or when `program` is a bare name.
// A scenario's path is a file it names, not a program that may be uninstalled: the caller fails
// its run with this (a `[router]`/`[routers.NAME]` command, a `[worker_impls.NAME]` command)
// rather than reporting not_configured, which fails nothing and lets a typo pass.
std::optional<std::string> program_path_problem(const std::string& program);

}  // namespace benchgate::processes
