// The kinds a failed operation is counted under (docs/MEASUREMENT.md "Operations, successes and
// errors"), defined once: the keys of WindowResult.errors (proto/benchgate/v1/worker.proto) and
// the KIND of an `errors.KIND` entry in its not_measured. The bundled worker counts under them
// (worker/engine/error_kind.h names its kinds through this list), the orchestrator refuses a
// result that names any other (orchestrator/workers/result_checks.cc) and gives each its own
// Prometheus series (orchestrator/metrics/metrics_observer.cc).
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace benchgate::error_kinds {

inline constexpr std::array<std::string_view, 16> kNames = {
    "connect",        "timeout",      "status",     "length",      "short_read", "mismatch",
    "protocol",       "reset",        "wamp_error", "lost",        "not_sent",   "not_authorized",
    "chunk_mismatch", "call_timeout", "canceled",   "callee_error"};

constexpr bool known(std::string_view kind) {
  for (std::string_view name : kNames) {
    if (name == kind) return true;
  }
  return false;
}

// "connect, timeout, ...", for messages that name what would have been accepted.
inline std::string listed() {
  std::string out;
  for (std::string_view name : kNames) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

}  // namespace benchgate::error_kinds
