#include "common/process/process_stats.h"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace benchgate {
namespace {

int64_t to_ns(const timeval& tv) {
  return static_cast<int64_t>(tv.tv_sec) * 1'000'000'000 + static_cast<int64_t>(tv.tv_usec) * 1000;
}

std::optional<uint64_t> rss_from_statm(const std::string& path) {
  std::ifstream in(path);
  uint64_t size_pages = 0;
  uint64_t resident_pages = 0;
  if (!(in >> size_pages >> resident_pages)) return std::nullopt;
  return resident_pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

CpuTimes self_cpu_times() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return {to_ns(usage.ru_utime), to_ns(usage.ru_stime)};
}

uint64_t self_rss_bytes() { return rss_from_statm("/proc/self/statm").value_or(0); }

int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::optional<int64_t> parse_schedstat_delay(const std::string& text) {
  std::istringstream in(text);
  int64_t run_ns = 0;
  int64_t delay_ns = 0;
  if (!(in >> run_ns >> delay_ns) || delay_ns < 0) return std::nullopt;
  return delay_ns;
}

std::optional<int64_t> thread_run_delay_ns() {
  std::ifstream in("/proc/thread-self/schedstat");
  std::string text;
  if (!std::getline(in, text)) return std::nullopt;
  return parse_schedstat_delay(text);
}

}  // namespace benchgate
