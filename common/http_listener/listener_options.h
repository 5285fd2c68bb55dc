// The bounds of benchgate's HTTP listener (http_listener.h), one set for the orchestrator's
// /metrics and serve's --http pages and the router's /metrics.
#pragma once

#include <chrono>
#include <cstddef>

namespace benchgate::http_listener {

// Why a listen address of unix:PATH is refused: the listener takes TCP HOST:PORT only.
inline constexpr const char* kUnixSocketRefused = "a Unix socket is not taken here, only HOST:PORT";

struct ListenerOptions {
  // How long a connection may take to send a whole request head (and, kept alive, to start
  // the next one), and to take each answer: a client on this machine or a LAN takes
  // milliseconds. Past it the connection is closed.
  std::chrono::milliseconds request_timeout{5000};
  // After a connection's last answer (Connection: close, a request with a body, a head it
  // could not read), how long it may still read and drop what the client sends (up to
  // 1 MiB) before it closes: one deadline for the whole drain, however slowly bytes come.
  std::chrono::milliseconds drain_timeout{1000};
  // Open connections at most; HttpListener::start lowers it to a quarter of the soft
  // RLIMIT_NOFILE (at least 16), so that held connections leave file descriptors to the
  // rest of the process (the router's accept loops share them with its /metrics). Past it,
  // one connection is closed to make room for the new one: the one draining longest, else the
  // one that has waited longest for its request, else the one whose answer has waited longest
  // to be taken. The new one is closed instead only when every open one is already
  // being closed.
  size_t max_connections = 1024;
  // The request line and headers at most; a larger head is answered 431 and closed.
  size_t max_header_bytes = 16 * 1024;
};

}  // namespace benchgate::http_listener
