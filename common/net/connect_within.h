// One TCP connection attempt that waits a bounded time for its answer: readiness and
// reachability probes (the orchestrator's wait for a system under test, the worker's check of
// an adapter's target), which must not sit in a blocking connect for the kernel's two minutes
// of SYN retries when an address drops its packets.
#pragma once

#include <sys/socket.h>

#include <chrono>

namespace benchgate::net {

// Connects a new non-blocking socket to `address` and closes it: 0 when the connection was
// made within `timeout`, else the errno of the attempt (ETIMEDOUT: no answer in time).
int connect_within(const sockaddr* address, socklen_t length, std::chrono::milliseconds timeout);

}  // namespace benchgate::net
