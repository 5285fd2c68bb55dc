// What the bundled router accepts of its command line where the scenario loader must agree, defined
// once: the router refuses anything beyond these when it starts (router/app/config.cc), and the
// loader refuses a [router] or [routers.NAME] key that would pass it on
// (orchestrator/scenario/router_section.cc), so that a scenario `validate` accepts does not fail
// at the router's start.
#pragma once

#include <cstdint>

#include "common/wamp/message_limits.h"

namespace benchgate::router_limits {

// Serving threads (--threads; [router] threads): one event loop each.
inline constexpr uint32_t kMinThreads = 1;
inline constexpr uint32_t kMaxThreads = 1024;

// WebSocket frames of what the router sends (--ws-fragment-bytes; [router] ws_fragment_bytes):
// 0 is off, any other value at least kMinWsFragmentBytes payload bytes a frame. The router takes
// up to its --max-message-bytes; the loader, which starts it with the default, takes up to
// kMaxWsFragmentBytes, a frame within one RawSocket message as for the worker's fragment_bytes,
// so that a value `validate` accepts is one the router accepts.
inline constexpr uint64_t kMinWsFragmentBytes = 16;
inline constexpr uint64_t kMaxWsFragmentBytes = uint64_t{16} << 20;
static_assert(kMaxWsFragmentBytes <= wamp_limits::kRouterDefaultMaxMessageBytes);

}  // namespace benchgate::router_limits
