// WAMP message sizes that the router, the worker and the scenario loader must agree on. Kept
// here, beside nothing else, so that a change of the router's limit reaches the loader's check.
#pragma once

#include <cstdint>

namespace benchgate::wamp_limits {

// RawSocket's 24-bit frame length: the largest message one frame can carry.
inline constexpr uint64_t kRawSocketMaxMessageBytes = (uint64_t{1} << 24) - 1;

// The bundled router's default --max-message-bytes (64 MiB of payload plus room for the
// message around it). router/app/config.h writes the same default as the flag text "65MiB";
// tests/unit/router/config_test.cc checks that the two agree.
inline constexpr uint64_t kRouterDefaultMaxMessageBytes = (uint64_t{65} << 20);

// Room for the message around a payload (type code, ids, options, URI) in the loader's and
// the worker's size checks.
inline constexpr uint64_t kEnvelopeBytes = 512;

}  // namespace benchgate::wamp_limits
