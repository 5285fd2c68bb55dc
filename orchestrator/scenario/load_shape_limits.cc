// The bundled worker's limits on a workload's load shape that span keys (connections over
// workers, rate over connections, request body x in_flight, the open loop's own rules), checked at
// load time so that `validate` refuses what the worker would refuse after the run has started
// (common/workload/workload_limits.h). Shared by the workload's own keys and by `sweep`.
#include <algorithm>
#include <string>

#include "common/workload/decimal_text.h"
#include "common/workload/workload_limits.h"
#include "orchestrator/scenario/sections.h"

namespace benchgate::scenario {

using workload_limits::decimal_text;

uint32_t worker_callee_sessions(const Workload& w) {
  if (w.protocol != Protocol::kWampRpc || w.wamp.callee != "worker") return 0;
  // Past its own limit it is refused at its key already.
  return std::min(w.wamp.callee_sessions, workload_limits::kMaxCalleeSessions);
}

std::optional<std::string> connections_problem(uint64_t connections, uint32_t workers,
                                               uint32_t callee_sessions) {
  using workload_limits::kDefaultMaxDescriptors;
  using workload_limits::kMaxConnectionsPerWorker;
  const uint64_t share = (connections + workers - 1) / std::max<uint32_t>(workers, 1);
  const uint64_t sessions = share + callee_sessions;
  if (sessions <= kMaxConnectionsPerWorker) return std::nullopt;
  return "connections (" + std::to_string(connections) + ") over workers (" +
         std::to_string(workers) + ")" +
         (callee_sessions > 0
              ? " and callee_sessions (" + std::to_string(callee_sessions) + ") on each"
              : std::string()) +
         " give a worker " + std::to_string(sessions) +
         " sessions; the bundled worker opens at most " + std::to_string(kMaxConnectionsPerWorker) +
         " (a file descriptor each, within Linux's default fs.nr_open of " +
         std::to_string(kDefaultMaxDescriptors) +
         " with room for its threads' and its own): use more workers or fewer connections";
}

std::optional<std::string> rate_problem(double rate, uint64_t connections, bool publishers) {
  using workload_limits::kMaxRatePerConnection;
  using workload_limits::kMinRatePerConnection;
  if (rate <= 0 || connections == 0) return std::nullopt;
  const double per_connection = rate / static_cast<double>(connections);
  if (per_connection >= kMinRatePerConnection && per_connection <= kMaxRatePerConnection) {
    return std::nullopt;
  }
  const std::string over = publishers ? "publishers" : "connections";
  const bool fast = per_connection > kMaxRatePerConnection;
  return "rate (" + decimal_text(rate) + "/s) over " + over + " (" + std::to_string(connections) +
         ") is " + decimal_text(per_connection) + "/s per " +
         (publishers ? "publisher" : "connection") + "; the bundled worker schedules from " +
         decimal_text(kMinRatePerConnection) + " to " + decimal_text(kMaxRatePerConnection) +
         "/s per " + (publishers ? "publisher" : "connection") + ": " +
         (fast ? "use more " + over + " or a lower rate" : "use a higher rate or fewer " + over);
}

std::optional<ClosedLoopOnly> closed_loop_only(const Workload& w) {
  if (w.protocol == Protocol::kWampTransfer) {
    return ClosedLoopOnly{"protocol",
                          "wamp_transfer runs one transfer at a time per session, closed loop"};
  }
  if (w.protocol == Protocol::kWampRpc && w.wamp.session_per_operation) {
    return ClosedLoopOnly{
        "session_per_operation",
        "session_per_operation makes every call on a session of its own, closed loop"};
  }
  return std::nullopt;
}

std::optional<std::string> open_loop_in_flight_problem(uint32_t in_flight) {
  if (in_flight <= 1) return std::nullopt;
  return "(open loop) needs in_flight = 1, got in_flight = " + std::to_string(in_flight) +
         ": an open-loop request is sent at its scheduled time, not queued behind others";
}

std::optional<std::string> pipelined_body_problem(uint64_t request_bytes, uint32_t in_flight,
                                                  const std::string& shown) {
  using workload_limits::kMaxPipelinedBodyBytes;
  if (request_bytes <= kMaxPipelinedBodyBytes / std::max<uint32_t>(in_flight, 1)) {
    return std::nullopt;
  }
  return "request_bytes x in_flight must be at most " +
         std::to_string(kMaxPipelinedBodyBytes >> 20) + "MiB (" +
         std::to_string(kMaxPipelinedBodyBytes) + " bytes), got " + shown + " x " +
         std::to_string(in_flight) +
         ": the bundled worker writes a connection's pipelined requests from one buffer";
}

}  // namespace benchgate::scenario
