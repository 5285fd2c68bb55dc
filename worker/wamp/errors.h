// Why a WAMP session could not be set up, as error codes: the engine reports a failed connect
// with the error's message, so these say what the router refused.
#pragma once

#include <boost/system/error_code.hpp>
#include <string>

namespace benchgate::worker::wamp {

enum class JoinError {
  kRawSocketRefused = 1,  // the RawSocket handshake was refused or malformed
  kNoSubprotocol,         // the WebSocket upgrade did not select the WAMP subprotocol
  kAborted,               // the router answered HELLO (or a later step) with ABORT
  kRegisterRefused,       // REGISTER answered with ERROR (procedure_already_exists, ...)
  kSubscribeRefused,      // SUBSCRIBE answered with ERROR
  kUnexpectedMessage,     // something else than the step's answer, or undecodable bytes
  kClosed,                // the transport closed during the setup
  // a CHALLENGE for another method than the workload's auth, or parameters it cannot use
  kChallengeUnanswerable,
  // WAMP-SCRAM: WELCOME's verifier is not the router's signature
  kVerifierMismatch,
};

const boost::system::error_category& join_category();

inline boost::system::error_code make_error_code(JoinError e) {
  return {static_cast<int>(e), join_category()};
}

}  // namespace benchgate::worker::wamp
