// What an ERROR answering a CALL or a PUBLISH counts as (docs/MEASUREMENT.md "Operations,
// successes and errors", "Cross-checks"), one rule for every session that calls or publishes:
// the callers and publishers of load_session.cc and the one CALL of each lifecycle of
// transfer_session.cc (wamp_transfer, wamp_rpc with session_per_operation). The router counts a
// call once it sent its INVOCATION (or answered it itself: bench.echo, bench.transfer), so a
// refused call is no call it routed, and a callee's ERROR is one.
//
// The URIs of refusals are those the bundled router's dealer refuses a CALL with before routing
// it (router/wamp/dealer.cc, and the session limits of router/wamp/session.h), and those the WAMP
// spec gives a Dealer that did not route a call, which other routers send: no callee available,
// no callee eligible under the call's exclusion or eligibility options, an option the Dealer does
// not allow (a disclose_me it refuses among them), an authorization it could not decide. A caller
// cannot tell more from the message: the router forwards a callee's ERROR as the callee wrote it
// (its Details, URI and Arguments) and writes its own with empty Details, as a callee may. So a
// callee that answers with one of these URIs is taken for a refusal, and two of them are
// refusals only mostly: wamp.error.payload_size_exceeded is also a callee's RESULT too large for
// the caller, after routing; wamp.error.invalid_argument is also a callee's (the spec's first
// use of it). A call that found the link of every callee of its procedure closing was not
// routed: the bundled router refuses it with wamp.error.no_available_callee, and keeps
// wamp.error.canceled for a routed call whose callee left (a callee_error: routed, though not the
// callee's answer).
#pragma once

#include <string_view>

#include "worker/engine/error_kind.h"
#include "worker/wamp/codec.h"

namespace benchgate::worker::wamp {

// ERROR `uri` to a CALL: the router refused the call (not routed). wamp.error.not_authorized,
// the session role's refusal, is one; the worker counts it under a kind of its own.
constexpr bool router_refused_call(std::string_view uri) {
  return uri == "wamp.error.no_such_procedure" || uri == "wamp.error.invalid_uri" ||
         uri == "wamp.error.invalid_argument" || uri == "wamp.error.not_authorized" ||
         uri == "wamp.error.payload_size_exceeded" ||
         uri == "benchgate.error.too_many_pending_calls" ||
         uri == "benchgate.error.router_too_many_pending_calls" ||
         // The WAMP spec's, for a Dealer; the bundled router sends this one for a call whose
         // callees' links are all closing (router/wamp/dealer.cc), and none of the others.
         uri == "wamp.error.no_available_callee" || uri == "wamp.error.no_eligible_callee" ||
         uri == "wamp.error.option_not_allowed" ||
         uri == "wamp.error.option_disallowed.disclose_me" ||
         uri == "wamp.error.authorization_failed";
}

// The kind of ERROR `uri` to a CALL (`cancel_sent`: the worker sent CANCEL for it): a refusal
// by the session's role, the dealer's call timeout and the cancellation the worker asked for
// are kinds of their own; any other ERROR is the router's refusal (wamp_error) or came after
// the router routed the call, the callee's answer (callee_error).
constexpr ErrorKind call_error_kind(std::string_view uri, bool cancel_sent) {
  if (uri == "wamp.error.not_authorized") return ErrorKind::kNotAuthorized;
  if (uri == "wamp.error.timeout") return ErrorKind::kCallTimeout;
  if (uri == "wamp.error.canceled" && cancel_sent) return ErrorKind::kCanceled;
  return router_refused_call(uri) ? ErrorKind::kWampError : ErrorKind::kCalleeError;
}

// The kind of ERROR `uri` to a PUBLISH: always the broker's refusal (a publication reaches no
// callee), wamp.error.not_authorized under its own kind.
constexpr ErrorKind publish_error_kind(std::string_view uri) {
  return uri == "wamp.error.not_authorized" ? ErrorKind::kNotAuthorized : ErrorKind::kWampError;
}

// [ERROR, REQUEST.Type, REQUEST.Request, Details, Error|uri, ...] answering a CALL (`publish`
// false) or a PUBLISH, as the two above count it; one with no URI is the router's refusal.
inline ErrorKind answer_error_kind(const Json& error, bool publish, bool cancel_sent) {
  if (error.size() <= 4 || !error[4].is_string()) return ErrorKind::kWampError;
  const std::string& uri = error[4].get_ref<const std::string&>();
  return publish ? publish_error_kind(uri) : call_error_kind(uri, cancel_sent);
}

}  // namespace benchgate::worker::wamp
