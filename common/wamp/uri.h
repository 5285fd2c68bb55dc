// WAMP's loose URI rule, as the bundled router checks the URIs clients send and the realm names
// of its --auth-config (common/auth/auth_config.h), which the orchestrator checks at load too,
// as it checks a scenario's workload realm, procedure and topic with it.
#pragma once

#include <string_view>

namespace benchgate::wamp {

// Dot-separated non-empty components without whitespace or '#'.
bool is_valid_uri(std::string_view uri);

}  // namespace benchgate::wamp
