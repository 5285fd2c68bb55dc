// Who a run's workers said they were: the name and version their Describe answered
// (results::WorkloadResult::worker_name, stored from schema version 22), as every report shows
// them beside the run's binaries. Header-only, so that `runs show` (the history commands, which
// link no report code) writes the same lines as the Markdown and HTML reports.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "common/util/shown_list.h"

namespace benchgate::results {

// One workload's answer: its title ("rpc [new]"), and the name and version as stored (already
// escaped and cut); both empty where no worker answered.
struct WorkloadDescribed {
  std::string workload;
  std::string name;
  std::string version;
};

// Workload titles a line names at most.
inline constexpr size_t kDescribedWorkloadsShown = 10;

// One line per distinct answer, in the order first met: "benchgate-worker, version 0.4.0 (every
// workload)" when one answer covers every workload, else "kv-worker, version 1.2 (workloads
// rpc [a], pubsub [a])"; a workload no worker answered for is in no line. Empty when none did.
inline std::vector<std::string> described_workers(const std::vector<WorkloadDescribed>& all) {
  std::vector<std::pair<std::pair<std::string, std::string>, std::vector<std::string>>> answers;
  size_t answered = 0;
  for (const WorkloadDescribed& w : all) {
    if (w.name.empty() && w.version.empty()) continue;
    ++answered;
    auto key = std::make_pair(w.name, w.version);
    auto found = answers.begin();
    while (found != answers.end() && found->first != key) ++found;
    if (found == answers.end()) {
      answers.push_back({std::move(key), {}});
      found = answers.end() - 1;
    }
    found->second.push_back(w.workload);
  }
  std::vector<std::string> lines;
  for (const auto& [answer, workloads] : answers) {
    std::string line = (answer.first.empty() ? std::string("(no name)") : answer.first) +
                       ", version " +
                       (answer.second.empty() ? std::string("(none)") : answer.second);
    if (answers.size() == 1 && answered == all.size()) {
      lines.push_back(line + " (every workload)");
      continue;
    }
    ShownList names(kDescribedWorkloadsShown, ShownList::kItemBytes, ShownList::kBare);
    for (const std::string& workload : workloads) names.add(workload);
    lines.push_back(line + " (workload" + (workloads.size() == 1 ? " " : "s ") + names.text() +
                    ")");
  }
  return lines;
}

}  // namespace benchgate::results
