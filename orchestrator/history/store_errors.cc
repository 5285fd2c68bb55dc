// Store error classification (store_errors.h).
#include "orchestrator/history/store_errors.h"

#include <array>

namespace benchgate::history {

bool is_user_error(std::string_view message) {
  // Phrases of orchestrator/store/store_runs.cc, store_baselines.cc and store_history.cc.
  static constexpr std::array<std::string_view, 7> kUserPhrases = {
      "does not exist",  "is not in baseline", "did not finish ok",      "a baseline name",
      "baseline name '", "has no workload",    "only runs that exited 0"};
  for (std::string_view phrase : kUserPhrases) {
    if (message.find(phrase) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace benchgate::history
