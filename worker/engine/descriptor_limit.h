// File descriptors against RLIMIT_NOFILE: every connection of a workload is a socket, so a
// workload with more connections than the process may open cannot start. Checked when the
// workload is configured, before any connection is tried, with an error that names the limit
// (rather than EMFILE on the 1,019th connect, or a connect deadline that passes).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <boost/system/error_code.hpp>

#include "common/workload/workload_limits.h"

namespace benchgate::worker {

struct DescriptorLimit {
  uint64_t soft = 0;  // RLIMIT_NOFILE's soft limit: what open() checks
  uint64_t hard = 0;  // how far an unprivileged process may raise it
  uint64_t open = 0;  // descriptors open now (gRPC, logs, ...)
};

// This process's limit and the descriptors it has open (from /proc/self/fd).
DescriptorLimit current_descriptor_limit();

// Descriptors a load thread's event loop holds (epoll, its wake-up and timer descriptors),
// defined with the workload limits that leave room for them.
inline constexpr uint64_t kDescriptorsPerThread = workload_limits::kDescriptorsPerLoadThread;

// The error when `connections` sockets on `threads` load threads do not fit the limit, or
// nothing when they do.
std::optional<std::string> descriptor_shortfall(uint64_t connections, uint64_t threads,
                                                const DescriptorLimit& limit);

// A connect error for the user: EMFILE also names the limit it hit.
std::string describe_connect_error(const boost::system::error_code& ec);

}  // namespace benchgate::worker
