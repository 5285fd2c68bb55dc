// Matching a gate's `workload` (a name or a glob such as "wamp_*") against workload names.
#pragma once

#include <string>
#include <vector>

#include "orchestrator/scenario/scenario.h"

namespace benchgate::scenario {

// Whether the pattern has glob characters ('*', '?', '[').
bool is_glob(const std::string& pattern);

// Shell-style match of the whole name ('*', '?', '[abc]').
bool workload_matches(const std::string& pattern, const std::string& name);

// The names of the scenario's workloads a gate applies to, in file order.
std::vector<std::string> workloads_matching(const Scenario& scenario, const std::string& pattern);

}  // namespace benchgate::scenario
