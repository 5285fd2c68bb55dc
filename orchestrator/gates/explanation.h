// The one-line explanation of a compared gate outcome, rebuilt whenever its verdict changes
// (evaluation, Holm's correction). Internal to the gates library.
#pragma once

#include <string>

#include "orchestrator/gates/gate_outcome.h"

namespace benchgate::gates::detail {

// For verdicts pass / fail / inconclusive of absolute and relative gates; reads only the
// outcome's fields (and the metric's unit).
std::string explain(const GateOutcome& outcome);

}  // namespace benchgate::gates::detail
