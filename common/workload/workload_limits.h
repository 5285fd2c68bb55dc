// What the bundled worker accepts of a workload, defined once: the worker refuses anything
// beyond these when a workload reaches it (worker/engine/validate.cc), and the scenario loader
// refuses it when the file is loaded (orchestrator/scenario/workload_section.cc), so that a
// scenario `validate` accepts is not refused by the bundled worker after the router and the
// workers have started. A worker of another implementation may have limits of its own
// (docs/SCENARIOS.md, "Limits of the bundled worker").
#pragma once

#include <cstdint>

namespace benchgate::workload_limits {

// Outstanding requests per connection (in_flight) and HTTP/2 streams per connection: a slot of
// each is allocated when the workload starts.
inline constexpr uint32_t kMaxInFlight = 4096;

// Load threads (event loops) of one worker.
inline constexpr uint32_t kMaxThreads = 1024;

// Worker processes of one workload, and the orchestrator's --workers.
inline constexpr uint32_t kMaxWorkers = 1024;

// Connections (sessions) of one worker: each is a socket, so a file descriptor. 2^20 is
// Linux's default fs.nr_open, the most RLIMIT_NOFILE can be raised to without changing it;
// more connections need more workers.
inline constexpr uint32_t kMaxConnectionsPerWorker = uint32_t{1} << 20;

// HTTP: a connection's pipeline is written from one buffer of in_flight copies of the request,
// built when the workload starts, so request body x in_flight is bounded.
inline constexpr uint64_t kMaxPipelinedBodyBytes = uint64_t{256} << 20;

// Open loop: requests per second per connection (the workload's rate over its connections;
// wamp_pubsub's over its publishers). The schedule counts in nanoseconds: above the maximum a
// connection would owe a request more than once a microsecond with one outstanding at a time,
// faster than any request makes a round trip even on loopback; below the minimum (one request
// per 11.6 days) a connection's interval would overflow the schedule's 64-bit nanoseconds.
inline constexpr double kMaxRatePerConnection = 1e6;
inline constexpr double kMinRatePerConnection = 1e-6;

// WAMP: a payload (request_bytes, chunk_bytes), a wamp_transfer's whole transfer, WebSocket
// frames of what the worker sends (fragment_bytes: Beast's smallest write buffer up to a frame
// no larger than a RawSocket message), and wamp_rpc's callee sessions, callee delay and
// cancellation delay, and call timeout.
inline constexpr uint64_t kMaxWampPayloadBytes = uint64_t{64} << 20;
inline constexpr uint64_t kMaxTransferBytes = uint64_t{16} << 30;
inline constexpr uint64_t kMinFragmentBytes = 16;
inline constexpr uint64_t kMaxFragmentBytes = uint64_t{16} << 20;
inline constexpr uint32_t kMaxCalleeSessions = 1024;
inline constexpr int64_t kMaxCalleeDelayNs = int64_t{60} * 1'000'000'000;
inline constexpr int64_t kMaxCallTimeoutNs = int64_t{3600} * 1'000'000'000;

}  // namespace benchgate::workload_limits
