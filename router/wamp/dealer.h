// The dealer role: REGISTER / UNREGISTER / CALL / YIELD / ERROR, routing each call to the
// session that registered the procedure (exact URI match, one registration per procedure),
// and the built-in procedure bench.echo answered by the router itself.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "router/wamp/serializer.h"

namespace benchgate::router::wamp {

class Session;
class WampCore;

inline constexpr const char* kEchoProcedure = "bench.echo";

class Dealer {
 public:
  explicit Dealer(WampCore& core) : core_(core) {}

  // Each handler takes a message that passed check_client_message; arguments are moved out
  // of it into the message routed on.
  void on_register(Session& session, Json& message);
  void on_unregister(Session& session, Json& message);
  void on_call(Session& caller, Json& message);
  void on_yield(Session& callee, Json& message);
  // ERROR from a callee for an INVOCATION (the caller has checked REQUEST.Type).
  void on_invocation_error(Session& callee, Json& message);
  // Drops the session's registrations; its callers with pending calls get ERROR
  // wamp.error.canceled.
  void session_left(Session& session);

 private:
  struct Pending {
    uint64_t caller_session = 0;
    uint64_t caller_request = 0;
    Session* callee = nullptr;
  };

  WampCore& core_;
  // Invocation request id -> the call it serves.
  std::unordered_map<uint64_t, Pending> pending_;
};

}  // namespace benchgate::router::wamp
