// One WAMP session on one transport connection: the session state machine (HELLO / WELCOME /
// ABORT / GOODBYE), decoding, validation, dispatch to the dealer and the broker, and sending
// with per-type metrics. Protocol errors are answered as the spec prescribes (ABORT with
// wamp.error.protocol_violation, then the transport is closed); nothing here throws.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "router/metrics/wamp_counters.h"
#include "router/wamp/auth/handshake.h"
#include "router/wamp/message_type.h"
#include "router/wamp/peer.h"
#include "router/wamp/serializer.h"

namespace benchgate::router::wamp {

class WampCore;
struct PendingCall;
struct Realm;

// ABORT reason when the router's budget for messages being read (--max-buffered-bytes) has
// no room for this one. WAMP has no standard reason for it; a peer may try again later.
inline constexpr const char* kBufferBudgetExceeded = "benchgate.error.buffer_budget_exceeded";
inline constexpr const char* kMessageTimeout = "benchgate.error.message_timeout";
// ABORT reason for a session not established within --session-setup-timeout (a peer that
// sent HELLO and did not answer the CHALLENGE in time).
inline constexpr const char* kSessionSetupTimeout = "benchgate.error.session_setup_timeout";
// ERROR reasons for a request past one of the session's limits (router/wamp/options.h): a CALL
// while --max-pending-calls-per-session of its calls are pending, a REGISTER or SUBSCRIBE past
// --max-registrations-per-session or --max-subscriptions-per-session. WAMP has no standard
// reason for them; the request may succeed once the session holds less.
inline constexpr const char* kTooManyPendingCalls = "benchgate.error.too_many_pending_calls";
inline constexpr const char* kTooManyRegistrations = "benchgate.error.too_many_registrations";
inline constexpr const char* kTooManySubscriptions = "benchgate.error.too_many_subscriptions";
// ERROR reason for a CALL while --max-pending-calls calls are pending in the whole router, all
// callers together: the caller is within its own limit, and a URI of its own tells it so.
inline constexpr const char* kRouterTooManyPendingCalls =
    "benchgate.error.router_too_many_pending_calls";

class Session {
 public:
  Session(WampCore& core, Peer& peer, Serializer serializer);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // One complete serialized message from the transport.
  void on_message(std::span<const uint8_t> bytes);
  // The peer announced a message larger than the router accepts: ABORT and close.
  void on_oversize(uint64_t size, uint64_t limit);
  // The transport cannot hold a buffer of `bytes` for the message it reads within the
  // router's buffered-bytes budget: ABORT (kBufferBudgetExceeded) and close.
  void on_over_budget(uint64_t bytes);
  // A message being received was not complete within --message-timeout of its first bytes:
  // ABORT (kMessageTimeout) and close.
  void on_message_timeout();
  // The session was not established within --session-setup-timeout. Waiting for AUTHENTICATE
  // (a HELLO came): ABORT (kSessionSetupTimeout), close after it, and true; otherwise false,
  // and the transport closes as it is.
  bool on_setup_timeout();
  // The transport is gone: leaves the realm. Idempotent.
  void on_transport_closed();
  // The transport wrote a message and has fewer than two queued (bench.transfer goes on).
  void on_drained();

  uint64_t id() const { return id_; }
  Serializer serializer() const { return serializer_; }
  Realm* realm() const { return realm_; }
  bool established() const { return state_ == State::established; }

  // Serializes and queues `message` (its first element is the type code).
  SendResult send(const Json& message);
  // Queues an already serialized message of type `type`.
  SendResult send_frame(const Frame& frame, MessageType type);
  // [ERROR, request_type, request, {}, uri]
  SendResult send_error(MessageType request_type, uint64_t request, const char* uri);
  // The request was refused at `limit` (router/wamp/options.h): counted in
  // wamp_limit_refusals{limit}, then answered with the limit's ERROR (kTooManyPendingCalls,
  // kTooManyRegistrations, kTooManySubscriptions, kRouterTooManyPendingCalls). Every refusal
  // goes through here, so that each is counted once and its URI is the limit's.
  void refuse(metrics::SessionLimit limit, MessageType request_type, uint64_t request);
  // Sends ABORT with `reason` and a human-readable message, leaves the realm, closes the
  // transport after the ABORT is out.
  void abort(const char* reason, std::string_view message);

  // Messages queued on the transport, not yet written.
  size_t queued() const { return peer_.queued(); }
  // The transport is closing (Peer::closing): whatever is sent to the session goes nowhere.
  bool link_closing() const { return peer_.closing(); }

  // Bookkeeping of the dealer and the broker, so that leaving is cheap: the ids of the
  // session's registrations and subscriptions, in no particular order (the dealer and the broker
  // index where each sits, router/wamp/session_ids.h).
  std::vector<uint64_t> registrations;
  std::vector<uint64_t> subscriptions;
  // The dealer's pending calls this session made (as caller) and serves (as callee): the
  // first of each list, linked through the calls (router/wamp/dealer.h), so that leaving
  // visits the session's own calls only, and a call allocates no list entry of its own (a
  // CANCEL looks its call up in the dealer's index, router/wamp/call_index.h).
  PendingCall* calls_made = nullptr;
  PendingCall* calls_served = nullptr;
  // Calls pending as a caller: calls_made's and the bench.transfers under way, against
  // --max-pending-calls-per-session.
  uint32_t calls_pending = 0;
  // HELLO.Details.roles.callee.features.call_canceling: the dealer may send INTERRUPT.
  bool callee_cancels = false;

 private:
  enum class State : uint8_t { awaiting_hello, awaiting_authenticate, established, closed };

  // A CALL, YIELD or PUBLISH of an established session, read in place and routed without a
  // document (router/wamp/message_view.h); false, with nothing done, where the document path
  // must handle it.
  bool route_in_place(std::span<const uint8_t> bytes);
  void dispatch(MessageType type, Json& message);
  void on_hello(Json& message);
  void on_authenticate(Json& message);
  // WELCOME or ABORT, CHALLENGE as the authentication step says (router/wamp/auth).
  void take_auth_step(auth::Step step);
  // Whether the session's role may do `type` (CALL, REGISTER, PUBLISH, SUBSCRIBE) on the URI
  // of `message`; when not: counted, answered with ERROR wamp.error.not_authorized.
  bool authorized(MessageType type, const Json& message);
  void on_goodbye();
  void leave();

  WampCore& core_;
  Peer& peer_;
  const Serializer serializer_;
  State state_ = State::awaiting_hello;
  uint64_t id_ = 0;
  Realm* realm_ = nullptr;
  // Only while a session is being established (HELLO to WELCOME or ABORT): an idle
  // established session keeps no handshake state (tests/alloc, heap bytes per connection).
  std::unique_ptr<auth::Handshake> handshake_;
  std::string pending_realm_;  // HELLO's realm while the CHALLENGE is out
  // The role deciding permissions; nullptr: the router has no --auth-config.
  const auth::Role* role_ = nullptr;
};

}  // namespace benchgate::router::wamp
