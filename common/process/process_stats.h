// CPU time and resident memory of the calling process, and of another process by pid
// (for systems under test that benchgate did not build).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>

namespace benchgate {

struct CpuTimes {
  int64_t user_ns = 0;
  int64_t system_ns = 0;
};

// getrusage(RUSAGE_SELF): every thread of this process.
CpuTimes self_cpu_times();
// Resident set size of this process in bytes, from /proc/self/statm.
uint64_t self_rss_bytes();

// The same for another process, from /proc/PID/stat and /proc/PID/statm; nullopt when the
// process is gone or unreadable.
std::optional<CpuTimes> process_cpu_times(pid_t pid);
std::optional<uint64_t> process_rss_bytes(pid_t pid);

}  // namespace benchgate
