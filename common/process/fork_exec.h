// Pieces of a fork and exec shared by the orchestrator's spawn (orchestrator/processes/
// child_process.cc) and the worker's tool runner (worker/adapters/tool_runner.cc), so that what
// one learned the other does too: refusing what an argv or environment entry cannot carry,
// closing the parent's descriptors in the child, and telling the parent which step before the
// exec failed. Functions marked "child" run between fork and exec, in a copy of a
// multithreaded process: they make async-signal-safe calls only and allocate nothing.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace benchgate::fork_exec {

// Whether `text` holds a NUL byte. An argv or environment entry is a C string: the child would
// get it cut short at the NUL, other than what was checked, so a spawn refuses it before the
// fork.
inline bool holds_nul(std::string_view text) { return text.find('\0') != std::string_view::npos; }

// Child: every signal's disposition back to the default. Handlers go at the exec anyway, but an
// ignored signal stays ignored across it: the orchestrator ignores SIGPIPE, and a program
// started so gets EPIPE where it would die of SIGPIPE.
void default_signal_dispositions();

// Parent, just before the fork: the bound up to which close_all_but closes descriptors one by
// one where close_range(2) fails in the child. Where close_range works (asked once per process)
// a fixed bound, without reading /proc/self/fd; otherwise the highest descriptor open now plus
// a margin for those other threads open meanwhile (they take the lowest free numbers).
unsigned descriptor_close_bound();

// Child: closes every descriptor but the `count` of `keep` (sorted here, in place).
// close_range(2) where the kernel has it and lets it run (5.9; a seccomp profile may refuse it
// with EPERM), otherwise one close(2) per descriptor up to `fallback_bound`, never the limit of
// open files, which a container may set to a billion.
void close_all_but(int* keep, size_t count, unsigned fallback_bound);

// What a child sends its parent, through a close-on-exec pipe, when a step before its exec or
// the exec itself fails: the step's name ("setpgid", "exec") and the errno.
struct StepFailure {
  int error = 0;
  char step[64] = {};  // NUL-terminated; the record stays far within PIPE_BUF
};

// Child: writes one StepFailure (`step` cut to fit) to `fd`, in a single write.
void send_step_failure(int fd, const char* step, int error);

// Parent: the StepFailure read from `fd`, or nothing when none came: end of file (the child
// exec'd, closing the pipe, or ended without sending one), or nothing to read yet on a
// non-blocking pipe.
std::optional<StepFailure> receive_step_failure(int fd);

// "setpgid: operation not permitted".
std::string describe(const StepFailure& failure);

}  // namespace benchgate::fork_exec
