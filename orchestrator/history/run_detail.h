// The text of `orchestrator runs show RUN`: the run's header and testbed, every workload's
// repetitions, and the latest gate verdicts, from the store's plain records.
#pragma once

#include <string>
#include <vector>

#include "orchestrator/store/records.h"

namespace benchgate::history {

std::string render_run_detail(const store::RunDetail& run,
                              const std::vector<store::GateRecord>& gates);

// A gate's observed value or threshold in the metric's human unit; "-" when absent.
std::string format_gate_value(const std::string& metric, const std::optional<double>& value);

}  // namespace benchgate::history
