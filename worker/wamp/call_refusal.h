// Whether an ERROR answering a CALL is the router's refusal of the call or came after the router
// had routed it (docs/MEASUREMENT.md "Operations, successes and errors", "Cross-checks"): the
// router counts a call once it sent its INVOCATION (or answered it itself: bench.echo), so a
// refused call is no call it routed, and a callee's ERROR is one.
//
// The URIs are those the bundled router's dealer refuses a CALL with before routing it
// (router/wamp/dealer.cc, and the session limits of router/wamp/session.h), and those the WAMP
// spec gives a Dealer that did not route a call, which other routers send: no callee eligible
// under the call's exclusion or eligibility options, an option the Dealer does not allow (a
// disclose_me it refuses among them), an authorization it could not decide. A caller cannot
// tell more from the message: the router forwards a callee's ERROR as the callee wrote it (its
// Details, URI and Arguments) and writes its own with empty Details, as a callee may. So a
// callee that answers with one of these URIs is taken for a refusal, and two of them are
// refusals only mostly: wamp.error.payload_size_exceeded is also a callee's RESULT too large for
// the caller, after routing; and wamp.error.canceled, not one of these, is also a call whose
// INVOCATION found its callee's link closing, before routing.
#pragma once

#include <string_view>

namespace benchgate::worker::wamp {

// ERROR `uri` to a CALL: the router refused the call (not routed). wamp.error.not_authorized,
// the session role's refusal, is one; the worker counts it under a kind of its own.
constexpr bool router_refused_call(std::string_view uri) {
  return uri == "wamp.error.no_such_procedure" || uri == "wamp.error.invalid_uri" ||
         uri == "wamp.error.invalid_argument" || uri == "wamp.error.not_authorized" ||
         uri == "wamp.error.payload_size_exceeded" ||
         uri == "benchgate.error.too_many_pending_calls" ||
         uri == "benchgate.error.router_too_many_pending_calls" ||
         // The WAMP spec's, for a Dealer: not sent by the bundled router.
         uri == "wamp.error.no_eligible_callee" || uri == "wamp.error.option_not_allowed" ||
         uri == "wamp.error.option_disallowed.disclose_me" ||
         uri == "wamp.error.authorization_failed";
}

}  // namespace benchgate::worker::wamp
