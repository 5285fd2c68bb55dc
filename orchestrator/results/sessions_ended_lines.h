// The lines that say why the router ended WAMP sessions in a workload's windows
// (results::SessionsEnded), one rule for every report that shows them: the terminal under its
// workload table, the HTML report from the store, and `runs show`. Header-only, so that the
// history commands, which link no report code, write the same lines.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "orchestrator/results/results.h"

namespace benchgate::results {

// Lines shown at most; the JSON report lists every one.
inline constexpr size_t kShownSessionEnds = 10;

// Each repetition's 0-based index with its sessions ended, in repetition order.
using SessionsEndedByRepetition = std::vector<std::pair<uint32_t, std::vector<SessionsEnded>>>;

// "  sessions the router ended during the window (counted as protocol errors: ...):" then
// "    rep 1 worker 0: 2 sessions ABORT wamp.close.system_shutdown: ..." per repetition, worker
// and reason (at most kShownSessionEnds, then how many more); "" when none ended. The header says
// how the ends are among the errors by kind, as the worker counts them (worker/wamp/session.cc):
// each fails the session's outstanding operations, one protocol error each, and counts one of
// its own only where none was outstanding, so a caller's session with 16 calls in flight is 16
// protocol errors, not one. `not_stored`: a run stored before schema version 22 with protocol
// errors, which may have been such ends, says so.
inline std::string sessions_ended_lines(const SessionsEndedByRepetition& repetitions,
                                        bool not_stored) {
  if (not_stored) {
    return "  sessions the router ended during the window: not stored (a run stored before "
           "schema version 22; some of its protocol errors may be such ends)\n";
  }
  std::string lines;
  size_t shown = 0;
  size_t left = 0;
  for (const auto& [index, ends] : repetitions) {
    for (const SessionsEnded& e : ends) {
      if (shown == kShownSessionEnds) {
        ++left;
        continue;
      }
      ++shown;
      lines += "    rep " + std::to_string(index + 1) + " worker " + std::to_string(e.worker) +
               ": " + std::to_string(e.sessions) + (e.sessions == 1 ? " session " : " sessions ") +
               (e.reason.empty() ? std::string("for other reasons") : e.reason) + "\n";
    }
  }
  if (lines.empty()) return "";
  if (left > 0) {
    lines += "    and " + std::to_string(left) + " more (the JSON report lists every one)\n";
  }
  return "  sessions the router ended during the window (counted as protocol errors: one per "
         "operation outstanding, one where none was):\n" +
         lines;
}

}  // namespace benchgate::results
