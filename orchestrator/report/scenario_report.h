// Everything one scenario's run produced, as the reports (terminal, JSON, JUnit, Markdown)
// consume it.
#pragma once

#include <cstdint>
#include <vector>

#include "orchestrator/engine/scenario_runner.h"
#include "orchestrator/gating/run_gates.h"

namespace benchgate::report {

struct ScenarioReport {
  engine::ScenarioResult result;
  std::vector<gating::EvaluatedGate> gates;
  int64_t run_id = 0;  // 0: not stored
  int exit_code = 0;
  // The run's status as stored (runs.status): ok, failed, aborted; for `gate`, the stored
  // run's (any runs.status).
  std::string status;
  int64_t duration_ns = 0;  // how long the scenario ran; 0: not known (a re-evaluation)
};

}  // namespace benchgate::report
