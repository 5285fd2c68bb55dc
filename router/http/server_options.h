// Settings of the HTTP server, already parsed and validated (see router/app/config.h).
#pragma once

#include <cstdint>
#include <memory>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>

#include "router/http/routes.h"
#include "router/http2/options.h"
#include "router/memory/buffer_budget.h"

namespace benchgate::router::http {

struct ServerOptions {
  // Port 0 picks a free port; every serving thread then listens on the one picked.
  boost::asio::ip::tcp::endpoint endpoint{boost::asio::ip::make_address_v4("127.0.0.1"), 0};
  // Serving threads, one io_context and one SO_REUSEPORT acceptor each.
  int threads = 1;
  // Request line plus header fields; larger -> 431 and close.
  uint32_t max_header_bytes = 8192;
  // Request body and /bench/bytes/{n}; larger body -> 413 and close, larger n -> 400.
  uint64_t max_body_bytes = 64ull << 20;
  // A connection with no request in progress and no traffic for this long is closed.
  int64_t idle_timeout_ns = 60'000'000'000;
  // A request header must arrive completely within this time of its first byte.
  int64_t header_timeout_ns = 10'000'000'000;
  // A request body must arrive completely within this time of the end of its header.
  int64_t body_timeout_ns = 60'000'000'000;
  // A cleartext connection keeps its read buffer (16 KiB) this long after its last read and
  // reads ahead into it, instead of giving it back and waiting for readability, which costs
  // an epoll_ctl per request (router/http/read_hold.h); 0: give it back after every request.
  // 5 ms is many times the pause between the requests of a busy keep-alive connection (tens
  // of microseconds on loopback, well under a millisecond on a LAN, even on a loaded machine),
  // and frees the buffer of one that paused within 7.5 ms. At most http::kMaxHolders
  // connections of a serving thread hold at once.
  int64_t read_buffer_hold_ns = 5'000'000;
  // How cleartext HTTP/1.1 connections wait for their next bytes (--http-io). kEpoll (the
  // default): in the serving thread's own edge-triggered epoll set
  // (common/net/readiness_poller.h), added once per socket, read until a short read: a
  // request costs its recv and its send, and an idle connection has no operation pending;
  // --read-buffer-hold does not apply. kAsio: through Asio, each wait a system call of its own
  // (the read ahead's EAGAIN under the hold above, or an epoll_ctl without it) and a pending
  // wait per idle connection. TLS connections and HTTP/2 always go through Asio.
  enum class Io : uint8_t { kAsio, kEpoll };
  Io http_io = Io::kEpoll;
  // The process-wide budget echo bodies are read within (shared with the WAMP router);
  // none: unbounded (tests).
  std::shared_ptr<memory::BufferBudget> buffer_budget;
  // Busy work per request before it is answered (--inject-work-ns, a calibration aid); 0: off.
  int64_t inject_work_ns = 0;

  // TLS (--tls-cert): the port's server context (router/tls/server_context.h), whose ALPN list
  // router/app/config.cc makes ("h2", then "http/1.1"); null: cleartext. A handshake that chose
  // h2 is served by the HTTP/2 server over the TLS stream (router/http2/connection.h).
  std::shared_ptr<boost::asio::ssl::context> tls_context;
  // A TLS handshake must finish within this time of the accept (else closed and counted).
  int64_t tls_handshake_timeout_ns = 10'000'000'000;

  // HTTP/2 (h2c with prior knowledge on the same port, h2 by ALPN over TLS): limits and windows.
  http2::Http2Options http2;

  RouteLimits route_limits() const { return {max_body_bytes, 60'000}; }
};

}  // namespace benchgate::router::http
