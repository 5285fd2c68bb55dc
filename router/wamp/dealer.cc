// RPC routing (see dealer.h).
#include "router/wamp/dealer.h"

#include <algorithm>
#include <string>
#include <vector>

#include "router/metrics/inject_work.h"
#include "router/wamp/core.h"
#include "router/wamp/message_check.h"
#include "router/wamp/realm.h"
#include "router/wamp/session.h"

namespace benchgate::router::wamp {
namespace {

constexpr int kError = static_cast<int>(MessageType::kError);

// Procedures and topics under "wamp." belong to the router (meta API).
bool reserved(const std::string& uri) { return uri.starts_with("wamp."); }

// Options.match (pattern-based registration) is not offered: only exact matching.
bool exact_match(const Json& options) {
  const auto match = options.find("match");
  return match == options.end() ||
         (match->is_string() && match->get_ref<const std::string&>() == "exact");
}

// Appends Arguments|list and ArgumentsKw|dict, moved from `from` starting at `first`.
void move_payload(Json& from, size_t first, Json& to) {
  for (size_t i = first; i < from.size(); ++i) to.push_back(std::move(from[i]));
}

}  // namespace

void Dealer::on_register(Session& session, Json& message) {
  const uint64_t request = id_of(message[1]);
  const std::string& procedure = message[3].get_ref<const std::string&>();
  if (!is_valid_uri(procedure) || reserved(procedure)) {
    session.send_error(MessageType::kRegister, request, "wamp.error.invalid_uri");
    return;
  }
  const Json& options = message[2];
  const auto invoke = options.find("invoke");
  if (!exact_match(options) || (invoke != options.end() && *invoke != "single")) {
    session.send_error(MessageType::kRegister, request, "wamp.error.invalid_argument");
    return;
  }
  Realm& realm = *session.realm();
  if (procedure == kEchoProcedure || realm.procedures.contains(procedure)) {
    session.send_error(MessageType::kRegister, request, "wamp.error.procedure_already_exists");
    return;
  }
  const uint64_t registration = core_.next_id();
  realm.procedures.emplace(procedure, Registration{registration, &session});
  realm.registration_uris.emplace(registration, procedure);
  session.registrations.push_back(registration);
  session.send(Json::array({static_cast<int>(MessageType::kRegistered), request, registration}));
}

void Dealer::on_unregister(Session& session, Json& message) {
  const uint64_t request = id_of(message[1]);
  const uint64_t registration = id_of(message[2]);
  Realm& realm = *session.realm();
  auto& mine = session.registrations;
  const auto own = std::find(mine.begin(), mine.end(), registration);
  if (own == mine.end()) {
    session.send_error(MessageType::kUnregister, request, "wamp.error.no_such_registration");
    return;
  }
  mine.erase(own);
  const auto uri = realm.registration_uris.find(registration);
  if (uri != realm.registration_uris.end()) {
    realm.procedures.erase(uri->second);
    realm.registration_uris.erase(uri);
  }
  session.send(Json::array({static_cast<int>(MessageType::kUnregistered), request}));
}

void Dealer::on_call(Session& caller, Json& message) {
  metrics::inject_work(core_.options().inject_work_ns);
  const uint64_t request = id_of(message[1]);
  const std::string& procedure = message[3].get_ref<const std::string&>();
  if (procedure == kEchoProcedure) {
    Json result = Json::array({static_cast<int>(MessageType::kResult), request, Json::object()});
    move_payload(message, 4, result);
    const SendResult sent = caller.send(result);
    if (sent == SendResult::too_large) {
      caller.send_error(MessageType::kCall, request, "wamp.error.payload_size_exceeded");
    }
    if (sent == SendResult::sent) ++core_.stats().counters.calls_routed;
    return;
  }
  if (!is_valid_uri(procedure)) {
    caller.send_error(MessageType::kCall, request, "wamp.error.invalid_uri");
    return;
  }
  Realm& realm = *caller.realm();
  const auto found = realm.procedures.find(procedure);
  if (found == realm.procedures.end()) {
    caller.send_error(MessageType::kCall, request, "wamp.error.no_such_procedure");
    return;
  }
  Session& callee = *found->second.callee;
  const uint64_t invocation = core_.next_id();
  Json routed = Json::array(
      {static_cast<int>(MessageType::kInvocation), invocation, found->second.id, Json::object()});
  move_payload(message, 4, routed);
  switch (callee.send(routed)) {
    case SendResult::sent:
      pending_.emplace(invocation, Pending{caller.id(), request, &callee});
      ++core_.stats().counters.calls_routed;
      return;
    case SendResult::too_large:
      caller.send_error(MessageType::kCall, request, "wamp.error.payload_size_exceeded");
      return;
    case SendResult::closed:
      caller.send_error(MessageType::kCall, request, "wamp.error.canceled");
      return;
  }
}

void Dealer::on_yield(Session& callee, Json& message) {
  const auto found = pending_.find(id_of(message[1]));
  // A YIELD for nothing pending (its caller left, or a stray id) is ignored.
  if (found == pending_.end() || found->second.callee != &callee) return;
  const Pending pending = found->second;
  const auto progress = message[2].find("progress");
  const bool progressive = progress != message[2].end() && *progress == true;
  if (!progressive) pending_.erase(found);
  Session* caller = core_.find_session(pending.caller_session);
  if (caller == nullptr) return;
  Json details = progressive ? Json{{"progress", true}} : Json::object();
  Json result = Json::array(
      {static_cast<int>(MessageType::kResult), pending.caller_request, std::move(details)});
  move_payload(message, 3, result);
  if (caller->send(result) == SendResult::too_large) {
    caller->send_error(MessageType::kCall, pending.caller_request,
                       "wamp.error.payload_size_exceeded");
  }
}

void Dealer::on_invocation_error(Session& callee, Json& message) {
  const auto found = pending_.find(id_of(message[2]));
  if (found == pending_.end() || found->second.callee != &callee) return;
  const Pending pending = found->second;
  pending_.erase(found);
  Session* caller = core_.find_session(pending.caller_session);
  if (caller == nullptr) return;
  Json error = Json::array({kError, static_cast<int>(MessageType::kCall), pending.caller_request,
                            std::move(message[3]), std::move(message[4])});
  move_payload(message, 5, error);
  if (caller->send(error) == SendResult::too_large) {
    caller->send_error(MessageType::kCall, pending.caller_request,
                       "wamp.error.payload_size_exceeded");
  }
}

void Dealer::session_left(Session& session) {
  Realm* realm = session.realm();
  if (realm != nullptr) {
    for (const uint64_t registration : session.registrations) {
      const auto uri = realm->registration_uris.find(registration);
      if (uri == realm->registration_uris.end()) continue;
      realm->procedures.erase(uri->second);
      realm->registration_uris.erase(uri);
    }
  }
  session.registrations.clear();
  std::vector<Pending> canceled;
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->second.callee == &session) {
      canceled.push_back(it->second);
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  for (const Pending& pending : canceled) {
    Session* caller = core_.find_session(pending.caller_session);
    if (caller != nullptr && caller != &session) {
      caller->send_error(MessageType::kCall, pending.caller_request, "wamp.error.canceled");
    }
  }
}

}  // namespace benchgate::router::wamp
