// What a wrapped tool can express of a workload, and the command line that expresses it.
// Anything the tool cannot do as asked is refused up front (INVALID_ARGUMENT), never run
// approximately. What each tool can run is defined once, in common/workload/adapter_limits.h,
// which the scenario loader checks too: these checks are the guard of a workload that reached
// the worker without it (another orchestrator, a hand-written client).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/util/expected.h"
#include "worker/adapters/tool.h"
#include "worker/engine/workload.h"

namespace benchgate::worker::adapters {

// Call after validate_workload (the checks every worker makes).
Expected<void> check_workload(ToolKind kind, const WorkloadSpec& spec);
// Call after validate_window.
Expected<void> check_window(ToolKind kind, const WindowCommand& window);

// Threads the tool runs: both tools refuse more threads than connections.
uint32_t tool_threads(const WorkloadSpec& spec);

// The argument vector of one window's run (argv[0] = tool.path). `wrk_script` is the path of
// the file holding kWrkSummaryScript (wrk only).
std::vector<std::string> tool_argv(const Tool& tool, const WorkloadSpec& spec, int64_t duration_ns,
                                   const std::string& wrk_script);

}  // namespace benchgate::worker::adapters
