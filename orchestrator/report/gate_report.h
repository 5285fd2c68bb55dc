// Gate verdicts for people and pipelines: a terminal table, JUnit XML (one testsuite per
// scenario, one testcase per gate: fail and error as failures, inconclusive and no_baseline
// as skipped) and a Markdown summary fit for a CI job summary or a pull-request comment.
#pragma once

#include <string>
#include <vector>

#include "common/util/expected.h"
#include "orchestrator/gating/run_gates.h"
#include "orchestrator/report/scenario_report.h"

namespace benchgate::report {

std::string gates_table(const std::vector<gating::EvaluatedGate>& gates);

std::string junit_xml(const std::vector<ScenarioReport>& reports);
std::string markdown_summary(const std::vector<ScenarioReport>& reports);

// Writes text to path through a temporary file renamed into place.
Expected<void> write_file_atomically(const std::string& path, const std::string& text);

}  // namespace benchgate::report
