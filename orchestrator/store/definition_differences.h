// What changed between two definitions of a workload (store::workload_params_json text): the
// no_baseline verdict of a changed definition (gating/other_definition.h) and `orchestrator
// compare` (history/run_comparison.h) both name the changed parameters with it. In the store
// library (definition_differences.cc), on nlohmann::json alone.
#pragma once

#include <string>
#include <vector>

namespace benchgate::store {

// The parameters in which two definitions differ, a nested key as its dotted path, in key
// order, each with its value in both, labelled: "duration_ns (run 1: 1000000000, now:
// 1500000000)" for the labels "run 1" and "now". A key only one of them has shows "none" in the
// other; a value longer than 40 characters (a header map, a payload) is shortened, the key
// naming the change. Text that is no JSON object gives nothing.
std::vector<std::string> definition_differences(const std::string& before, const std::string& after,
                                                const std::string& before_label,
                                                const std::string& after_label);

}  // namespace benchgate::store
