// What a WAMP session needs from its transport connection (WebSocket or RawSocket): queue a
// serialized message, and close once what is queued has been sent. The two transports are the
// implementations (websocket_connection.h, rawsocket_connection.h).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace benchgate::router::wamp {

// One serialized WAMP message. Shared so that an EVENT serialized once reaches every
// subscriber using that serializer without a copy.
using Frame = std::shared_ptr<const std::vector<uint8_t>>;

enum class SendResult : uint8_t {
  sent,
  // Larger than the peer accepts (its RawSocket handshake, or --max-message-bytes): not sent.
  too_large,
  // The connection is closing or was just dropped; nothing is sent.
  closed,
};

class Peer {
 public:
  virtual ~Peer() = default;
  // Queues `frame`. Never calls back into the session: a connection dropped here (queue over
  // --max-queued-bytes) tells its session later, from its own completion handler.
  virtual SendResult send(Frame frame) = 0;
  // Stops reading; sends what is queued, then closes the transport.
  virtual void close_after_flush() = 0;
  // Messages queued and not yet written.
  virtual size_t queued() const { return 0; }
  // The connection is closing or has ended (dropped as a slow consumer, or closing after a
  // flush): send() queues nothing more. A dropped session stays in its realm until the drop
  // reaches it, so the dealer passes over such a callee (router/wamp/dealer.cc, choose).
  virtual bool closing() const { return false; }
  // The session was established (WELCOME queued): the connection's session-setup deadline
  // (WampOptions::session_setup_timeout_ns) no longer applies.
  virtual void session_established() {}
  // The session ended with GOODBYE and the transport stays open for a new HELLO: the
  // session-setup deadline applies again, from now.
  virtual void session_ended() {}
};

}  // namespace benchgate::router::wamp
