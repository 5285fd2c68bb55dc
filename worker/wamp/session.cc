#include "worker/wamp/session.h"

#include "common/time/clock.h"
#include "common/util/shown_text.h"
#include "worker/wamp/errors.h"
#include "worker/wamp/message_type.h"

namespace benchgate::worker::wamp {

Session::Session(boost::asio::io_context& io, ThreadState& thread, const WampPlan& plan, Join join,
                 bool count_bytes)
    : thread_(thread), plan_(plan), join_(join), auth_(plan.spec.auth), answer_timer_(io) {
  if (plan.spec.transport == WampRequestSpec::Transport::kRawSocket) {
    channel_ = make_rawsocket_channel(io, plan.channel, *this, thread.stats, count_bytes, &thread);
  } else {
    channel_ = make_websocket_channel(io, plan.channel, *this, thread.stats, count_bytes, &thread);
  }
}

void Session::connect(ConnectDone done) {
  channel_->close();
  link_ = Link::kJoining;
  join_done_ = std::move(done);
  refusal_.clear();
  join_requested_ = false;
  connect_started_ns_ = steady_now_ns();
  channel_->open([this](const boost::system::error_code& ec) {
    if (ec) return join_finished(ec);
    channel_->send(hello(), {});
  });
}

const std::vector<uint8_t>& Session::hello() {
  if (auth_.anonymous()) return plan_.hello;
  Json details = plan_.hello_details;
  auth_.add_to_hello(details);
  encode(plan_.spec.serializer,
         Json::array({code(MessageType::kHello), plan_.spec.realm, std::move(details)}), hello_);
  return hello_;
}

void Session::join_finished(const boost::system::error_code& ec) {
  if (ec) {
    channel_->close();
    link_ = Link::kDown;
  } else {
    link_ = Link::kUp;
  }
  ConnectDone done = std::move(join_done_);
  join_done_ = nullptr;
  if (done) done(ec);
}

void Session::on_join_message(uint64_t type) {
  switch (type) {
    case code(MessageType::kChallenge): {
      const auto reply = auth_.answer(message_);
      if (!reply) return join_finished(make_error_code(JoinError::kChallengeUnanswerable));
      encode(plan_.spec.serializer, *reply, hello_);
      return channel_->send(hello_, {});
    }
    case code(MessageType::kWelcome):
      if (message_.size() < 3 || !auth_.welcome_ok(message_[2])) {
        return join_finished(make_error_code(JoinError::kVerifierMismatch));
      }
      thread_.setup.session_setup.record(steady_now_ns() - connect_started_ns_);
      if (join_ == Join::kNone) return join_finished({});
      join_requested_ = true;
      return channel_->send(
          join_ == Join::kRegister ? plan_.register_message : plan_.subscribe_message, {});
    case code(MessageType::kRegistered):
      return on_join_answer(Join::kRegister, "REGISTERED", "REGISTER");
    case code(MessageType::kSubscribed):
      return on_join_answer(Join::kSubscribe, "SUBSCRIBED", "SUBSCRIBE");
    case code(MessageType::kAbort):
      refusal_ = abort_refusal(message_);
      return join_finished(make_error_code(JoinError::kAborted));
    case code(MessageType::kError):
      // [ERROR, REQUEST.Type, REQUEST.Request, Details, Error, ...]: a refusal of the join's
      // REGISTER or SUBSCRIBE only when that request was sent and the ERROR names it. Any other
      // (before WELCOME, to a caller's or a publisher's join, for another request) answers
      // nothing the join asked: an unexpected message, not a refusal of a request never sent.
      if (join_requested_ && refuses_join_request()) {
        refusal_ = error_refusal(
            message_, join_ == Join::kRegister
                          ? "REGISTER of the procedure '" + shown_text(plan_.spec.procedure) + "'"
                          : "SUBSCRIBE to the topic '" + shown_text(plan_.spec.topic) + "'");
        return join_finished(make_error_code(
            join_ == Join::kRegister ? JoinError::kRegisterRefused : JoinError::kSubscribeRefused));
      }
      break;
    default:
      break;
  }
  join_finished(make_error_code(JoinError::kUnexpectedMessage));
}

// [REGISTERED, REGISTER.Request|id, Registration|id] or [SUBSCRIBED, SUBSCRIBE.Request|id,
// Subscription|id]: the join's answer only when the join sent that request and it names it. Any
// other (before WELCOME, to a role that sends no such request, for another request id) answers
// nothing the session asked: the router broke the protocol, and the session fails at once
// naming what came; accepted, the session went on as if registered or subscribed.
void Session::on_join_answer(Join answers, std::string_view answer, std::string_view request) {
  const JoinRequest state = join_ != answers  ? JoinRequest::kNone
                            : join_requested_ ? JoinRequest::kSent
                                              : JoinRequest::kPending;
  if (state == JoinRequest::kSent && names_join_request(1)) return join_finished({});
  refusal_ = unrequested_answer(message_, answer, request, state);
  join_finished(make_error_code(JoinError::kUnrequestedAnswer));
}

bool Session::refuses_join_request() const {
  const MessageType request =
      join_ == Join::kRegister ? MessageType::kRegister : MessageType::kSubscribe;
  return message_.size() > 2 && message_[1].is_number_unsigned() &&
         message_[1].get<uint64_t>() == code(request) && names_join_request(2);
}

bool Session::names_join_request(size_t at) const {
  return message_.size() > at && message_[at].is_number_unsigned() &&
         message_[at].get<uint64_t>() == kJoinRequest;
}

void Session::on_message(std::span<const uint8_t> bytes, int64_t now) {
  if (link_ == Link::kAnswering) return;  // the session ended: only the answer to it is due
  if (link_ == Link::kUp) {
    size_t size = 0;
    if (serialization::read_elements(plan_.spec.serializer, bytes, view_, size) && size > 0 &&
        view_[0].kind == ViewElement::Kind::unsigned_int) {
      const uint64_t type = view_[0].number;
      if (type != code(MessageType::kAbort) && type != code(MessageType::kGoodbye) &&
          handle_view(type, MessageView(view_.data(), size), now)) {
        return;
      }
    }
  }
  const bool decoded = decode(plan_.spec.serializer, bytes, message_);
  const bool shaped =
      decoded && message_.is_array() && !message_.empty() && message_[0].is_number_unsigned();
  if (link_ == Link::kJoining) {
    if (!shaped) return join_finished(make_error_code(JoinError::kUnexpectedMessage));
    return on_join_message(message_[0].get<uint64_t>());
  }
  if (!shaped) return fail_protocol();  // the stream cannot be trusted any more
  const uint64_t type = message_[0].get<uint64_t>();
  // The session's GOODBYE is answered by the router's; what was in flight before it is ignored.
  // An ABORT instead is the router ending the session, as below.
  if (link_ == Link::kLeaving && type != code(MessageType::kAbort)) {
    if (type != code(MessageType::kGoodbye)) return;
    channel_->close();
    link_ = Link::kDown;
    return on_left(steady_now_ns());
  }
  if (type == code(MessageType::kAbort) || type == code(MessageType::kGoodbye)) {
    // The router ended the joined session: its words go into the window's result (worker.proto
    // WindowResult.sessions_ended), so that the report says why besides the error counted.
    if (thread_.phase != Phase::kIdle) {
      add_session_end(
          thread_.stats.sessions_ended,
          closing_words(message_, type == code(MessageType::kAbort) ? "ABORT" : "GOODBYE"), 1);
    }
    if (type == code(MessageType::kGoodbye)) return answer_goodbye();
    return fail_protocol();
  }
  handle(type, message_, now);
}

void Session::on_link_failed(ErrorKind kind) {
  if (link_ == Link::kJoining) return join_finished(make_error_code(JoinError::kClosed));
  // The router closed the link before (or as) the answer to its GOODBYE was written: the
  // session had ended, and its error is counted already.
  if (link_ == Link::kAnswering) return closed_after_answer();
  // A frame the transport cannot read is a protocol error as a message that is no WAMP
  // message is: counted on its own when it failed no operation.
  if (kind == ErrorKind::kProtocol) return fail_protocol();
  fail(kind);
}

void Session::leave() {
  if (link_ != Link::kUp) return;
  link_ = Link::kLeaving;
  encode(plan_.spec.serializer,
         Json::array({code(MessageType::kGoodbye), Json::object(), "wamp.close.normal"}), goodbye_);
  channel_->send(goodbye_, {});
}

// The router ended the joined session with GOODBYE. The WAMP spec has the peer answer with its
// own GOODBYE, wamp.close.goodbye_and_out, and then close the transport; closing at once (as for
// an ABORT) could drop the answer unwritten. So what the session had outstanding fails now,
// counted as for an ABORT (one protocol error), and the link closes, and the session joins again,
// once the answer is written (on_drained) or the router closed the link first.
void Session::answer_goodbye() {
  encode(plan_.spec.serializer,
         Json::array({code(MessageType::kGoodbye), Json::object(), "wamp.close.goodbye_and_out"}),
         goodbye_);
  channel_->send(goodbye_, {});
  link_ = Link::kAnswering;
  // A 40-byte answer the kernel has not taken within the wait: the router no longer reads.
  const uint64_t answer = ++answers_;
  answer_timer_.expires_after(kGoodbyeAnswerWait);
  answer_timer_.async_wait([this, answer](const boost::system::error_code& ec) {
    if (ec || answer != answers_ || link_ != Link::kAnswering) return;
    closed_after_answer();
  });
  if (on_failed(ErrorKind::kProtocol) == 0 && thread_.phase != Phase::kIdle) {
    thread_.stats.record_connection_error(ErrorKind::kProtocol);
  }
}

void Session::on_drained() {
  if (link_ == Link::kAnswering) return closed_after_answer();
  on_written();
}

void Session::closed_after_answer() {
  answer_timer_.cancel();
  channel_->close();
  link_ = Link::kDown;
  if (may_send() || (thread_.phase == Phase::kWaiting && rejoins_in_lead())) reconnect();
}

void Session::fail(ErrorKind kind) { fail_counting(kind); }

uint32_t Session::fail_counting(ErrorKind kind) {
  channel_->close();
  link_ = Link::kDown;
  const uint32_t failed = on_failed(kind);
  if (may_send() || (thread_.phase == Phase::kWaiting && rejoins_in_lead())) reconnect();
  return failed;
}

// A protocol error is attributed to the operations it fails, once each; one that fails none (a
// subscriber's, a callee's, an idle caller's) belongs to no operation and counts once on its
// own (docs/MEASUREMENT.md "Operations, successes and errors").
void Session::fail_protocol() {
  if (fail_counting(ErrorKind::kProtocol) == 0 && thread_.phase != Phase::kIdle) {
    thread_.stats.record_connection_error(ErrorKind::kProtocol);
  }
}

void Session::reconnect() {
  connect([this](const boost::system::error_code& ec) {
    if (ec) {
      if (thread_.phase != Phase::kIdle) thread_.stats.record_connection_error(ErrorKind::kConnect);
      if (thread_.phase == Phase::kDraining) on_rejoin_failed();
      return;
    }
    if (may_send()) on_rejoined();
  });
}

void Session::begin_window() {
  // An answer to the router's GOODBYE still unwritten by the next window (a router that neither
  // reads it nor closes the link) holds the session no longer.
  if (link_ == Link::kAnswering) {
    answer_timer_.cancel();
    channel_->close();
    link_ = Link::kDown;
  }
  if (link_ == Link::kDown) reconnect();
}

void Session::close() {
  answer_timer_.cancel();
  channel_->close();
  link_ = Link::kDown;
  join_done_ = nullptr;
}

}  // namespace benchgate::worker::wamp
