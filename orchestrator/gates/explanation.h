// The one-line explanation of a compared gate outcome, rebuilt whenever its verdict changes
// (evaluation, Holm's correction). Internal to the gates library.
#pragma once

#include <string>

#include "orchestrator/gates/gate_outcome.h"
#include "orchestrator/gates/metrics.h"

namespace benchgate::gates::detail {

// For verdicts pass / fail / inconclusive of absolute and relative gates; reads only the
// outcome's fields (and the metric's unit).
std::string explain(const GateOutcome& outcome);

// How the run's figure comes from its repetitions, as every explanation words it: "3
// repetitions merged", "median of 3 repetitions", ...; a tool's latency figure (no histogram)
// "median of 3 repetitions", its max "max of 3 repetitions".
std::string figure_description(const GateOutcome& outcome, const MetricInfo& info);

}  // namespace benchgate::gates::detail
