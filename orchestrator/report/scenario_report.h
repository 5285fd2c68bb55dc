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
};

}  // namespace benchgate::report
