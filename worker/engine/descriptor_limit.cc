// File descriptors against RLIMIT_NOFILE (see descriptor_limit.h).
#include "worker/engine/descriptor_limit.h"

#include <sys/resource.h>

#include <boost/asio/error.hpp>
#include <filesystem>

namespace benchgate::worker {

DescriptorLimit current_descriptor_limit() {
  DescriptorLimit limit;
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) == 0) {
    limit.soft = r.rlim_cur;
    limit.hard = r.rlim_max;
  }
  std::error_code ec;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end;
       it.increment(ec)) {
    ++limit.open;
  }
  return limit;
}

std::optional<std::string> descriptor_shortfall(uint64_t connections, uint64_t threads,
                                                const DescriptorLimit& limit) {
  if (limit.soft == 0 || limit.soft == RLIM_INFINITY) return std::nullopt;  // unknown: no check
  const uint64_t needed = connections + threads * kDescriptorsPerThread + limit.open;
  if (needed <= limit.soft) return std::nullopt;
  return std::to_string(connections) + " connections need " + std::to_string(needed) +
         " file descriptors (one per connection, " +
         std::to_string(threads * kDescriptorsPerThread) + " for the load threads, " +
         std::to_string(limit.open) + " open now), but RLIMIT_NOFILE is " +
         std::to_string(limit.soft) +
         " (connecting would fail with EMFILE); raise it (ulimit -n, up to the hard limit " +
         (limit.hard == RLIM_INFINITY ? std::string("unlimited") : std::to_string(limit.hard)) +
         ") or use fewer connections";
}

std::string describe_connect_error(const boost::system::error_code& ec) {
  std::string text = ec.message();
  if (ec == boost::asio::error::no_descriptors) {
    text += " (EMFILE; RLIMIT_NOFILE is " + std::to_string(current_descriptor_limit().soft) + ")";
  }
  return text;
}

}  // namespace benchgate::worker
