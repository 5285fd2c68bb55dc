// Helpers shared by the store's source files; not part of the public API.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "common/time/clock.h"
#include "orchestrator/store/records.h"

namespace benchgate::results {
struct WorkloadResult;
}

namespace benchgate::store::internal {

// SQLite integers are signed 64-bit; a counter beyond that is a bug upstream, so clamp rather
// than wrap into a negative number.
inline int64_t as_int(uint64_t v) {
  return v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
             ? std::numeric_limits<int64_t>::max()
             : static_cast<int64_t>(v);
}

inline uint64_t as_uint(int64_t v) { return v < 0 ? 0 : static_cast<uint64_t>(v); }

std::string to_json(const std::map<std::string, std::string>& m);
std::string to_json(const std::map<std::string, uint64_t>& m);
std::string to_json(const std::vector<std::string>& v);
std::string to_json(const std::vector<int64_t>& v);
std::string to_json(const std::vector<StoredSessionsEnded>& v);
// Parsing what the store itself wrote; malformed text (edited by hand) gives an empty value.
std::map<std::string, std::string> string_map_from_json(const std::string& text);
std::map<std::string, uint64_t> count_map_from_json(const std::string& text);
std::vector<std::string> strings_from_json(const std::string& text);
std::vector<int64_t> ints_from_json(const std::string& text);
// [{"worker": 0, "reason": "...", "sessions": 2}, ...]; an entry of another shape is left out.
std::vector<StoredSessionsEnded> sessions_ended_from_json(const std::string& text);

// Which stored workloads are a series' history (docs/GATES.md, "Series and baselines"), one rule
// for relative gates, change gates and change points: an SQL condition over the run row `r` and
// its workload row `w`. Both finished ok, and no window of the workload was measured while a
// process was stopped (flag process_stopped: its figures describe the stop, not the system) or
// without every worker (flag degraded: it had less load than the workload asks for). Such runs
// are stored with status ok, so the status alone does not exclude them. A constant; the view
// series_history (schemas/sqlite/0023_run_origin.sql) filters with the same text, which a test
// checks.
const std::string& history_workload_condition();

// Whose series the run row `r` is in: an SQL expression that is 'client' for a run submitted to
// `orchestrator serve` (origin client) and 'operator' for the others (local, scheduled). The
// other clause of the rule: a run is history only of runs of its own side (change gates, change
// points, series_runs), so a client cannot move the operator's series nor the operator a
// client's. Relative gates read a baseline instead, whose runs only the operator chooses. The
// view series_history shows it as `submitted_by`, with the same text.
const std::string& series_side_sql();

// Store::latest_workload_series's query (parameters :scenario, :workload, :variant,
// :submitted_by), shared with the test that checks SQLite walks it through an index newest
// first, never reading and sorting every run of the scenario.
const std::string& latest_workload_series_sql();

// A workload as store_workload writes it and get_run reads it back (ids left 0): every figure
// of every repetition with the definitions of results::Repetition, the summary over them and
// the workload's figure of each gate metric (store_workloads.cc).
StoredWorkload stored_workload(const results::WorkloadResult& workload);

}  // namespace benchgate::store::internal
