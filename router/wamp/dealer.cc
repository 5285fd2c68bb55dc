// RPC routing (see dealer.h).
#include "router/wamp/dealer.h"

#include <algorithm>
#include <string>
#include <vector>

#include "router/metrics/inject_work.h"
#include "router/wamp/core.h"
#include "router/wamp/message_check.h"
#include "router/wamp/realm.h"
#include "router/wamp/routing_frames.h"
#include "router/wamp/session.h"

namespace benchgate::router::wamp {
namespace {

constexpr int kError = static_cast<int>(MessageType::kError);
constexpr int kResult = static_cast<int>(MessageType::kResult);

// Procedures and topics under "wamp." belong to the router (meta API).
bool reserved(const std::string& uri) { return uri.starts_with("wamp."); }

// Options.match (pattern-based registration) is not offered: only exact matching.
bool exact_match(const Json& options) {
  const auto match = options.find("match");
  return match == options.end() ||
         (match->is_string() && match->get_ref<const std::string&>() == "exact");
}

std::optional<InvokePolicy> invoke_policy(const Json& options) {
  const auto invoke = options.find("invoke");
  if (invoke == options.end()) return InvokePolicy::kSingle;
  if (!invoke->is_string()) return std::nullopt;
  const std::string& name = invoke->get_ref<const std::string&>();
  if (name == "single") return InvokePolicy::kSingle;
  if (name == "roundrobin") return InvokePolicy::kRoundRobin;
  if (name == "random") return InvokePolicy::kRandom;
  if (name == "first") return InvokePolicy::kFirst;
  if (name == "last") return InvokePolicy::kLast;
  return std::nullopt;
}

// Appends Arguments|list and ArgumentsKw|dict, moved from `from` starting at `first`.
void move_payload(Json& from, size_t first, Json& to) {
  for (size_t i = first; i < from.size(); ++i) to.push_back(std::move(from[i]));
}

bool is_true(const Json& dict, const char* key) {
  const auto it = dict.find(key);
  return it != dict.end() && *it == true;
}

// A non-negative integer argument at `index` of CALL.Arguments (message[4]).
std::optional<uint64_t> unsigned_argument(const Json& message, size_t index) {
  if (message.size() < 5 || !message[4].is_array() || message[4].size() <= index) {
    return std::nullopt;
  }
  const Json& value = message[4][index];
  if (!value.is_number_unsigned()) return std::nullopt;
  return value.get<uint64_t>();
}

// What the --max-pending-calls default is said to bound (router/wamp/options.h): a pending
// call's node of pending_ fits the pool's 128-byte size class, its deadline's the 64-byte one.
static_assert(sizeof(void*) + sizeof(std::pair<const uint64_t, PendingCall>) <= 128);
static_assert(4 * sizeof(void*) + sizeof(std::pair<const CallClock::time_point, CallDeadline>) <=
              64);

}  // namespace

Dealer::Dealer(WampCore& core) : core_(core) {}

Dealer::~Dealer() = default;

void Dealer::use_executor(boost::asio::any_io_executor executor) { timer_.emplace(executor); }

void Dealer::stop_timers() {
  if (timer_) timer_->cancel();
  armed_for_.reset();
  for (auto& [invocation, pending] : pending_) pending.deadline.reset();
  for (auto& [session, list] : transfers_) {
    for (Transfer& transfer : list) transfer.deadline.reset();
  }
  deadlines_.clear();
}

Dealer::PendingCalls::iterator Dealer::end_call(PendingCalls::iterator call) {
  Pending& pending = call->second;
  if (pending.deadline) deadlines_.erase(*pending.deadline);
  (pending.caller_prev ? pending.caller_prev->caller_next : pending.caller->calls_made) =
      pending.caller_next;
  if (pending.caller_next) pending.caller_next->caller_prev = pending.caller_prev;
  (pending.callee_prev ? pending.callee_prev->callee_next : pending.callee->calls_served) =
      pending.callee_next;
  if (pending.callee_next) pending.callee_next->callee_prev = pending.callee_prev;
  calls_by_request_.erase(pending);
  --pending.caller->calls_pending;
  --calls_pending_;
  return pending_.erase(call);
}

void Dealer::release_timers() { timer_.reset(); }

void Dealer::on_register(Session& session, Json& message) {
  const uint64_t request = id_of(message[1]);
  const std::string& procedure = message[3].get_ref<const std::string&>();
  if (!is_valid_uri(procedure) || reserved(procedure)) {
    session.send_error(MessageType::kRegister, request, "wamp.error.invalid_uri");
    return;
  }
  const Json& options = message[2];
  const auto policy = invoke_policy(options);
  if (!exact_match(options) || !policy) {
    session.send_error(MessageType::kRegister, request, "wamp.error.invalid_argument");
    return;
  }
  if (procedure == kEchoProcedure || procedure == kTransferProcedure) {
    session.send_error(MessageType::kRegister, request, "wamp.error.procedure_already_exists");
    return;
  }
  Realm& realm = *session.realm();
  const auto existing = realm.procedures.find(procedure);
  Registration* shared = nullptr;
  if (existing != realm.procedures.end()) {
    shared = &existing->second;
    if (shared->policy != *policy) {
      session.send_error(MessageType::kRegister, request,
                         "wamp.error.procedure_exists_with_different_invocation_policy");
      return;
    }
    if (*policy == InvokePolicy::kSingle || registrations_.contains(session, shared->id)) {
      session.send_error(MessageType::kRegister, request, "wamp.error.procedure_already_exists");
      return;
    }
  }
  if (session.registrations.size() >= core_.options().max_registrations_per_session) {
    session.refuse(metrics::SessionLimit::registrations, MessageType::kRegister, request);
    return;
  }
  uint64_t registration = 0;
  size_t at = 0;
  if (shared != nullptr) {
    at = shared->callees.size();
    shared->callees.push_back(&session);
    ++shared->live;
    registration = shared->id;
  } else {
    registration = core_.next_id();
    realm.procedures.emplace(procedure, Registration{registration, *policy, {&session}, 1, 0, 0});
    realm.registration_uris.emplace(registration, procedure);
  }
  registrations_.add(session, session.registrations, registration, at);
  session.send(Json::array({static_cast<int>(MessageType::kRegistered), request, registration}));
}

// Keeps the callees in registration order without the gaps (nullptr) of those that left;
// `index` learns where each went, and roundrobin's next turn stays the callee it was.
static void compact(Registration& registration, SessionIds& index) {
  auto& callees = registration.callees;
  size_t kept = 0;
  size_t next = SIZE_MAX;
  for (size_t i = 0; i < callees.size(); ++i) {
    if (i == registration.next) next = kept;
    if (callees[i] == nullptr) continue;
    callees[kept] = callees[i];
    index.move_shared(*callees[kept], registration.id, kept);
    ++kept;
  }
  callees.resize(kept);
  registration.first = 0;
  registration.next = next == SIZE_MAX ? kept : next;
}

// Takes the callee at `at` out of the registration; the procedure goes with its last callee.
// The others keep their order: the callee's entry becomes a gap, trailing gaps go at once,
// leading ones stay (`first` moves past them), and the list is compacted when more than half of
// it is gaps, so that a session's leaving costs what it holds (amortized), not a scan of every
// callee.
static void leave_registration(Realm& realm, uint64_t registration, size_t at, SessionIds& index) {
  const auto uri = realm.registration_uris.find(registration);
  if (uri == realm.registration_uris.end()) return;
  const auto procedure = realm.procedures.find(uri->second);
  if (procedure != realm.procedures.end()) {
    Registration& shared = procedure->second;
    auto& callees = shared.callees;
    callees[at] = nullptr;
    if (--shared.live > 0) {
      while (callees.back() == nullptr) callees.pop_back();
      // roundrobin's turn after a callee that was last: at the end, so that a callee that
      // registers next gets it (beyond the end, choose() would wrap to `first` past it).
      shared.next = std::min(shared.next, callees.size());
      while (callees[shared.first] == nullptr) ++shared.first;
      if (callees.size() - shared.live > shared.live) compact(shared, index);
      return;
    }
    realm.procedures.erase(procedure);
  }
  realm.registration_uris.erase(uri);
}

void Dealer::on_unregister(Session& session, Json& message) {
  const uint64_t request = id_of(message[1]);
  const uint64_t registration = id_of(message[2]);
  const auto at = registrations_.remove(session, session.registrations, registration);
  if (!at) {
    session.send_error(MessageType::kUnregister, request, "wamp.error.no_such_registration");
    return;
  }
  leave_registration(*session.realm(), registration, *at, registrations_);
  session.send(Json::array({static_cast<int>(MessageType::kUnregistered), request}));
}

// A callee whose link is closing (dropped as a slow consumer, not gone yet) is passed over:
// what is sent to it goes nowhere, and the WAMP spec's wamp.error.no_available_callee means
// that no callee of the registration could take the call, not that the chosen one could not.
Session* Dealer::choose(Registration& registration) {
  auto& callees = registration.callees;
  const auto open = [](const Session* callee) {
    return callee != nullptr && !callee->link_closing();
  };
  switch (registration.policy) {
    case InvokePolicy::kRoundRobin: {
      // The next open callee in registration order after the one that got the last call,
      // wrapping around once. Gaps are at most half the list, so the steps over them are at
      // most one per call on average while no callee is closing.
      size_t at = registration.next < callees.size() ? registration.next : registration.first;
      for (size_t step = 0; step < callees.size(); ++step) {
        if (open(callees[at])) {
          registration.next = at + 1;
          return callees[at];
        }
        at = at + 1 < callees.size() ? at + 1 : registration.first;
      }
      return nullptr;
    }
    case InvokePolicy::kRandom: {
      // Uniform over the callees: a gap is drawn again (at most half are gaps: two draws on
      // average). A closing callee drawn (probability closing / live) gives way to a draw
      // among the open ones, so each open one is chosen with 1/live + closing/live/open =
      // 1/open.
      Session* drawn = nullptr;
      while (drawn == nullptr) drawn = callees[core_.random_id() % callees.size()];
      if (!drawn->link_closing()) return drawn;
      const auto open_count =
          static_cast<size_t>(std::count_if(callees.begin(), callees.end(), open));
      if (open_count == 0) return nullptr;
      size_t nth = core_.random_id() % open_count;
      for (Session* callee : callees) {
        if (open(callee) && nth-- == 0) return callee;
      }
      return nullptr;  // not reached: open_count of them are open
    }
    case InvokePolicy::kLast: {
      const auto last = std::find_if(callees.rbegin(), callees.rend(), open);
      return last == callees.rend() ? nullptr : *last;
    }
    case InvokePolicy::kSingle:
    case InvokePolicy::kFirst:
      break;
  }
  const auto first = std::find_if(callees.begin() + static_cast<std::ptrdiff_t>(registration.first),
                                  callees.end(), open);
  return first == callees.end() ? nullptr : *first;
}

template <typename SendInvocation>
void Dealer::invoke(Registration& registration, Session& caller, uint64_t request,
                    uint64_t invocation, std::optional<Clock::time_point> deadline,
                    bool receive_progress, SendInvocation send_invocation) {
  // The INVOCATION that drops a callee as a slow consumer finds its link open and leaves it
  // closing, so the call goes to another: once per callee at most (a send never calls back
  // into the realm, so the registration stays as it is).
  for (size_t tries = registration.live; tries > 0; --tries) {
    Session* const callee = choose(registration);
    if (callee == nullptr) break;
    const SendResult sent = send_invocation(*callee);
    if (sent == SendResult::closed) continue;
    return invoked(sent, caller, request, *callee, invocation, deadline, receive_progress);
  }
  // Every callee's link is closing: the INVOCATION went nowhere, so the call was not routed.
  // It is refused with the WAMP spec's URI for a Dealer that found no callee available, not
  // wamp.error.canceled, which a caller cannot tell from that of a routed call whose callee
  // left (worker/wamp/call_refusal.h counts by the URI).
  caller.send_error(MessageType::kCall, request, "wamp.error.no_available_callee");
}

void Dealer::on_call(Session& caller, Json& message) {
  metrics::inject_work(core_.options().inject_work_ns);
  const uint64_t request = id_of(message[1]);
  const std::string& procedure = message[3].get_ref<const std::string&>();
  if (procedure == kEchoProcedure) {
    Json result = Json::array({kResult, request, Json::object()});
    move_payload(message, 4, result);
    const SendResult sent = caller.send(result);
    if (sent == SendResult::too_large) {
      caller.send_error(MessageType::kCall, request, "wamp.error.payload_size_exceeded");
    }
    if (sent == SendResult::sent) ++core_.stats().counters.calls_routed;
    return;
  }
  if (procedure == kTransferProcedure) return start_transfer(caller, request, message);
  if (procedure == kSessionCountProcedure) {
    // wamp.session.count(): the sessions joined to the caller's realm, the caller included.
    const Json result =
        Json::array({kResult, request, Json::object(), Json::array({caller.realm()->sessions})});
    if (caller.send(result) == SendResult::sent) ++core_.stats().counters.calls_routed;
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
  std::optional<Clock::time_point> deadline;
  if (!call_deadline(message[2], deadline)) {
    caller.send_error(MessageType::kCall, request, "wamp.error.invalid_argument");
    return;
  }
  if (!may_call(caller, request)) return;
  const uint64_t invocation = core_.next_id();
  const bool receive_progress = is_true(message[2], "receive_progress");
  Json details = Json::object();
  if (receive_progress) details["receive_progress"] = true;
  Json routed = Json::array({static_cast<int>(MessageType::kInvocation), invocation,
                             found->second.id, std::move(details)});
  move_payload(message, 4, routed);
  invoke(found->second, caller, request, invocation, deadline, receive_progress,
         [&routed](Session& callee) { return callee.send(routed); });
}

bool Dealer::call_deadline(const Json& options, std::optional<Clock::time_point>& deadline) const {
  const auto timeout = options.find("timeout");
  if (timeout == options.end()) return true;
  if (!timeout->is_number_unsigned()) return false;
  const uint64_t ms = timeout->get<uint64_t>();
  if (ms > 0 && timer_) {
    deadline = Clock::now() + std::chrono::milliseconds(std::min<uint64_t>(ms, 1ull << 40));
  }
  return true;
}

bool Dealer::may_call(Session& caller, uint64_t request) {
  if (caller.calls_pending >= core_.options().max_pending_calls_per_session) {
    caller.refuse(metrics::SessionLimit::pending_calls, MessageType::kCall, request);
    return false;
  }
  if (calls_pending_ >= core_.options().max_pending_calls) {
    caller.refuse(metrics::SessionLimit::router_pending_calls, MessageType::kCall, request);
    return false;
  }
  return true;
}

void Dealer::invoked(SendResult sent, Session& caller, uint64_t request, Session& callee,
                     uint64_t invocation, std::optional<Clock::time_point> deadline,
                     bool receive_progress) {
  switch (sent) {
    case SendResult::sent: {
      const auto [entry, inserted] = pending_.try_emplace(invocation);
      // Invocation ids repeat only after 2^53 of them (WampCore::next_id); the call pending
      // under this one stays as it is.
      if (!inserted) return;
      Pending& pending = entry->second;
      pending.invocation = invocation;
      pending.caller = &caller;
      pending.caller_request = request;
      pending.callee = &callee;
      pending.receive_progress = receive_progress;
      // First in both lists: linking costs the same however many calls are pending.
      pending.caller_next = caller.calls_made;
      if (pending.caller_next) pending.caller_next->caller_prev = &pending;
      caller.calls_made = &pending;
      pending.callee_next = callee.calls_served;
      if (pending.callee_next) pending.callee_next->callee_prev = &pending;
      callee.calls_served = &pending;
      calls_by_request_.insert(pending);
      ++caller.calls_pending;
      ++calls_pending_;
      if (deadline) {
        pending.deadline = deadlines_.emplace(*deadline, CallDeadline{invocation, 0});
        arm_timer();
      }
      ++core_.stats().counters.calls_routed;
      return;
    }
    case SendResult::too_large:
      caller.send_error(MessageType::kCall, request, "wamp.error.payload_size_exceeded");
      return;
    case SendResult::closed:
      // invoke() tries another callee rather than pass this here; were it passed, the call
      // would still be answered, as invoke() refuses it.
      caller.send_error(MessageType::kCall, request, "wamp.error.no_available_callee");
      return;
  }
}

bool Dealer::route_call(Session& caller, const MessageView& message) {
  if (message[3].escaped) return false;
  const std::string_view procedure = message[3].text;
  const uint64_t request = message[1].number;
  if (procedure == kEchoProcedure) {
    metrics::inject_work(core_.options().inject_work_ns);
    const SendResult sent = caller.send_frame(
        result_frame(core_.frame_pool(), caller.serializer(), request, false, message, 4),
        MessageType::kResult);
    if (sent == SendResult::too_large) {
      caller.send_error(MessageType::kCall, request, "wamp.error.payload_size_exceeded");
    }
    if (sent == SendResult::sent) ++core_.stats().counters.calls_routed;
    return true;
  }
  if (procedure == kTransferProcedure || procedure == kSessionCountProcedure ||
      !is_valid_uri(procedure)) {
    return false;
  }
  Realm& realm = *caller.realm();
  const auto found = realm.procedures.find(procedure);
  if (found == realm.procedures.end()) return false;
  const Option timeout = find_option(caller.serializer(), message[2].bytes, "timeout");
  const Option progress = find_option(caller.serializer(), message[2].bytes, "receive_progress");
  if ((timeout.kind != Option::Kind::absent && timeout.kind != Option::Kind::unsigned_int) ||
      progress.kind == Option::Kind::unknown) {
    return false;
  }
  metrics::inject_work(core_.options().inject_work_ns);
  if (!may_call(caller, request)) return true;
  std::optional<Clock::time_point> deadline;
  if (timeout.kind == Option::Kind::unsigned_int && timeout.number > 0 && timer_) {
    deadline =
        Clock::now() + std::chrono::milliseconds(std::min<uint64_t>(timeout.number, 1ull << 40));
  }
  const uint64_t invocation = core_.next_id();
  const uint64_t registration = found->second.id;
  invoke(found->second, caller, request, invocation, deadline, progress.is_true(),
         [&](Session& callee) {
           const Frame frame = invocation_frame(core_.frame_pool(), callee.serializer(), invocation,
                                                registration, progress.is_true(), message, 4);
           return callee.send_frame(frame, MessageType::kInvocation);
         });
  return true;
}

bool Dealer::route_yield(Session& callee, const MessageView& message) {
  const Option progress = find_option(callee.serializer(), message[2].bytes, "progress");
  if (progress.kind == Option::Kind::unknown) return false;
  const uint64_t invocation = message[1].number;
  const auto found = pending_.find(invocation);
  if (found == pending_.end() || found->second.callee != &callee) return true;
  const Pending pending = found->second;
  const bool progressive = progress.is_true();
  // A progressive result the caller did not ask for is dropped; the final one still comes.
  if (progressive && !pending.receive_progress) return true;
  if (!progressive) end_call(found);
  Session* caller = pending.caller;
  const Frame frame = result_frame(core_.frame_pool(), caller->serializer(), pending.caller_request,
                                   progressive, message, 3);
  if (caller->send_frame(frame, MessageType::kResult) == SendResult::too_large) {
    caller->send_error(MessageType::kCall, pending.caller_request,
                       "wamp.error.payload_size_exceeded");
  }
  return true;
}

Dealer::Pending* Dealer::find_call(const Session& caller, uint64_t request) const {
  return calls_by_request_.find(&caller, request);
}

void Dealer::on_yield(Session& callee, Json& message) {
  const uint64_t invocation = id_of(message[1]);
  const auto found = pending_.find(invocation);
  // A YIELD for nothing pending (its caller left, or a stray id) is ignored.
  if (found == pending_.end() || found->second.callee != &callee) return;
  const Pending pending = found->second;
  const bool progressive = is_true(message[2], "progress");
  // A progressive result the caller did not ask for is dropped; the final one still comes.
  if (progressive && !pending.receive_progress) return;
  if (!progressive) end_call(found);
  Session* caller = pending.caller;
  Json details = progressive ? Json{{"progress", true}} : Json::object();
  Json result = Json::array({kResult, pending.caller_request, std::move(details)});
  move_payload(message, 3, result);
  if (caller->send(result) == SendResult::too_large) {
    caller->send_error(MessageType::kCall, pending.caller_request,
                       "wamp.error.payload_size_exceeded");
  }
}

void Dealer::on_invocation_error(Session& callee, Json& message) {
  const uint64_t invocation = id_of(message[2]);
  const auto found = pending_.find(invocation);
  if (found == pending_.end() || found->second.callee != &callee) return;
  const Pending pending = found->second;
  end_call(found);
  if (pending.interrupted) ++core_.stats().counters.calls_canceled;
  Session* caller = pending.caller;
  Json error = Json::array({kError, static_cast<int>(MessageType::kCall), pending.caller_request,
                            std::move(message[3]), std::move(message[4])});
  move_payload(message, 5, error);
  if (caller->send(error) == SendResult::too_large) {
    caller->send_error(MessageType::kCall, pending.caller_request,
                       "wamp.error.payload_size_exceeded");
  }
}

void Dealer::interrupt(Session& callee, uint64_t invocation, const char* mode, const char* reason) {
  if (!callee.callee_cancels) return;
  callee.send(Json::array({static_cast<int>(MessageType::kInterrupt),
                           invocation,
                           {{"mode", mode}, {"reason", reason}}}));
}

void Dealer::on_cancel(Session& caller, Json& message) {
  // [CANCEL, CALL.Request|id, Options|dict]; a CANCEL for a call no longer pending (answered
  // already, or never made) is ignored, as the spec says.
  const uint64_t request = id_of(message[1]);
  Pending* const call = find_call(caller, request);
  const auto transfers = call ? transfers_.end() : transfers_.find(caller.id());
  const bool transferring =
      transfers != transfers_.end() &&
      std::any_of(transfers->second.begin(), transfers->second.end(),
                  [request](const Transfer& transfer) { return transfer.request == request; });
  if (!call && !transferring) return;
  std::string mode = "killnowait";
  const auto given = message[2].find("mode");
  if (given != message[2].end() && given->is_string()) mode = given->get<std::string>();
  if (mode != "skip" && mode != "kill" && mode != "killnowait") {
    caller.send_error(MessageType::kCancel, request, "wamp.error.invalid_argument");
    return;
  }
  if (!call) {
    // bench.transfer: the router is the callee, so every mode ends the transfer now.
    stop_transfer(caller, request, "wamp.error.canceled");
    ++core_.stats().counters.calls_canceled;
    return;
  }
  const uint64_t invocation = call->invocation;
  const auto found = pending_.find(invocation);
  Pending& pending = found->second;
  if (mode == "kill" && pending.callee->callee_cancels) {
    // The callee answers the INTERRUPT with an ERROR, passed on to the caller then.
    if (!pending.interrupted) interrupt(*pending.callee, invocation, "kill", "wamp.error.canceled");
    pending.interrupted = true;
    return;
  }
  if (mode != "skip") interrupt(*pending.callee, invocation, "killnowait", "wamp.error.canceled");
  end_call(found);
  ++core_.stats().counters.calls_canceled;
  caller.send_error(MessageType::kCall, request, "wamp.error.canceled");
}

void Dealer::arm_timer() {
  if (!timer_ || deadlines_.empty()) return;
  const Clock::time_point first = deadlines_.begin()->first;
  if (armed_for_ && *armed_for_ <= first) return;
  armed_for_ = first;
  timer_->expires_at(first);
  timer_->async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;  // re-armed earlier, or stopping
    armed_for_.reset();
    on_timer();
  });
}

void Dealer::on_timer() {
  const Clock::time_point now = Clock::now();
  while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
    // Every entry is a pending call's or a transfer's: an ended one took its entry with it
    // (end_call, end_transfer).
    const auto [invocation, transfer_caller] = deadlines_.begin()->second;
    if (transfer_caller != 0) {
      if (!time_out_transfer(invocation, transfer_caller)) deadlines_.erase(deadlines_.begin());
      continue;
    }
    const auto found = pending_.find(invocation);
    if (found == pending_.end()) {
      deadlines_.erase(deadlines_.begin());
      continue;
    }
    const Pending pending = found->second;
    end_call(found);
    ++core_.stats().counters.calls_timed_out;
    interrupt(*pending.callee, invocation, "killnowait", "wamp.error.timeout");
    pending.caller->send_error(MessageType::kCall, pending.caller_request, "wamp.error.timeout");
  }
  arm_timer();
}

void Dealer::start_transfer(Session& caller, uint64_t request, const Json& message) {
  const auto total = unsigned_argument(message, 0);
  const auto chunk = unsigned_argument(message, 1);
  if (!total || !chunk || *chunk == 0 || *total > kMaxTransferBytes ||
      *chunk > core_.options().max_message_bytes || !is_true(message[2], "receive_progress")) {
    // The arguments are [transfer_bytes, chunk_bytes] and the chunks come as progressive
    // results, which the caller must ask for.
    caller.send_error(MessageType::kCall, request, "wamp.error.invalid_argument");
    return;
  }
  std::optional<Clock::time_point> deadline;
  if (!call_deadline(message[2], deadline)) {
    caller.send_error(MessageType::kCall, request, "wamp.error.invalid_argument");
    return;
  }
  if (!may_call(caller, request)) return;
  Transfer transfer{request, *total, *chunk, 0, 0, std::nullopt};
  if (!pump(caller, transfer)) {
    if (transfers_.empty()) transfer_frames_.release();
    return;
  }
  if (deadline) {
    transfer.id = core_.next_id();
    transfer.deadline = deadlines_.emplace(*deadline, CallDeadline{transfer.id, caller.id()});
    arm_timer();
  }
  transfers_[caller.id()].push_back(transfer);
  ++caller.calls_pending;
  ++calls_pending_;
}

void Dealer::end_transfer(Session& caller, Transfers::iterator list, size_t index) {
  --caller.calls_pending;
  --calls_pending_;
  auto& transfers = list->second;
  if (transfers[index].deadline) deadlines_.erase(*transfers[index].deadline);
  transfers.erase(transfers.begin() + static_cast<std::ptrdiff_t>(index));
  if (transfers.empty()) transfers_.erase(list);
  if (transfers_.empty()) transfer_frames_.release();
}

bool Dealer::stop_transfer(Session& caller, uint64_t request, const char* uri) {
  const auto list = transfers_.find(caller.id());
  if (list == transfers_.end()) return false;
  for (size_t i = 0; i < list->second.size(); ++i) {
    if (list->second[i].request != request) continue;
    fail_transfer(caller, list, i, uri);
    return true;
  }
  return false;
}

void Dealer::fail_transfer(Session& caller, Transfers::iterator list, size_t index,
                           const char* uri) {
  const uint64_t request = list->second[index].request;
  // Accepted and answered as a routed call is: counted routed now if no chunk counted it (one
  // queued behind the caller's other transfer), as the caller counts it (canceled,
  // call_timeout). Only a first chunk too large for the caller is a refusal (pump).
  if (list->second[index].sent == 0) ++core_.stats().counters.calls_routed;
  end_transfer(caller, list, index);
  // Chunks already queued go out first; then the ERROR ends the call.
  caller.send_error(MessageType::kCall, request, uri);
}

bool Dealer::time_out_transfer(uint64_t id, uint64_t caller_id) {
  const auto list = transfers_.find(caller_id);
  if (list == transfers_.end()) return false;
  for (size_t i = 0; i < list->second.size(); ++i) {
    if (list->second[i].id != id || !list->second[i].deadline) continue;
    // A session that leaves takes its transfers with it (session_left): the caller is here.
    Session& caller = *core_.find_session(caller_id);
    ++core_.stats().counters.calls_timed_out;
    fail_transfer(caller, list, i, "wamp.error.timeout");
    return true;
  }
  return false;
}

bool Dealer::pump(Session& caller, Transfer& transfer) {
  while (caller.queued() < kTransferChunksQueued) {
    if (transfer.sent == transfer.total) {
      if (transfer.total == 0) ++core_.stats().counters.calls_routed;  // its answer, at once
      caller.send(
          Json::array({kResult, transfer.request, Json::object(), Json::array({transfer.total})}));
      return false;
    }
    const uint64_t size = std::min(transfer.chunk, transfer.total - transfer.sent);
    const size_t phase = static_cast<size_t>(transfer.sent % 26);
    if (pattern_.size() < size + 26) {
      pattern_.resize(size + 26);
      for (size_t i = 0; i < pattern_.size(); ++i) pattern_[i] = static_cast<uint8_t>('a' + i % 26);
    }
    const Frame frame =
        transfer_chunk_frame(transfer_frames_, caller.serializer(), transfer.request, transfer.sent,
                             std::span<const uint8_t>(pattern_.data() + phase, size));
    switch (caller.send_frame(frame, MessageType::kResult)) {
      case SendResult::sent:
        // Routed once its first chunk went out. A first chunk larger than the caller takes is
        // answered with ERROR wamp.error.payload_size_exceeded instead: refused, as a caller
        // counts it (wamp_error), and as the dealer's other refusals no call routed.
        if (transfer.sent == 0) ++core_.stats().counters.calls_routed;
        break;
      case SendResult::too_large:
        caller.send_error(MessageType::kCall, transfer.request, "wamp.error.payload_size_exceeded");
        return false;
      case SendResult::closed:
        return false;
    }
    transfer.sent += size;
    core_.stats().counters.transfer_bytes += size;
  }
  return true;
}

void Dealer::on_drained(Session& session) {
  const auto found = transfers_.find(session.id());
  if (found == transfers_.end()) return;
  // One transfer at a time per session, in the order they were called; end_transfer takes
  // the list away with its last transfer.
  while (!pump(session, found->second.front())) {
    const bool last = found->second.size() == 1;
    end_transfer(session, found, 0);
    if (last) return;
  }
}

void Dealer::session_left(Session& session) {
  if (const auto list = transfers_.find(session.id()); list != transfers_.end()) {
    for (const Transfer& transfer : list->second) {
      if (transfer.deadline) deadlines_.erase(*transfer.deadline);
    }
    session.calls_pending -= static_cast<uint32_t>(list->second.size());
    calls_pending_ -= list->second.size();
    transfers_.erase(list);
  }
  if (transfers_.empty()) transfer_frames_.release();
  Realm* realm = session.realm();
  if (realm != nullptr) {
    for (const uint64_t registration : session.registrations) {
      leave_registration(*realm, registration, registrations_.shared(session, registration),
                         registrations_);
    }
  }
  registrations_.clear(session, session.registrations);
  // The calls it made first, its calls to itself among them: nobody waits for their answers
  // (the callee's YIELD is ignored).
  while (session.calls_made != nullptr) end_call(pending_.find(session.calls_made->invocation));
  // Then the calls it serves: their callers get ERROR (a slow caller's drop comes later, from
  // its connection, so that no other session leaves meanwhile).
  while (session.calls_served != nullptr) {
    const auto call = pending_.find(session.calls_served->invocation);
    Session& caller = *call->second.caller;
    const uint64_t request = call->second.caller_request;
    end_call(call);
    caller.send_error(MessageType::kCall, request, "wamp.error.canceled");
  }
}

}  // namespace benchgate::router::wamp
