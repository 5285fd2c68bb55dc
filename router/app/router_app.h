// The router process: HTTP server, WAMP server, control server and signal handling wired
// together.
#pragma once

#include "router/app/config.h"

namespace benchgate::router::app {

// Serves until SIGINT, SIGTERM or RouterControl.Shutdown, then stops cleanly. Prints the
// READY line to stdout once every server listens. Returns the process exit code: 0 after a
// clean stop, 2 when a server cannot start (the reason is one line on stderr).
int run_router(const RouterConfig& config);

}  // namespace benchgate::router::app
