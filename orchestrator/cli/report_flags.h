// --json, --junit, --markdown and --html of `run` and `gate`: checked the same way before
// anything runs or is stored, so that a report path mistake is a usage error (exit code 2) in
// every command that writes reports.
#pragma once

#include <string>
#include <vector>

#include "common/util/expected.h"
#include "orchestrator/report/run_outputs.h"

namespace benchgate::cli {

// The first mistake among the report paths: a flag of `given` (the flags on the command line,
// by name, others ignored) whose value is empty, which OutputPaths would read as "not asked"
// and so write nothing where a pipeline waits for a file; then report::check_output_paths.
Expected<void> check_report_flags(const std::vector<std::string>& given,
                                  const report::OutputPaths& paths);

}  // namespace benchgate::cli
