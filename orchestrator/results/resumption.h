// Whether a workload's `resumed` (the TLS handshakes in which the server resumed a session) is
// a measurement, one rule for the RESULT line, the JSON report and the terminal
// (docs/MEASUREMENT.md "Handshakes per second"): a workload that reconnects per operation over
// TLS (new_connection_per_request, wamp_transfer, wamp_rpc with session_per_operation) handshakes
// all along, so its count, 0 included, says whether the server resumed; one that keeps its
// connections handshakes at its start (and after a lost connection) only, and a 0 there may be
// true or just never asked: not reported.
#pragma once

#include <cstdint>
#include <optional>

#include "orchestrator/results/results.h"
#include "orchestrator/scenario/scenario.h"

namespace benchgate::results {

// Whether `w` reconnects per operation (a TLS handshake for each, with TLS).
inline bool reconnects_per_operation(const scenario::Workload& w) {
  return w.new_connection_per_request || w.protocol == scenario::Protocol::kWampTransfer ||
         (w.protocol == scenario::Protocol::kWampRpc && w.wamp.session_per_operation);
}

// `setup`'s resumed handshakes where `w` reconnects per operation and a TLS handshake was
// counted (none: cleartext).
inline std::optional<uint64_t> resumed_handshakes(const scenario::Workload& w,
                                                  const ConnectionSetup& setup) {
  if (!reconnects_per_operation(w) || setup.handshakes == 0) return std::nullopt;
  return setup.resumed;
}

}  // namespace benchgate::results
