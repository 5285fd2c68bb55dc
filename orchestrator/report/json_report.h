// The complete results as JSON (`--json FILE`): every scenario, workload (with its resolved
// parameters), every repetition's figures, the router's counter deltas, and each workload's
// merged latency histogram as base64 HdrHistogram V2 (compressed), readable by any
// HdrHistogram implementation.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/util/expected.h"
#include "orchestrator/report/scenario_report.h"

namespace benchgate::report {

nlohmann::json workload_json(const results::WorkloadResult& workload);
nlohmann::json scenario_json(const ScenarioReport& report);

// {"benchgate": version, "scenarios": [...], "exit_code": N}
std::string json_report(const std::vector<ScenarioReport>& reports, int exit_code);

}  // namespace benchgate::report
