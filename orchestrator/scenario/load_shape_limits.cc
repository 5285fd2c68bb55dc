// The bundled worker's limits on a workload's load shape that span keys (connections over
// workers, rate over connections, request body x in_flight), checked at load time so that
// `validate` refuses what the worker would refuse after the run has started
// (common/workload/workload_limits.h). Shared by the workload's own keys and by `sweep`.
#include <algorithm>
#include <cstdio>
#include <string>

#include "common/workload/workload_limits.h"
#include "orchestrator/scenario/sections.h"

namespace benchgate::scenario {
namespace {

// A rate as people write it: 1e+15, 0.001, 250000.
std::string rate_text(double rate) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", rate);
  return text;
}

}  // namespace

std::optional<std::string> connections_problem(uint64_t connections, uint32_t workers) {
  using workload_limits::kMaxConnectionsPerWorker;
  const uint64_t share = (connections + workers - 1) / std::max<uint32_t>(workers, 1);
  if (share <= kMaxConnectionsPerWorker) return std::nullopt;
  return "connections (" + std::to_string(connections) + ") over workers (" +
         std::to_string(workers) + ") gives a worker " + std::to_string(share) +
         " connections; the bundled worker opens at most " +
         std::to_string(kMaxConnectionsPerWorker) +
         " (a file descriptor each): use more workers or fewer connections";
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
  return "rate (" + rate_text(rate) + "/s) over " + over + " (" + std::to_string(connections) +
         ") is " + rate_text(per_connection) + "/s per " +
         (publishers ? "publisher" : "connection") + "; the bundled worker schedules from " +
         rate_text(kMinRatePerConnection) + " to " + rate_text(kMaxRatePerConnection) + "/s per " +
         (publishers ? "publisher" : "connection") + ": " +
         (fast ? "use more " + over + " or a lower rate" : "use a higher rate or fewer " + over);
}

std::optional<std::string> pipelined_body_problem(uint64_t request_bytes, uint32_t in_flight) {
  using workload_limits::kMaxPipelinedBodyBytes;
  if (request_bytes <= kMaxPipelinedBodyBytes / std::max<uint32_t>(in_flight, 1)) {
    return std::nullopt;
  }
  return "request_bytes x in_flight (" + std::to_string(request_bytes) + " x " +
         std::to_string(in_flight) + ") must be at most 256MiB (" +
         std::to_string(kMaxPipelinedBodyBytes) +
         " bytes): the bundled worker writes a connection's pipelined requests from one buffer";
}

}  // namespace benchgate::scenario
