// The process tree of a system under test, read from /proc: CPU time and resident memory
// summed over a process and everything that belongs to it, because a server such as nginx
// serves from worker processes whose parent (the one benchgate spawned) does almost nothing.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

namespace benchgate {

// One process as /proc/PID/stat and /proc/PID/statm describe it.
struct ProcessInfo {
  pid_t pid = 0;
  pid_t ppid = 0;
  pid_t pgid = 0;
  char state = '?';                    // 'R', 'S', 'Z' (zombie), ...
  int64_t cpu_ns = 0;                  // utime + stime: its own threads
  int64_t waited_children_cpu_ns = 0;  // cutime + cstime: children it has waited for
  uint64_t rss_bytes = 0;              // resident pages * page size (0 for a zombie)
};

// One process, or nullopt when it is gone or unreadable. `proc` is the /proc folder (tests
// give a folder of their own).
std::optional<ProcessInfo> read_process(pid_t pid, const std::filesystem::path& proc = "/proc");
// Every readable process.
std::vector<ProcessInfo> list_processes(const std::filesystem::path& proc = "/proc");

// The tree of `root` within `all`: root itself, every descendant by parent links, and every
// member of root's process group with its descendants (a group member whose parent exited is
// adopted by the orchestrator, a subreaper, and would otherwise drop out). Root first; empty
// when root is not in `all`.
std::vector<ProcessInfo> process_tree(const std::vector<ProcessInfo>& all, pid_t root);

// A reading of a whole tree.
struct TreeUsage {
  // CPU time of the tree's processes and of the children they have waited for (so a member
  // that exits during a window and is reaped by its parent still counts), in nanoseconds.
  int64_t cpu_ns = 0;
  uint64_t rss_bytes = 0;  // the members' resident sets summed (shared pages once per process)
  size_t processes = 0;
};

// The usage of root's tree now, or nullopt when root is gone.
std::optional<TreeUsage> process_tree_usage(pid_t root,
                                            const std::filesystem::path& proc = "/proc");

}  // namespace benchgate
