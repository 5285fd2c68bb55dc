// Why a WAMP session could not be set up, as error codes: the engine reports a failed connect
// with the error's message, so these say what the router refused.
#pragma once

#include <boost/system/error_code.hpp>
#include <string>
#include <string_view>

#include "worker/wamp/codec.h"

namespace benchgate::worker::wamp {

enum class JoinError {
  kRawSocketRefused = 1,  // the RawSocket handshake was refused or malformed
  kNoSubprotocol,         // the WebSocket upgrade did not select the WAMP subprotocol
  kAborted,               // the router answered HELLO (or a later step) with ABORT (the
                          // refusal quotes its reason and message)
  kRegisterRefused,       // REGISTER answered with ERROR (the refusal quotes its URI)
  kSubscribeRefused,      // SUBSCRIBE answered with ERROR (likewise)
  kUnexpectedMessage,     // something else than the step's answer, or undecodable bytes (an
                          // ERROR naming no request the join sent, one before WELCOME too)
  kClosed,                // the transport closed during the setup
  // a CHALLENGE for another method than the workload's auth, or parameters it cannot use
  kChallengeUnanswerable,
  // WAMP-SCRAM: WELCOME's verifier is not the router's signature
  kVerifierMismatch,
  // a REGISTERED or SUBSCRIBED for no request the join sent (the refusal names what came)
  kUnrequestedAnswer,
};

const boost::system::error_category& join_category();

// What the router said when it ended a session: [ABORT, Details, Reason] or [GOODBYE, Details,
// Reason] as "ABORT REASON: Details.message" (the type's name as `name` gives it; the reason
// and the message each only where present as a string). The router's words come from a peer:
// each is cut after kShownPeerBytes bytes ("..." then) and escaped as shown_text() does
// (common/util/shown_text.h), so that they can neither forge nor colour a line, nor run on
// unbounded.
std::string closing_words(const Json& message, std::string_view name);
// What the router said when it refused a session's setup, as the engine's start error quotes it
// (LoadConnection::refusal): "the router refused the WAMP session: " then the ABORT's
// closing_words.
std::string abort_refusal(const Json& abort);
// Where the join's REGISTER or SUBSCRIBE stands when its answer comes.
enum class JoinRequest {
  kNone,     // the role sends no such request (it joins at WELCOME, or with the other request)
  kPending,  // not sent yet: WELCOME has not come
  kSent,     // sent, with request id kJoinRequest
};
// A REGISTERED or SUBSCRIBED (`answer`, its type's name) that came while the session joined but
// answers no request the join sent, `request` naming the request it would answer ("REGISTER"),
// as the engine's start error quotes it: "the router sent REGISTERED for request 7, but the
// session's REGISTER was request 1", "... before the session sent its REGISTER" (kPending),
// "... but the session sends no REGISTER" (kNone); "with no request id" where its Request is no
// id; then " (a WAMP protocol violation)".
std::string unrequested_answer(const Json& message, std::string_view answer,
                               std::string_view request, JoinRequest state);
// [ERROR, REQUEST.Type, Request, Details, Error, Arguments] answering the join's REGISTER or
// SUBSCRIBE (its type and request id: the session checks them), `request` naming it ("REGISTER of
// the procedure 'P'"): "the router refused REQUEST: ERROR URI", then ": MESSAGE" where Arguments[0]
// is a string.
std::string error_refusal(const Json& error, std::string_view request);
// The peer's text `text` as the refusals quote it.
std::string shown_peer_text(std::string_view text);
inline constexpr size_t kShownPeerBytes = 200;

inline boost::system::error_code make_error_code(JoinError e) {
  return {static_cast<int>(e), join_category()};
}

}  // namespace benchgate::worker::wamp
