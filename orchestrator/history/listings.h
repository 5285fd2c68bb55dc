// The tables of `orchestrator runs list` and `orchestrator baseline list`, rendered from the
// store's plain records (no database here).
#pragma once

#include <string>
#include <vector>

#include "orchestrator/store/records.h"

namespace benchgate::history {

// One line per run, in the order given (the store lists newest first): id, scenario, status,
// started (local time), duration, short commit, branch, exit code, labels.
std::string render_run_list(const std::vector<store::RunSummary>& runs);

// One line per baseline entry: baseline name, run, scenario, short commit, run start, when
// the run was added.
std::string render_baseline_list(const std::vector<store::BaselineEntry>& entries);

}  // namespace benchgate::history
