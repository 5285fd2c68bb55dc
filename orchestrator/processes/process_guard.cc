#include "orchestrator/processes/process_guard.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "common/process/process_tree.h"

namespace benchgate::processes {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct GuardState {
  std::mutex spawning;  // lock_spawning(); taken before `mutex` when both are
  std::mutex mutex;
  bool started = false;
  pid_t guardian = -1;
  int pipe_fd = -1;  // write end; its EOF tells the guardian the orchestrator is gone
  fs::path cgroup;   // the run's cgroup; empty when there is none
  std::atomic<uint64_t> next_child{0};
  std::set<pid_t> children;  // spawned children not yet released (never reaped here)
};

GuardState& state() {
  static GuardState* s = new GuardState();  // never destroyed: atexit and children use it
  return *s;
}

bool write_text(const fs::path& file, const std::string& text) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

// The folder of this process's cgroup v2, from /proc/self/mountinfo and /proc/self/cgroup.
fs::path own_cgroup_dir() {
  std::ifstream mounts("/proc/self/mountinfo");
  std::string line;
  std::string mount_root;
  std::string mount_point;
  while (std::getline(mounts, line)) {
    // "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS ... - FSTYPE SOURCE SUPER"
    const auto dash = line.find(" - ");
    if (dash == std::string::npos || line.compare(dash + 3, 8, "cgroup2 ") != 0) continue;
    std::istringstream fields(line.substr(0, dash));
    std::string id, parent, dev;
    fields >> id >> parent >> dev >> mount_root >> mount_point;
    break;
  }
  if (mount_point.empty()) return {};
  std::ifstream groups("/proc/self/cgroup");
  while (std::getline(groups, line)) {
    if (line.rfind("0::", 0) != 0) continue;
    std::string path = line.substr(3);
    if (mount_root != "/" && path.rfind(mount_root, 0) == 0) path = path.substr(mount_root.size());
    return fs::path(mount_point) / fs::path(path).relative_path();
  }
  return {};
}

// Removes the empty cgroups of orchestrators that are gone (killed together with their
// guardian, which would have removed them). A live one keeps its own: its pid exists.
void remove_stale_cgroups(const fs::path& parent) {
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("benchgate-", 0) != 0) continue;
    const std::string digits = name.substr(10);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t owner = static_cast<pid_t>(std::atol(digits.c_str()));
    if (owner <= 0 || ::kill(owner, 0) == 0 || errno != ESRCH) continue;
    std::error_code child_ec;
    for (fs::directory_iterator c(it->path(), child_ec), cend; !child_ec && c != cend;
         c.increment(child_ec)) {
      if (c->is_directory(child_ec)) ::rmdir(c->path().c_str());  // fails while populated
    }
    ::rmdir(it->path().c_str());
  }
}

// Creates the run's cgroup and checks that a process can join it (a cgroup whose parent
// runs controllers, or one the user may not write, refuses members). Empty when unusable.
fs::path make_run_cgroup() {
  const fs::path parent = own_cgroup_dir();
  if (parent.empty()) return {};
  remove_stale_cgroups(parent);
  const fs::path dir = parent / ("benchgate-" + std::to_string(::getpid()));
  if (::mkdir(dir.c_str(), 0755) != 0) return {};
  bool usable = fs::exists(dir / "cgroup.kill");
  if (usable) {
    const pid_t probe = ::fork();
    if (probe == 0) ::_exit(write_text(dir / "cgroup.procs", "0") ? 0 : 1);
    int status = 0;
    usable = probe > 0 && ::waitpid(probe, &status, 0) == probe && WIFEXITED(status) &&
             WEXITSTATUS(status) == 0;
  }
  if (!usable) {
    ::rmdir(dir.c_str());
    return {};
  }
  return dir;
}

bool populated(const fs::path& cgroup) {
  std::ifstream events(cgroup / "cgroup.events");
  std::string key;
  int value = 0;
  while (events >> key >> value) {
    if (key == "populated") return value != 0;
  }
  return false;
}

// SIGKILL to every process in the cgroup and below it, a bounded wait until it is empty (a
// killed process leaves its cgroup when it has exited), then the folders go.
void kill_cgroup(const fs::path& cgroup) {
  write_text(cgroup / "cgroup.kill", "1");
  const auto until = std::chrono::steady_clock::now() + 2s;
  while (populated(cgroup) && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(5ms);
  }
  std::error_code ec;
  for (fs::directory_iterator it(cgroup, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec)) ::rmdir(it->path().c_str());
  }
  ::rmdir(cgroup.c_str());
}

// The guardian: waits for EOF on `fd`, then kills what the orchestrator left. It runs in a
// group of its own (a terminal's Ctrl-C is for the orchestrator, which then stops its
// children itself) and ignores the signals that ask a process to stop, since stopping before
// the orchestrator would leave nobody to clean up; SIGKILL still ends it.
[[noreturn]] void guardian_main(int fd, const fs::path& cgroup) {
  ::setpgid(0, 0);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU}) {
    ::signal(sig, SIG_IGN);
  }
  ::prctl(PR_SET_NAME, "benchgate-guard");
  // Hold nothing of the orchestrator's: no terminal, no pipe a caller waits on for EOF.
  // The pipe moves to fd 3 first: it may be 0, 1 or 2 when the orchestrator started with one
  // of them closed.
  if (fd != 3) ::dup2(fd, 3);
  fd = 3;
  const int null = ::open("/dev/null", O_RDWR);
  for (int std_fd = 0; std_fd <= 2; ++std_fd) {
    if (std_fd != null) ::dup2(null, std_fd);
  }
  ::close_range(4, ~0U, 0);
  std::set<pid_t> groups;
  std::string pending;
  char buf[512];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buf, static_cast<size_t>(n));
    size_t newline;
    while ((newline = pending.find('\n')) != std::string::npos) {
      const std::string message = pending.substr(0, newline);
      pending.erase(0, newline + 1);
      if (message.size() < 2) continue;
      const pid_t pgid = static_cast<pid_t>(std::atoi(message.c_str() + 1));
      if (pgid <= 1) continue;
      if (message[0] == '+') groups.insert(pgid);
      if (message[0] == '-') groups.erase(pgid);
    }
  }
  for (pid_t pgid : groups) ::kill(-pgid, SIGKILL);
  if (!cgroup.empty()) kill_cgroup(cgroup);
  ::_exit(0);
}

void send_to_guardian(char kind, pid_t pgid) {
  auto& s = state();
  if (s.pipe_fd < 0) return;
  const std::string message = kind + std::to_string(pgid) + "\n";  // < PIPE_BUF: atomic
  (void)!::write(s.pipe_fd, message.data(), message.size());
}

// Processes this orchestrator adopted as a subreaper: its children that it did not spawn
// through ChildProcess (or that are not released yet, when `include_children`), other than
// the guardian and what runs in the orchestrator's own group (git, run and reaped in place).
std::vector<ProcessInfo> adopted(bool include_children) {
  auto& s = state();
  const pid_t self = ::getpid();
  const pid_t own_group = ::getpgrp();
  std::vector<ProcessInfo> out;
  for (const auto& p : list_processes()) {
    if (p.ppid != self || p.pid == s.guardian || p.pgid == own_group) continue;
    if (!include_children && s.children.count(p.pid)) continue;
    out.push_back(p);
  }
  return out;
}

void stop_process_guard() {
  auto& s = state();
  std::lock_guard lock(s.mutex);
  // Whatever is still a child now was adopted or never stopped: it goes, with its group.
  for (const auto& p : adopted(true)) {
    ::kill(p.pid, SIGKILL);
    if (p.pgid > 1 && p.pgid != ::getpgrp()) ::kill(-p.pgid, SIGKILL);
    ::waitpid(p.pid, nullptr, 0);
  }
  if (s.pipe_fd >= 0) {
    ::close(s.pipe_fd);
    s.pipe_fd = -1;
  }
  if (s.guardian > 0) {
    const auto until = std::chrono::steady_clock::now() + 3s;
    while (::waitpid(s.guardian, nullptr, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() >= until) {
        ::kill(s.guardian, SIGKILL);
        ::waitpid(s.guardian, nullptr, 0);
        break;
      }
      std::this_thread::sleep_for(2ms);
    }
    s.guardian = -1;
  }
}

}  // namespace

void start_process_guard() {
  auto& s = state();
  std::lock_guard lock(s.mutex);
  if (s.started) return;
  s.started = true;
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  s.cgroup = make_run_cgroup();
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return;  // no guardian: groups and PDEATHSIG remain
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[1]);
    guardian_main(fds[0], s.cgroup);
  }
  ::close(fds[0]);
  if (pid < 0) {
    ::close(fds[1]);
    return;
  }
  s.guardian = pid;
  s.pipe_fd = fds[1];
  std::atexit(stop_process_guard);
}

bool process_guard_uses_cgroup() { return !state().cgroup.empty(); }

GuardedChild::GuardedChild() {
  auto& s = state();
  if (s.cgroup.empty()) return;
  const fs::path dir = s.cgroup / ("child-" + std::to_string(s.next_child++));
  if (::mkdir(dir.c_str(), 0755) != 0) return;
  procs_fd_ = ::open((dir / "cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
  if (procs_fd_ < 0) {
    ::rmdir(dir.c_str());
    return;
  }
  cgroup_ = dir;
}

GuardedChild::~GuardedChild() { release(); }

void GuardedChild::started(pid_t pgid) {
  pgid_ = pgid;
  auto& s = state();
  {
    std::lock_guard lock(s.mutex);
    s.children.insert(pgid);
  }
  send_to_guardian('+', pgid);
}

void GuardedChild::release() {
  if (procs_fd_ >= 0) {
    ::close(procs_fd_);
    procs_fd_ = -1;
  }
  if (!cgroup_.empty()) {
    kill_cgroup(cgroup_);
    cgroup_.clear();
  }
  if (pgid_ > 0) {
    auto& s = state();
    {
      std::lock_guard lock(s.mutex);
      s.children.erase(pgid_);
    }
    send_to_guardian('-', pgid_);
    pgid_ = -1;
  }
}

std::unique_lock<std::mutex> lock_spawning() { return std::unique_lock(state().spawning); }

void reap_adopted() {
  auto& s = state();
  if (!s.started) return;
  std::lock_guard spawning(s.spawning);
  std::lock_guard lock(s.mutex);
  for (const auto& p : adopted(false)) {
    if (p.state == 'Z') ::waitpid(p.pid, nullptr, WNOHANG);
  }
}

}  // namespace benchgate::processes
