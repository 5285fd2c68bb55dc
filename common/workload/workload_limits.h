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

// Descriptors a load thread's event loop holds besides its connections (epoll, its wake-up and
// timer descriptors); worker/engine/descriptor_limit.cc counts them before connecting.
inline constexpr uint32_t kDescriptorsPerLoadThread = 3;

// Linux's default fs.nr_open: the most RLIMIT_NOFILE can be raised to without changing it.
inline constexpr uint32_t kDefaultMaxDescriptors = uint32_t{1} << 20;

// Descriptors the worker process holds besides its connections and load threads: standard
// streams, the gRPC server's listener, pollers and their wake-ups, logs (a few dozen when it
// starts; the rest is room).
inline constexpr uint32_t kProcessDescriptorReserve = 1024;

// Sessions (connections; wamp_rpc's worker callee sessions; wamp_pubsub's publishers and
// subscribers) of one worker: each is a socket, so a file descriptor, and the worker refuses a
// workload whose sessions, 3 per load thread and what it has open pass RLIMIT_NOFILE. The most
// that can fit under the default fs.nr_open with the most load threads: 2^20 - 4096 = 1044480.
// More sessions need more workers.
inline constexpr uint32_t kMaxConnectionsPerWorker =
    kDefaultMaxDescriptors - kMaxThreads * kDescriptorsPerLoadThread - kProcessDescriptorReserve;
static_assert(kMaxConnectionsPerWorker == (uint32_t{1} << 20) - 4096);

// HTTP: a connection's pipeline is written from one buffer of in_flight copies of the request,
// built when the workload starts, so request body x in_flight is bounded.
inline constexpr uint64_t kMaxPipelinedBodyBytes = uint64_t{256} << 20;

// Open loop: requests per second per connection (the workload's rate over its connections;
// wamp_pubsub's over its publishers). Above the maximum a connection would owe a request more
// than once a microsecond with one outstanding at a time, faster than any request makes a round
// trip even on loopback. Below the minimum a connection owes a request less than once in 11.6
// days, so a run measures nothing of it. (The schedule's 64-bit nanoseconds would hold intervals
// down to about 1.1e-10 requests/s; the rate, not that overflow, sets the minimum.)
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
