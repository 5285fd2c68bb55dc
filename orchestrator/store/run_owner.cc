// Run ownership tokens (run_owner.h).
#include "orchestrator/store/run_owner.h"

#include <unistd.h>

#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

namespace benchgate::store {
namespace {

std::mutex& instances_mutex() {
  static std::mutex m;
  return m;
}

std::set<uint64_t>& live_instances() {
  static std::set<uint64_t> s;
  return s;
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "unknown";
  return buf;
}

// Field 22 of /proc/PID/stat (start time in clock ticks since boot): with the pid it names a
// process uniquely, even after the pid is reused. 0 when the process does not exist or has
// exited: a zombie (state Z, its parent has not reaped it yet) keeps its pid and start time
// but measures nothing, so its runs are abandoned as a reaped process's are.
uint64_t process_start_ticks(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return 0;
  // The command name (field 2) is in parentheses and may contain spaces: skip past the last ')'.
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(line.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22; ++i) {
    if (!(rest >> field)) return 0;
    if (i == 3 && (field == "Z" || field == "X")) return 0;  // exited, not yet reaped
  }
  try {
    return std::stoull(field);
  } catch (...) {
    return 0;
  }
}

}  // namespace

uint64_t register_instance() {
  static uint64_t next = 1;
  std::lock_guard lock(instances_mutex());
  const uint64_t id = next++;
  live_instances().insert(id);
  return id;
}

void release_instance(uint64_t instance) {
  std::lock_guard lock(instances_mutex());
  live_instances().erase(instance);
}

std::string owner_token(uint64_t instance) {
  const long pid = static_cast<long>(getpid());
  return host_name() + "/" + std::to_string(pid) + "/" + std::to_string(process_start_ticks(pid)) +
         "/" + std::to_string(instance);
}

bool owner_alive(const std::string& token) {
  // Parse from the right: a host name contains no '/', but be strict anyway.
  const size_t p3 = token.rfind('/');
  if (p3 == std::string::npos || p3 == 0) return false;
  const size_t p2 = token.rfind('/', p3 - 1);
  if (p2 == std::string::npos || p2 == 0) return false;
  const size_t p1 = token.rfind('/', p2 - 1);
  if (p1 == std::string::npos) return false;
  const std::string host = token.substr(0, p1);
  long pid = 0;
  uint64_t start = 0;
  uint64_t instance = 0;
  try {
    pid = std::stol(token.substr(p1 + 1, p2 - p1 - 1));
    start = std::stoull(token.substr(p2 + 1, p3 - p2 - 1));
    instance = std::stoull(token.substr(p3 + 1));
  } catch (...) {
    return false;
  }
  if (host != host_name() || pid <= 0) return false;
  if (process_start_ticks(pid) != start || start == 0) return false;
  if (pid == static_cast<long>(getpid())) {
    std::lock_guard lock(instances_mutex());
    return live_instances().count(instance) != 0;
  }
  return true;
}

}  // namespace benchgate::store
