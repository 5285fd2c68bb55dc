// Settings of the WAMP router, already parsed and validated (see router/app/config.h).
#pragma once

#include <cstdint>
#include <memory>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>

#include "common/wamp/message_limits.h"
#include "router/memory/buffer_budget.h"

namespace benchgate::auth {
struct AuthConfig;  // common/auth/auth_config.h
}

namespace benchgate::router::wamp {

struct WampOptions {
  // Port 0 picks a free port.
  boost::asio::ip::tcp::endpoint websocket{boost::asio::ip::make_address_v4("127.0.0.1"), 0};
  boost::asio::ip::tcp::endpoint rawsocket{boost::asio::ip::make_address_v4("127.0.0.1"), 0};
  // Largest serialized WAMP message accepted or sent (RawSocket: also at most 16 MiB - 1, the
  // most its 24-bit frame length can say). Larger incoming -> ABORT protocol_violation.
  uint64_t max_message_bytes = wamp_limits::kRouterDefaultMaxMessageBytes;
  // Open WAMP connections over both transports; more are refused (RawSocket handshake error
  // 4, WebSocket HTTP 503).
  uint32_t max_sessions = 10000;
  // Outbound bytes queued for one connection, counted as what the queued messages' buffers
  // hold (their capacity: at least 1 KiB for a routed message, router/wamp/frame_pool.h); a
  // message that would pass it (while others are queued) drops the connection as a slow
  // consumer.
  uint64_t max_queued_bytes = 128ull << 20;
  // Per session, what the router keeps for it on the WAMP thread: the calls it has pending as a
  // caller (routed to a callee that has not answered yet, and bench.transfers under way;
  // --max-pending-calls-per-session), the procedures it has registered and the topics it has
  // subscribed to (--max-registrations-per-session, --max-subscriptions-per-session). A request
  // past one gets an ERROR (kTooManyPendingCalls, kTooManyRegistrations,
  // kTooManySubscriptions in router/wamp/session.h), counted in wamp_limit_refusals{limit};
  // without them a client calling a callee that never answers, or subscribing to topic after
  // topic, grew the router's memory without bound. 4096 pending calls: the most a worker keeps
  // in flight per connection (in_flight <= 4096, worker/engine/validate.cc).
  uint32_t max_pending_calls_per_session = 4096;
  // --max-pending-calls: the calls pending in the whole router, all callers together (one
  // serving thread holds every realm's dealer state, router/wamp/wamp_server.h), counted as the
  // per-session limit counts them. Past it a CALL gets ERROR kRouterTooManyPendingCalls,
  // counted in wamp_limit_refusals{limit=router_pending_calls}. The per-session limit alone
  // let --max-sessions callers hold 10,000 x 4096 calls of 128 bytes each (about 5 GiB). At
  // the default 2^20, routed calls' nodes take up to about 128 MiB: 128 bytes each from the
  // thread's size-class pool, and a 64-byte deadline node besides for a call with a timeout (up
  // to about 192 MiB when every call has one; router/wamp/dealer.h, dealer.cc checks both sizes
  // at compile time). Not in that figure: the bucket array of the dealer's hash table of calls,
  // 8 bytes a bucket, about 11 MiB once 2^20 calls were pending at once (libstdc++ grows it to
  // 1,447,153 buckets for them and does not shrink it), and bench.transfers, which count
  // against the limit as calls do but are entries of about 56 bytes in their caller's list (a
  // vector, with its spare capacity), not nodes. 2^20 is 256 connections of a worker at its
  // largest in_flight.
  uint32_t max_pending_calls = 1u << 20;
  uint32_t max_registrations_per_session = 1000;
  uint32_t max_subscriptions_per_session = 1000;
  // --session-setup-timeout: a connection's session must be established (WELCOME sent) within
  // this time of the start of its opening handshake (after the TLS handshake, with TLS): the
  // RawSocket or WebSocket handshake, HELLO, and CHALLENGE / AUTHENTICATE all within it; and
  // again within this time of a GOODBYE that leaves the transport open. Else it is closed (a
  // peer waited on for AUTHENTICATE first gets ABORT benchgate.error.session_setup_timeout),
  // so connections that never join cannot hold the --max-sessions slots.
  int64_t session_setup_timeout_ns = 10'000'000'000;
  // A message being received must be complete within this time of the read that brought its
  // first bytes (--message-timeout): else ABORT benchgate.error.message_timeout and close, so
  // a peer that stops in the middle of a message gives its buffer back.
  int64_t message_timeout_ns = 60'000'000'000;
  // The process-wide budget incoming messages are assembled within (shared with the HTTP
  // server); none: unbounded (tests).
  std::shared_ptr<memory::BufferBudget> buffer_budget;
  // TLS (--tls-cert): the listeners' server contexts (router/tls/server_context.h; WebSocket
  // offers ALPN "http/1.1", RawSocket takes part in no ALPN); null: cleartext.
  std::shared_ptr<boost::asio::ssl::context> websocket_tls;
  std::shared_ptr<boost::asio::ssl::context> rawsocket_tls;
  // The TLS handshake must finish within this time of the accept; the WAMP opening
  // handshake's timeout starts after it.
  int64_t tls_handshake_timeout_ns = 10'000'000'000;
  // Busy work per CALL before it is routed (--inject-work-ns, a calibration aid); 0: off.
  int64_t inject_work_ns = 0;
  // --auth-config: the realms, principals and roles sessions authenticate against
  // (router/wamp/auth); none: every session joins anonymously and may do everything.
  std::shared_ptr<const benchgate::auth::AuthConfig> auth;
  // --ws-fragment-bytes: every WebSocket message the router sends larger than this goes out
  // as frames of this many payload bytes (a first frame and continuation frames); 0: each
  // message in one frame.
  uint64_t ws_fragment_bytes = 0;
};

}  // namespace benchgate::router::wamp
