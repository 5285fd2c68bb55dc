// The bounds of benchgate's HTTP listener (http_listener.h), one set for the orchestrator's
// /metrics and serve's --http pages and the router's /metrics.
#pragma once

#include <chrono>
#include <cstddef>

namespace benchgate::http_listener {

struct ListenerOptions {
  // How long a connection may take to send a whole request head (and, kept alive, to start
  // the next one), and to take each answer: a client on this machine or a LAN takes
  // milliseconds. Past it the connection is closed.
  std::chrono::milliseconds request_timeout{5000};
  // Open connections at most. Past it, the one that has waited longest for its request is
  // closed to make room for the new one; when none is waiting (every one is being answered),
  // the new one is closed instead.
  size_t max_connections = 1024;
  // The request line and headers at most; a larger head is answered 431 and closed.
  size_t max_header_bytes = 16 * 1024;
};

}  // namespace benchgate::http_listener
