// The cross-check of a window's operations against the bundled router's own count
// (docs/MEASUREMENT.md "Cross-checks"), one rule for the engine, which flags
// router_count_mismatch, and the reports, which explain the difference: the router counts what
// reached it and was routed (HTTP requests, WAMP calls routed, events delivered), so the
// workers' operations it is compared with are theirs less those that never reached it
// (`not_sent`; each event of a publication never written is one) and, on WAMP, those it refused
// with an ERROR (`not_authorized`, `wamp_error`: a call or publication it neither routes nor
// delivers; each of a refused publication's events is one such operation). A callee's own
// ERROR (`callee_error`) answers a call the router routed: it stays among those compared.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "orchestrator/results/results.h"
#include "orchestrator/scenario/scenario.h"

namespace benchgate::results {

// The operations of `rep` that the router never counted: not sent, or refused by it (WAMP).
inline uint64_t router_uncounted_operations(const scenario::Workload& w, const Repetition& rep) {
  auto errors = [&rep](const std::string& kind) {
    const auto it = rep.errors.find(kind);
    return it == rep.errors.end() ? uint64_t{0} : it->second;
  };
  uint64_t uncounted = errors("not_sent");
  // Each kind fits uint64, their sum need not (a stored run's kinds are not checked as a
  // window's are): it stops at UINT64_MAX, then at the operations, rather than wrap round.
  if (!scenario::is_http(w.protocol)) {
    uncounted = saturated_sum(uncounted, errors("not_authorized"));
    uncounted = saturated_sum(uncounted, errors("wamp_error"));
  }
  // A wamp_error answering nothing outstanding counts on its own, no operation of the window.
  return std::min(uncounted, rep.operations);
}

// The operations of `rep` the router's count is compared with.
inline uint64_t router_countable_operations(const scenario::Workload& w, const Repetition& rep) {
  return rep.operations - router_uncounted_operations(w, rep);
}

// Whether the router's count of `rep` and the workers' differ by more than the operations `w`
// can have outstanding at once (scenario::Workload::operations_in_flight), counted by one side
// only at the window's edges: flagged router_count_mismatch.
inline bool router_count_mismatch(const scenario::Workload& w, const Repetition& rep) {
  const uint64_t workers = router_countable_operations(w, rep);
  const uint64_t router = rep.router.requests;
  const uint64_t gap = workers > router ? workers - router : router - workers;
  return gap > w.operations_in_flight();
}

}  // namespace benchgate::results
