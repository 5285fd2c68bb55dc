// The complete results as JSON (`--json FILE`): every scenario, workload (with its resolved
// parameters), every repetition's figures, the router's counter deltas, and each workload's
// merged latency histogram as base64 HdrHistogram V2 (compressed), readable by any
// HdrHistogram implementation.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/util/expected.h"
#include "orchestrator/engine/scenario_runner.h"

namespace benchgate::report {

nlohmann::json workload_json(const results::WorkloadResult& workload);
nlohmann::json scenario_json(const engine::ScenarioResult& result);

// Writes {"benchgate": version, "scenarios": [...], "exit_code": N} to `path` atomically
// (a temporary file renamed into place).
Expected<void> write_json_report(const std::string& path,
                                 const std::vector<engine::ScenarioResult>& results, int exit_code);

std::string base64(const std::vector<uint8_t>& bytes);

}  // namespace benchgate::report
