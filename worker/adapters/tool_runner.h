// Runs an external tool as an argument vector (never through a shell) and collects what it
// printed and the CPU it used. The child gets its own process group, SIGKILL when the thread
// that started it dies (PR_SET_PDEATHSIG), default signal dispositions and an unblocked mask
// (the worker blocks SIGTERM/SIGINT for sigwait), and no descriptor of the worker's but its
// stdio (common/process/fork_exec.h, as the orchestrator's children). Cancelling or passing
// the deadline kills the whole group, so no run outlives the call.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/expected.h"

namespace benchgate::worker::adapters {

struct ToolRun {
  int exit_code = -1;  // -1 when a signal ended it
  int signal = 0;      // the signal that ended it, else 0
  bool cancelled = false;
  bool timed_out = false;  // killed at the deadline
  std::string out;         // stdout (at most kMaxCapturedBytes; the rest is dropped)
  std::string err;         // stderr (likewise)
  // CPU the tool used (wait4's rusage of the child), nanoseconds.
  int64_t cpu_user_ns = 0;
  int64_t cpu_system_ns = 0;

  bool succeeded() const { return exit_code == 0 && !cancelled && !timed_out; }
};

inline constexpr size_t kMaxCapturedBytes = 4 << 20;

// `argv[0]` is the executable's path. `cancelled` is polled every few milliseconds while the
// tool runs; when it returns true the tool is killed and the run returns with `cancelled`.
// An error only when the process could not be started at all: an argument holding a NUL byte
// (refused before the fork, naming argv[N]), or a step between fork and exec that failed, the
// exec itself included ("cannot start /usr/bin/wrk: exec: no such file or directory"); a child
// that failed so is waited for before the error returns.
Expected<ToolRun> run_tool(const std::vector<std::string>& argv,
                           std::chrono::steady_clock::time_point deadline,
                           const std::function<bool()>& cancelled);

// The last non-empty line of `text` (trimmed), for error messages; "" when there is none.
std::string last_line(std::string_view text);

// One line saying how a failed run ended, quoting its last stderr (or stdout) line.
std::string describe_failure(std::string_view tool, const ToolRun& run);

}  // namespace benchgate::worker::adapters
