// Gate workload patterns: POSIX fnmatch on the whole workload name.
#include "orchestrator/scenario/workload_glob.h"

#include <fnmatch.h>

namespace benchgate::scenario {

bool is_glob(const std::string& pattern) {
  return pattern.find_first_of("*?[") != std::string::npos;
}

bool workload_matches(const std::string& pattern, const std::string& name) {
  return ::fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

std::vector<std::string> workloads_matching(const Scenario& scenario, const std::string& pattern) {
  std::vector<std::string> out;
  for (const Workload& w : scenario.workloads) {
    if (workload_matches(pattern, w.name)) out.push_back(w.name);
  }
  return out;
}

}  // namespace benchgate::scenario
