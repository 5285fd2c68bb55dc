// Wakes the threads that poll a listening socket this process holds but cannot reach: a
// library's own listener, whose descriptor the library does not give out. prometheus-cpp's
// HTTP server (CivetWeb) polls its listeners up to 2 s between looks at its stop flag, so
// destroying a prometheus::Exposer took up to 2 s, and every router or orchestrator with a
// metrics endpoint exited that late. A listener shut down (shutdown(2), not closed: the
// library still owns and closes the descriptor) reports itself ready to every poll at once.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace benchgate::net {

// A listening TCP socket of this process: its inode (which names the socket itself, whatever
// descriptor number it has) and its port.
struct ListeningSocket {
  ino_t inode = 0;
  uint16_t port = 0;
};

// This process's listening TCP sockets (IPv4 and IPv6) now.
std::vector<ListeningSocket> listening_sockets();

// The sockets in `after` that are not in `before` and listen on one of `ports`: those a
// library opened between the two looks.
std::vector<ino_t> opened_between(const std::vector<ListeningSocket>& before,
                                  const std::vector<ListeningSocket>& after,
                                  const std::vector<int>& ports);

// Shuts down each of `inodes` this process still holds open and listening; the number shut
// down. For use just before the library that owns them stops.
int shut_down_listeners(const std::vector<ino_t>& inodes);

}  // namespace benchgate::net
