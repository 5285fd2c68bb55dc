// The sessions each worker's peer ended in a window (worker.proto WindowResult.sessions_ended),
// as a repetition keeps them (results::Repetition::sessions_ended). A worker's words are not
// trusted: each reason goes through shown_cut() (escaped, cut after kShownReasonBytes bytes),
// and a worker keeps at most kMaxReasonsPerWorker reasons, the sessions of any further one
// counted under the empty reason, as the bundled worker does past its 8th.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "benchgate/v1/worker.pb.h"
#include "common/util/shown_list.h"
#include "orchestrator/results/results.h"

namespace benchgate::engine {

inline constexpr size_t kMaxReasonsPerWorker = 9;  // 8 and the empty one
// Above the bundled WAMP worker's longest reason (two 200-byte texts, each byte escaped).
inline constexpr size_t kShownReasonBytes = 2048;

// parts[i] came from worker workers[i] (empty `workers`: worker i), as merge_window's.
inline std::vector<results::SessionsEnded> merge_sessions_ended(
    const std::vector<v1::WindowResult>& parts, const std::vector<size_t>& workers) {
  std::vector<results::SessionsEnded> out;
  for (size_t i = 0; i < parts.size(); ++i) {
    const auto worker = static_cast<uint32_t>(i < workers.size() ? workers[i] : i);
    const size_t first = out.size();
    for (const v1::SessionEnd& end : parts[i].sessions_ended()) {
      if (end.sessions() == 0) continue;
      std::string reason = shown_cut(end.reason(), kShownReasonBytes);
      auto of_worker = [&](const std::string& r) {
        return std::find_if(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                            [&](const results::SessionsEnded& e) { return e.reason == r; });
      };
      auto same = of_worker(reason);
      if (same == out.end() && !reason.empty() && out.size() - first >= kMaxReasonsPerWorker - 1) {
        reason.clear();
        same = of_worker(reason);
      }
      if (same == out.end()) {
        out.push_back({worker, std::move(reason), end.sessions()});
      } else {
        // A worker's counts are not trusted: two near 2^64 saturate rather than wrap to a few.
        same->sessions = end.sessions() > std::numeric_limits<uint64_t>::max() - same->sessions
                             ? std::numeric_limits<uint64_t>::max()
                             : same->sessions + end.sessions();
      }
    }
  }
  return out;
}

}  // namespace benchgate::engine
