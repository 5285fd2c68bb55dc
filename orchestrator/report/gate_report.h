// Gate verdicts for people and pipelines: a terminal table, JUnit XML (one testsuite per
// scenario, one testcase per gate: a critical gate's fail and error as failures, inconclusive
// and no_baseline as skipped, or as failures of type strict where --strict fails the run for
// them; a warning gate's fail or error, which never fails the run, as a passed testcase that
// says it in <system-out>) and a Markdown summary fit for a CI job summary or a pull-request
// comment, with a [compare] scenario's ratios and a sweep's model as the terminal gives them.
#pragma once

#include <string>
#include <vector>

#include "common/util/expected.h"
#include "orchestrator/gating/run_gates.h"
#include "orchestrator/report/scenario_report.h"

namespace benchgate::report {

std::string gates_table(const std::vector<gating::EvaluatedGate>& gates);

// With `strict`, the line that names the gates --strict turned into a failure of the run
// (gates::fails_only_when_strict) and why, so that an exit code 1 over verdicts that read
// "pass, underpowered" or "no_baseline" is explained; "" when strict turned none.
std::string strict_failures_line(const std::vector<gating::EvaluatedGate>& gates, bool strict);

std::string junit_xml(const std::vector<ScenarioReport>& reports);
std::string markdown_summary(const std::vector<ScenarioReport>& reports);

}  // namespace benchgate::report
