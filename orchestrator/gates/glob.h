// Matching gate workload patterns against workload names (SCENARIOS.md: "a name, or a glob
// such as wamp_*"). `*` matches any run of characters (also none), `?` exactly one; every
// other character matches itself. The whole name must match.
#pragma once

#include <string_view>

namespace benchgate::gates {

bool glob_match(std::string_view pattern, std::string_view name);
// Whether the pattern has a wildcard, i.e. may name more than one workload.
bool is_glob(std::string_view pattern);

}  // namespace benchgate::gates
