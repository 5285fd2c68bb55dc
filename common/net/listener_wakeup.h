// Wakes the threads that poll a listening socket this process holds but cannot reach: a
// library's own listener, whose descriptor the library does not give out. prometheus-cpp's
// HTTP server (CivetWeb) polls its listeners up to 2 s between looks at its stop flag, so
// destroying a prometheus::Exposer took up to 2 s, and every router or orchestrator with a
// metrics endpoint exited that late. A listener shut down (shutdown(2), not closed: the
// library still owns and closes the descriptor) reports itself ready to every poll at once.
#pragma once

#include <cstdint>

namespace benchgate::net {

// Shuts down each listening TCP socket of this process bound to `port` (any address); the
// number it shut down. For use just before the library that owns the listener stops it.
int shut_down_listeners_on(uint16_t port);

}  // namespace benchgate::net
