// The WAMP session state machine and dispatch (see session.h).
#include "router/wamp/session.h"

#include <string>

#include "common/units/units.h"
#include "router/wamp/core.h"
#include "router/wamp/message_check.h"
#include "router/wamp/message_view.h"

namespace benchgate::router::wamp {
namespace {

constexpr const char* kProtocolViolation = "wamp.error.protocol_violation";

// WELCOME.Details: the roles this router plays (the dealer with its advanced features) and who the
// session is (`identity`: authid, authrole, authmethod, authprovider, authextra).
Json welcome_details(const std::string& realm, Json identity) {
  // The dealer's advanced features (router/wamp/dealer.h).
  const Json dealer = {{"features",
                        {{"progressive_call_results", true},
                         {"call_timeout", true},
                         {"call_canceling", true},
                         {"shared_registration", true},
                         {"session_meta_api", true}}}};
  Json details{{"roles", {{"broker", Json::object()}, {"dealer", dealer}}}};
  for (auto& [key, value] : identity.items()) details[key] = std::move(value);
  details["realm"] = realm;
  details["agent"] = "benchgate-router";
  return details;
}

auth::Action action_of(MessageType type) {
  switch (type) {
    case MessageType::kCall:
      return auth::Action::call;
    case MessageType::kRegister:
      return auth::Action::register_procedure;
    case MessageType::kPublish:
      return auth::Action::publish;
    default:
      return auth::Action::subscribe;
  }
}

}  // namespace

Session::Session(WampCore& core, Peer& peer, Serializer serializer)
    : core_(core), peer_(peer), serializer_(serializer) {}

Session::~Session() { leave(); }

void Session::on_message(std::span<const uint8_t> bytes) {
  if (state_ == State::closed) return;
  // The messages routed per operation go without a document; authorization (a role) and
  // everything else go through one.
  if (state_ == State::established && role_ == nullptr && route_in_place(bytes)) return;
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

bool Session::route_in_place(std::span<const uint8_t> bytes) {
  MessageView view;
  if (!read_view(serializer_, bytes, view)) return false;
  bool routed = false;
  switch (view.type) {
    case MessageType::kCall:
      routed = core_.dealer().route_call(*this, view);
      break;
    case MessageType::kYield:
      routed = core_.dealer().route_yield(*this, view);
      break;
    case MessageType::kPublish:
      routed = core_.broker().route_publish(*this, view);
      break;
    default:
      break;
  }
  if (routed) {
    core_.stats().counters.count_message(message_slot(view.type), metrics::Direction::in,
                                         bytes.size());
  }
  return routed;
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

void Session::on_message_timeout() {
  if (state_ == State::closed) return;
  const auto timeout_ns = static_cast<double>(core_.options().message_timeout_ns);
  abort(kMessageTimeout, "a message was not complete within " + format_duration_ns(timeout_ns) +
                             " of its first bytes (--message-timeout)");
}

bool Session::on_setup_timeout() {
  if (state_ != State::awaiting_authenticate) return false;
  const auto timeout_ns = static_cast<double>(core_.options().session_setup_timeout_ns);
  abort(kSessionSetupTimeout, "the session was not established within " +
                                  format_duration_ns(timeout_ns) + " (--session-setup-timeout)");
  return true;
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
  if (state_ == State::awaiting_authenticate) {
    if (type == MessageType::kAuthenticate) return on_authenticate(message);
    if (type == MessageType::kAbort) {
      state_ = State::closed;
      return peer_.close_after_flush();
    }
    return abort(kProtocolViolation,
                 "after CHALLENGE a client may send AUTHENTICATE or ABORT only");
  }
  if (role_ != nullptr &&
      (type == MessageType::kCall || type == MessageType::kRegister ||
       type == MessageType::kPublish || type == MessageType::kSubscribe) &&
      !authorized(type, message)) {
    return;
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
  // Set by every HELLO, roles or none: a HELLO without them on a transport that carried an
  // earlier session must not inherit that session's features.
  const Json* features = nullptr;
  if (roles != details.end()) {
    if (const auto callee = roles->find("callee"); callee != roles->end() && callee->is_object()) {
      if (const auto f = callee->find("features"); f != callee->end()) features = &*f;
    }
  }
  callee_cancels = features != nullptr && features->is_object() &&
                   features->value("call_canceling", false) == true;
  // The id is picked now: a WAMP-CRA challenge names it.
  do {
    id_ = core_.random_id();
  } while (core_.find_session(id_) != nullptr);
  pending_realm_ = realm;
  handshake_ = std::make_unique<auth::Handshake>(core_.options().auth.get());
  take_auth_step(handshake_->hello(realm, details, id_));
}

void Session::on_authenticate(Json& message) {
  if (!handshake_) return abort(kProtocolViolation, "AUTHENTICATE without a CHALLENGE");
  take_auth_step(handshake_->authenticate(message[1], message[2]));
}

void Session::take_auth_step(auth::Step step) {
  metrics::WampCounters& counters = core_.stats().counters;
  switch (step.kind) {
    case auth::Step::Kind::challenge:
      state_ = State::awaiting_authenticate;
      send(step.message);
      return;
    case auth::Step::Kind::abort:
      handshake_.reset();
      ++counters
            .auth_refused[static_cast<size_t>(step.method_slot)][static_cast<size_t>(step.fail)];
      return abort(step.reason.c_str(), step.message["message"].get<std::string>());
    case auth::Step::Kind::welcome:
      handshake_.reset();
      break;
  }
  // Another session may have taken the id while this one authenticated.
  while (core_.find_session(id_) != nullptr) id_ = core_.random_id();
  role_ = step.role;
  realm_ = &core_.attach(*this, pending_realm_);
  state_ = State::established;
  ++core_.stats().sessions;
  ++counters.auth_welcomed[static_cast<size_t>(step.method_slot)];
  send(Json::array({static_cast<int>(MessageType::kWelcome), id_,
                    welcome_details(pending_realm_, std::move(step.message))}));
  peer_.session_established();
}

bool Session::authorized(MessageType type, const Json& message) {
  const auth::Action action = action_of(type);
  if (role_->allows(action, message[3].get_ref<const std::string&>())) return true;
  ++core_.stats().counters.authorization_denied[static_cast<size_t>(action)];
  // A PUBLISH is answered only when it asked for an acknowledgement (Basic Profile).
  if (type == MessageType::kPublish) {
    const auto acknowledge = message[2].find("acknowledge");
    if (acknowledge == message[2].end() || !acknowledge->is_boolean() ||
        !acknowledge->get<bool>()) {
      return false;
    }
  }
  send_error(type, id_of(message[1]), "wamp.error.not_authorized");
  return false;
}

void Session::on_goodbye() {
  send(Json::array(
      {static_cast<int>(MessageType::kGoodbye), Json::object(), "wamp.close.goodbye_and_out"}));
  leave();
  // What HELLO told of the session ends with it: the next HELLO on this transport starts anew.
  role_ = nullptr;
  callee_cancels = false;
  pending_realm_.clear();
  // The transport may carry a new session (a new HELLO); most clients close it now. One that
  // does not must join again within --session-setup-timeout.
  state_ = State::awaiting_hello;
  peer_.session_ended();
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

void Session::refuse(metrics::SessionLimit limit, MessageType request_type, uint64_t request) {
  ++core_.stats().counters.limit_refusals[static_cast<size_t>(limit)];
  const char* uri = kTooManyPendingCalls;
  switch (limit) {
    case metrics::SessionLimit::pending_calls:
      break;
    case metrics::SessionLimit::registrations:
      uri = kTooManyRegistrations;
      break;
    case metrics::SessionLimit::subscriptions:
      uri = kTooManySubscriptions;
      break;
    case metrics::SessionLimit::router_pending_calls:
      uri = kRouterTooManyPendingCalls;
      break;
  }
  send_error(request_type, request, uri);
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
