// Which of the keys a `sweep` can set a workload's protocol takes: one rule for the plain key
// ([[workloads]] request_bytes, connections) and for sweep = { KEY = [...] }, so that a sweep
// is never accepted where the key itself is refused.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "orchestrator/scenario/scenario.h"

namespace benchgate::scenario {

// Why `key` (request_bytes, connections) does not apply to workloads of `protocol`, worded to
// follow "key 'KEY' ...", or nothing when it applies: wamp_transfer has no request_bytes (its
// sizes are transfer_bytes and chunk_bytes), wamp_pubsub no connections (its sessions are
// publishers and subscribers).
std::optional<std::string> protocol_refuses(Protocol protocol, std::string_view key);

}  // namespace benchgate::scenario
