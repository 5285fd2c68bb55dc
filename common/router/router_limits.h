// What the bundled router accepts of its command line where the scenario loader must agree, defined
// once: the router refuses anything beyond these when it starts (router/app/config.cc), and the
// loader refuses a [router] or [routers.NAME] key that would pass it on
// (orchestrator/scenario/router_section.cc), so that a scenario `validate` accepts does not fail
// at the router's start.
#pragma once

#include <cstdint>

namespace benchgate::router_limits {

// Serving threads (--threads; [router] threads): one event loop each.
inline constexpr uint32_t kMinThreads = 1;
inline constexpr uint32_t kMaxThreads = 1024;

}  // namespace benchgate::router_limits
