// `orchestrator run` on this machine, once its flags are checked: the metrics exporter, the
// store, each scenario through run_one, the report files, the push and the children's logs.
// The command (cli/run_command.cc) parses and checks its flags and calls this; everything a
// run writes is left to report/ (run_outputs.h).
#pragma once

#include <vector>

#include "orchestrator/app/run_one.h"
#include "orchestrator/app/run_setup.h"
#include "orchestrator/metrics/run_metrics.h"
#include "orchestrator/report/run_outputs.h"
#include "orchestrator/scenario/scenario.h"

namespace benchgate::app {

struct LocalRun {
  SetupSettings setup;
  RunPolicy policy;
  report::OutputPaths outputs;
  metrics::RunMetricsOptions metrics;
  bool keep_logs = false;  // name the children's logs even after a good run
};

// Runs every scenario in order (stopping after an interrupt) and returns the process's exit
// code: 2 when the exporter or the store cannot start (nothing has run), else the worst
// scenario's code, 3 after an interrupt or a report file that could not be written.
int run_locally(const std::vector<scenario::Scenario>& scenarios, const LocalRun& run);

}  // namespace benchgate::app
