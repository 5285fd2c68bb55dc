// See nothing_succeeded.h.
#include "orchestrator/results/nothing_succeeded.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace benchgate::results {
namespace {

// The kinds named in the reason, the most frequent first; the rest are counted. The terminal's
// "errors by kind" line and the JSON report list every kind.
constexpr size_t kKindsNamed = 3;

// What one operation of the protocol is (docs/WORKER_PROTOCOL.md, WindowResult.operations).
std::string operation_noun(scenario::Protocol protocol, uint64_t count) {
  std::string noun = "request";
  if (protocol == scenario::Protocol::kWampRpc) noun = "call";
  if (protocol == scenario::Protocol::kWampPubSub) noun = "event";
  if (protocol == scenario::Protocol::kWampTransfer) noun = "transfer";
  return count == 1 ? noun : noun + "s";
}

std::string counted(uint64_t count, std::string_view one, std::string_view many) {
  return count_text(count) + " " + std::string(count == 1 ? one : many);
}

// "status 1190, timeout 10": the workload's kinds as every report sums them
// (WorkloadResult::error_kinds), by count then name; a kind that counted none is left out.
std::string kinds_text(const WorkloadResult& workload) {
  std::vector<std::pair<std::string, uint64_t>> kinds;
  for (const auto& [kind, count] : workload.error_kinds()) {
    if (count > 0) kinds.emplace_back(kind, count);
  }
  std::stable_sort(kinds.begin(), kinds.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (size_t i = 0; i < kinds.size() && i < kKindsNamed; ++i) {
    if (i > 0) out += ", ";
    out += kinds[i].first + " " + count_text(kinds[i].second);
  }
  if (kinds.size() > kKindsNamed) {
    out += " and " + counted(kinds.size() - kKindsNamed, "more kind", "more kinds");
  }
  return out;
}

}  // namespace

std::string nothing_succeeded_reason(const WorkloadResult& workload) {
  if (workload.spec.expect_failures || workload.repetitions.empty()) return "";
  uint64_t operations = 0;
  for (const Repetition& rep : workload.repetitions) {
    if (rep.successes > 0) return "";
    operations = saturated_sum(operations, rep.operations);
  }
  const uint64_t errors = workload.error_count();
  if (errors == 0) return "";
  const scenario::Protocol protocol = workload.spec.protocol;
  return "no " + operation_noun(protocol, 1) + " succeeded in " +
         counted(workload.repetitions.size(), "repetition", "repetitions") + ": " +
         count_text(operations) + " " + operation_noun(protocol, operations) + ", " +
         counted(errors, "error", "errors") + " (" + kinds_text(workload) + ")";
}

}  // namespace benchgate::results
