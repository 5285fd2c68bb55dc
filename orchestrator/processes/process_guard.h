// Nothing the orchestrator spawns outlives it, even when it is killed with SIGKILL (README,
// "Nothing left behind"). Three layers, because each covers what the one before cannot:
//
// - Process groups: every child leads its own group, and stopping a child kills the group, so
//   its helpers (nginx's worker processes) go with it.
// - A subreaper: the orchestrator is a child subreaper (PR_SET_CHILD_SUBREAPER), so a
//   grandchild whose parent exits is adopted by the orchestrator instead of init; at exit the
//   orchestrator kills whatever it adopted, also processes that left their group (setsid).
// - A guardian process, forked at start-up, outlives a SIGKILL of the orchestrator: it holds
//   the read end of a pipe whose EOF says the orchestrator is gone, and then kills every
//   process group the orchestrator recorded with it and, where the machine has cgroup v2 with
//   cgroup.kill and lets the orchestrator create a cgroup, everything in the run's cgroup.
//   Every child is started in a cgroup of its own below the run's, so a process that leaves
//   its group is still found; stopping a child also kills its cgroup.
//
// Without a usable cgroup v2, a process that leaves its process group (setsid, setpgid)
// survives a SIGKILL of the orchestrator; on any other exit of the orchestrator it is killed
// if it was adopted by then (its parent had exited).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <mutex>
#include <string>

namespace benchgate::processes {

// Makes the orchestrator a subreaper, creates the run's cgroup where possible, and forks the
// guardian. Call once, from main, before any thread starts (the guardian is a fork of this
// process and must not inherit a lock held by another thread). Until it is called, children
// still get their own process group and PR_SET_PDEATHSIG, nothing more. At exit (atexit) the
// orchestrator kills what it adopted, closes the pipe and waits for the guardian.
void start_process_guard();

// True when children are placed in cgroups (for messages and tests).
bool process_guard_uses_cgroup();

// What the guard keeps for one child. Created before the child is spawned.
class GuardedChild {
 public:
  GuardedChild();   // a cgroup of its own when the guard has one
  ~GuardedChild();  // release()
  GuardedChild(const GuardedChild&) = delete;
  GuardedChild& operator=(const GuardedChild&) = delete;

  // The open cgroup.procs of the child's cgroup (the child writes "0" to it between fork and
  // exec), or -1.
  int cgroup_procs_fd() const { return procs_fd_; }
  // The child's process group exists now: the guardian kills it if the orchestrator dies.
  void started(pid_t pgid);
  // The child has been stopped and reaped: kills what is left in its cgroup, removes the
  // cgroup and tells the guardian to forget the group. Idempotent.
  void release();

 private:
  std::filesystem::path cgroup_;
  int procs_fd_ = -1;
  pid_t pgid_ = -1;
};

// Reaps adopted processes that have exited (zombies that are no child the orchestrator
// spawned itself); ChildProcess calls it after stopping a child.
void reap_adopted();

// Held by ChildProcess::spawn from the fork until GuardedChild::started: a child that exits
// at once must not look adopted to reap_adopted() in another thread before it is known.
std::unique_lock<std::mutex> lock_spawning();

}  // namespace benchgate::processes
