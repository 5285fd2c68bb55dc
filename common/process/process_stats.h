// CPU time and resident memory of the calling process and thread (another process's whole
// tree: process_tree.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace benchgate {

struct CpuTimes {
  int64_t user_ns = 0;
  int64_t system_ns = 0;
};

// getrusage(RUSAGE_SELF): every thread of this process.
CpuTimes self_cpu_times();
// Resident set size of this process in bytes, from /proc/self/statm.
uint64_t self_rss_bytes();

// CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID), nanoseconds.
int64_t thread_cpu_ns();
// How long the calling thread has been runnable but waiting for a CPU since it started, in
// nanoseconds: the second field of /proc/thread-self/schedstat (the scheduler's run delay).
// nullopt where the kernel does not provide it (no CONFIG_SCHED_INFO, no /proc).
std::optional<int64_t> thread_run_delay_ns();
// The second field of a schedstat text ("run_ns delay_ns timeslices"), nullopt if malformed.
std::optional<int64_t> parse_schedstat_delay(const std::string& text);

}  // namespace benchgate
