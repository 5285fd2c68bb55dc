// A stored run read back as the engine produced it (engine::ScenarioResult), so that a report
// of any past run calls the same figure functions (results::Repetition, analysis.h) as the
// terminal and JSON reports of a live run: one definition per figure.
#pragma once

#include <string>

#include "common/util/expected.h"
#include "orchestrator/engine/scenario_runner.h"
#include "orchestrator/store/records.h"

namespace benchgate::report {

// Workload specs come from the run's stored scenario text (sweep points and comparison
// variants included); a workload the text no longer defines keeps its stored name and
// protocol with default parameters. Figures a run stored before schema version 7 lacks
// (the timeline, each worker's share) stay empty. Connection setup keeps its counts, not its
// histograms (the store has their p50 and p99 only: read those with the store's metric values).
engine::ScenarioResult result_from_store(const store::RunDetail& run);

}  // namespace benchgate::report
