// Where a workload's load came from (docs/MEASUREMENT.md "Where the load came from"): from
// this machine, which loopback evidence is, or from other hosts.
#pragma once

#include <string>
#include <vector>

namespace benchgate::engine {

// "local" for a worker this machine spawned (empty address), one at a unix:PATH or one at a
// loopback address (127.0.0.0/8, ::1, ::ffff:127.x.x.x, localhost); else the address as given
// (HOST:PORT).
std::string worker_host(const std::string& address);

// The host of HOST:PORT as common/net/host_port.h reads it ("[::1]:9" gives "::1"); a value
// that is not HOST:PORT is its own host.
std::string host_of(const std::string& address);

// "local" when every worker is; else each distinct host once, in worker order, comma-
// separated, with "local" standing for those on this machine.
std::string load_from(const std::vector<std::string>& worker_addresses);

// Two load origins as one (a compared variant's windows, each run on its own): `so_far`'s
// hosts, then those of `more` it lacks; either may be empty (nothing measured yet).
std::string merge_load_from(const std::string& so_far, const std::string& more);

}  // namespace benchgate::engine
