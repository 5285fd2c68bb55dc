// The sessions a peer ended during a window, by what it said (worker.proto
// WindowResult.sessions_ended): a WAMP router's ABORT or GOODBYE to a joined session. Bounded:
// a peer that words each end differently (a session id in its message) adds no more than
// kMaxSessionEndReasons reasons; the sessions ended for any further reason count under an
// empty one.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace benchgate::worker {

struct SessionEnd {
  std::string reason;  // as the driver quotes the peer ("ABORT wamp.close.killed: ..."); "": others
  uint64_t sessions = 0;

  bool operator==(const SessionEnd&) const = default;
};

inline constexpr size_t kMaxSessionEndReasons = 8;

// Counts `sessions` more sessions ended for `reason` into `ends` (at most kMaxSessionEndReasons
// reasons, in the order they first came, then the empty one).
inline void add_session_end(std::vector<SessionEnd>& ends, std::string_view reason,
                            uint64_t sessions) {
  auto same = [&](const SessionEnd& e) { return e.reason == reason; };
  if (auto it = std::find_if(ends.begin(), ends.end(), same); it != ends.end()) {
    it->sessions += sessions;
    return;
  }
  const auto named = static_cast<size_t>(std::count_if(
      ends.begin(), ends.end(), [](const SessionEnd& e) { return !e.reason.empty(); }));
  if (!reason.empty() && named < kMaxSessionEndReasons) {
    ends.push_back({std::string(reason), sessions});
    return;
  }
  auto other =
      std::find_if(ends.begin(), ends.end(), [](const SessionEnd& e) { return e.reason.empty(); });
  if (other == ends.end()) other = ends.insert(ends.end(), SessionEnd{});
  other->sessions += sessions;
}

}  // namespace benchgate::worker
