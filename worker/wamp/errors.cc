#include "worker/wamp/errors.h"

#include "common/util/shown_list.h"
#include "worker/wamp/wamp_plan.h"

namespace benchgate::worker::wamp {
namespace {

// Boost's error_category has a protected non-virtual destructor by design; the one instance
// below is never deleted through a base pointer.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"
class JoinCategory : public boost::system::error_category {
 public:
  const char* name() const noexcept override { return "wamp"; }
  std::string message(int code) const override {
    switch (static_cast<JoinError>(code)) {
      case JoinError::kRawSocketRefused:
        return "WAMP RawSocket handshake refused or malformed";
      case JoinError::kNoSubprotocol:
        return "WebSocket upgrade did not select the requested WAMP subprotocol";
      case JoinError::kAborted:
        return "the router answered with ABORT while the WAMP session was set up";
      case JoinError::kRegisterRefused:
        return "REGISTER of the procedure was refused";
      case JoinError::kSubscribeRefused:
        return "SUBSCRIBE to the topic was refused";
      case JoinError::kUnexpectedMessage:
        return "unexpected or undecodable WAMP message while the session was set up";
      case JoinError::kClosed:
        return "the router closed the connection while the WAMP session was set up";
      case JoinError::kChallengeUnanswerable:
        return "the router's CHALLENGE is for another method than the workload's auth, or its "
               "parameters cannot be used";
      case JoinError::kVerifierMismatch:
        return "WAMP-SCRAM: the router's verifier in WELCOME is not its signature (the router "
               "does not know the password)";
      case JoinError::kUnrequestedAnswer:
        return "the router answered a REGISTER or SUBSCRIBE the session did not send";
    }
    return "WAMP session setup failed";
  }
};
#pragma GCC diagnostic pop

}  // namespace

const boost::system::error_category& join_category() {
  static const JoinCategory category;
  return category;
}

std::string shown_peer_text(std::string_view text) { return shown_cut(text, kShownPeerBytes); }

std::string closing_words(const Json& message, std::string_view name) {
  std::string out(name);
  if (message.size() > 2 && message[2].is_string()) {
    out.append(" ").append(shown_peer_text(message[2].get_ref<const std::string&>()));
  }
  if (message.size() > 1 && message[1].is_object()) {
    const auto text = message[1].find("message");
    if (text != message[1].end() && text->is_string()) {
      out.append(": ").append(shown_peer_text(text->get_ref<const std::string&>()));
    }
  }
  return out;
}

std::string abort_refusal(const Json& abort) {
  return "the router refused the WAMP session: " + closing_words(abort, "ABORT");
}

std::string unrequested_answer(const Json& message, std::string_view answer,
                               std::string_view request, JoinRequest state) {
  std::string out = "the router sent " + std::string(answer);
  out += message.size() > 1 && message[1].is_number_unsigned()
             ? " for request " + std::to_string(message[1].get<uint64_t>())
             : std::string(" with no request id");
  switch (state) {
    case JoinRequest::kNone:
      out += ", but the session sends no " + std::string(request);
      break;
    case JoinRequest::kPending:
      out += " before the session sent its " + std::string(request);
      break;
    case JoinRequest::kSent:
      out += ", but the session's " + std::string(request) + " was request " +
             std::to_string(kJoinRequest);
      break;
  }
  return out + " (a WAMP protocol violation)";
}

std::string error_refusal(const Json& error, std::string_view request) {
  std::string out = "the router refused " + std::string(request) + ": ERROR";
  if (error.size() > 4 && error[4].is_string()) {
    out.append(" ").append(shown_peer_text(error[4].get_ref<const std::string&>()));
  }
  if (error.size() > 5 && error[5].is_array() && !error[5].empty() && error[5][0].is_string()) {
    out.append(": ").append(shown_peer_text(error[5][0].get_ref<const std::string&>()));
  }
  return out;
}

}  // namespace benchgate::worker::wamp
