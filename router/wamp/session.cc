// The WAMP session state machine and dispatch (see session.h).
#include "router/wamp/session.h"

#include <string>

#include "router/wamp/core.h"
#include "router/wamp/message_check.h"

namespace benchgate::router::wamp {
namespace {

constexpr const char* kProtocolViolation = "wamp.error.protocol_violation";

// WELCOME.Details: the roles this router plays (Basic Profile: no features) and who the
// anonymous session is.
Json welcome_details(const std::string& realm) {
  // The dealer's advanced features (router/wamp/dealer.h).
  const Json dealer = {{"features",
                        {{"progressive_call_results", true},
                         {"call_timeout", true},
                         {"call_canceling", true},
                         {"shared_registration", true},
                         {"session_meta_api", true}}}};
  return Json{{"roles", {{"broker", Json::object()}, {"dealer", dealer}}},
              {"authid", "anonymous"},
              {"authrole", "anonymous"},
              {"authmethod", "anonymous"},
              {"authprovider", "static"},
              {"realm", realm},
              {"agent", "benchgate-router"}};
}

}  // namespace

Session::Session(WampCore& core, Peer& peer, Serializer serializer)
    : core_(core), peer_(peer), serializer_(serializer) {}

Session::~Session() { leave(); }

void Session::on_message(std::span<const uint8_t> bytes) {
  if (state_ == State::closed) return;
  metrics::WampCounters& counters = core_.stats().counters;
  Json message;
  if (!decode(serializer_, bytes, message)) {
    counters.count_message(kInvalidSlot, metrics::Direction::in, bytes.size());
    const std::string why =
        "the message is not well-formed " + std::string(serializer_name(serializer_));
    return abort(kProtocolViolation, why);
  }
  const CheckResult check = check_client_message(message);
  counters.count_message(check.ok() ? message_slot(check.type) : kInvalidSlot,
                         metrics::Direction::in, bytes.size());
  if (!check.ok()) return abort(kProtocolViolation, check.problem);
  dispatch(check.type, message);
}

void Session::on_oversize(uint64_t size, uint64_t limit) {
  if (state_ == State::closed) return;
  core_.stats().counters.count_message(kInvalidSlot, metrics::Direction::in, 0);
  abort(kProtocolViolation, "a message of " + std::to_string(size) +
                                " bytes exceeds the maximum message size of " +
                                std::to_string(limit) + " bytes");
}

void Session::on_over_budget(uint64_t bytes) {
  if (state_ == State::closed) return;
  abort(kBufferBudgetExceeded,
        "the router cannot hold a buffer of " + std::to_string(bytes) +
            " bytes for this message now: its budget for messages being read "
            "(--max-buffered-bytes) is spent; try again later");
}

void Session::on_drained() {
  if (state_ == State::established) core_.dealer().on_drained(*this);
}

void Session::on_transport_closed() {
  leave();
  state_ = State::closed;
}

void Session::dispatch(MessageType type, Json& message) {
  if (state_ == State::awaiting_hello) {
    if (type == MessageType::kHello) return on_hello(message);
    if (type == MessageType::kAbort) {
      state_ = State::closed;
      return peer_.close_after_flush();
    }
    return abort(kProtocolViolation, "the first message of a session must be HELLO");
  }
  switch (type) {
    case MessageType::kHello:
      return abort(kProtocolViolation, "HELLO received after the session was established");
    case MessageType::kAbort:
      leave();
      state_ = State::closed;
      return peer_.close_after_flush();
    case MessageType::kGoodbye:
      return on_goodbye();
    case MessageType::kError:
      if (message[1].get<int64_t>() != static_cast<int64_t>(MessageType::kInvocation)) {
        return abort(kProtocolViolation, "a client may only send ERROR for an INVOCATION");
      }
      return core_.dealer().on_invocation_error(*this, message);
    case MessageType::kPublish:
      return core_.broker().on_publish(*this, message);
    case MessageType::kSubscribe:
      return core_.broker().on_subscribe(*this, message);
    case MessageType::kUnsubscribe:
      return core_.broker().on_unsubscribe(*this, message);
    case MessageType::kCall:
      return core_.dealer().on_call(*this, message);
    case MessageType::kRegister:
      return core_.dealer().on_register(*this, message);
    case MessageType::kUnregister:
      return core_.dealer().on_unregister(*this, message);
    case MessageType::kYield:
      return core_.dealer().on_yield(*this, message);
    case MessageType::kCancel:
      return core_.dealer().on_cancel(*this, message);
    default:
      return abort(kProtocolViolation, "a client may not send this message type");
  }
}

void Session::on_hello(Json& message) {
  const std::string& realm = message[1].get_ref<const std::string&>();
  if (!is_valid_uri(realm)) return abort("wamp.error.invalid_uri", "the realm is not a valid URI");
  const Json& details = message[2];
  const auto roles = details.find("roles");
  if (roles != details.end() && !roles->is_object()) {
    return abort(kProtocolViolation, "HELLO.Details.roles must be a dict");
  }
  if (roles != details.end()) {
    const Json* features = nullptr;
    if (const auto callee = roles->find("callee"); callee != roles->end() && callee->is_object()) {
      if (const auto f = callee->find("features"); f != callee->end()) features = &*f;
    }
    callee_cancels = features != nullptr && features->is_object() &&
                     features->value("call_canceling", false) == true;
  }
  do {
    id_ = core_.random_id();
  } while (core_.find_session(id_) != nullptr);
  realm_ = &core_.attach(*this, realm);
  state_ = State::established;
  ++core_.stats().sessions;
  send(Json::array({static_cast<int>(MessageType::kWelcome), id_, welcome_details(realm)}));
}

void Session::on_goodbye() {
  send(Json::array(
      {static_cast<int>(MessageType::kGoodbye), Json::object(), "wamp.close.goodbye_and_out"}));
  leave();
  // The transport may carry a new session (a new HELLO); most clients close it now.
  state_ = State::awaiting_hello;
}

void Session::leave() {
  if (state_ != State::established) return;
  core_.detach(*this);
  --core_.stats().sessions;
  realm_ = nullptr;
  state_ = State::awaiting_hello;
}

SendResult Session::send(const Json& message) {
  auto buffer = std::make_shared<std::vector<uint8_t>>();
  buffer->reserve(encoded_size_hint(serializer_, message));
  encode(serializer_, message, *buffer);
  return send_frame(buffer, static_cast<MessageType>(message[0].get<uint64_t>()));
}

SendResult Session::send_frame(const Frame& frame, MessageType type) {
  const size_t size = frame->size();
  const SendResult result = peer_.send(frame);
  metrics::WampCounters& counters = core_.stats().counters;
  if (result == SendResult::sent) {
    counters.count_message(message_slot(type), metrics::Direction::out, size);
  } else if (result == SendResult::too_large) {
    ++counters.drops[static_cast<size_t>(metrics::DropReason::too_large)];
  }
  return result;
}

SendResult Session::send_error(MessageType request_type, uint64_t request, const char* uri) {
  return send(Json::array({static_cast<int>(MessageType::kError), static_cast<int>(request_type),
                           request, Json::object(), uri}));
}

void Session::abort(const char* reason, std::string_view message) {
  if (state_ == State::closed) return;
  if (std::string_view(reason) == kProtocolViolation) ++core_.stats().counters.protocol_errors;
  send(Json::array({static_cast<int>(MessageType::kAbort), Json{{"message", message}}, reason}));
  leave();
  state_ = State::closed;
  peer_.close_after_flush();
}

}  // namespace benchgate::router::wamp
