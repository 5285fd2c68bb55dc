// One WAMP session of the load generator: its channel (RawSocket or WebSocket), joining the
// realm (HELLO -> WELCOME, then REGISTER or SUBSCRIBE for the roles that need it), and what
// happens when the link fails (the role's outstanding work fails with the link's kind; while
// the window sends or its start lead runs, the session reconnects and joins again at once). The
// roles are subclasses: load_session (caller, publisher), callee_session, subscriber_session.
#pragma once

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "common/serialization/value_view.h"
#include "worker/engine/load_connection.h"
#include "worker/engine/thread_state.h"
#include "worker/wamp/auth/client_auth.h"
#include "worker/wamp/channel.h"
#include "worker/wamp/codec.h"
#include "worker/wamp/wamp_plan.h"

namespace benchgate::worker::wamp {

using serialization::ViewElement;
// A message read in place (common/serialization/value_view.h): its elements, the type code first.
using MessageView = std::span<const ViewElement>;

// The longest the answer to the router's GOODBYE may take to be written before the session
// closes its link anyway (Session::answer_goodbye): far more than a kernel that has room needs,
// and short beside a window.
inline constexpr std::chrono::milliseconds kGoodbyeAnswerWait{1000};

class Session : public LoadConnection, protected ChannelEvents {
 public:
  enum class Join : uint8_t { kNone, kRegister, kSubscribe };

  Session(boost::asio::io_context& io, ThreadState& thread, const WampPlan& plan, Join join,
          bool count_bytes);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void connect(ConnectDone done) override;
  void begin_window() override;  // reconnects when down
  void start_sending() override {}
  void stop_sending() override {}
  void expire() override {}
  void close() override;
  std::string refusal() const override { return refusal_; }

 protected:
  bool up() const { return link_ == Link::kUp; }
  bool down() const { return link_ == Link::kDown; }  // neither up nor joining
  // Closes the link; the role fails what is outstanding; reconnects while the window sends
  // or its start lead runs.
  void fail(ErrorKind kind);
  // fail(kProtocol), counting one protocol error of no operation when none was outstanding.
  void fail_protocol();
  // Leaves the realm: GOODBYE (wamp.close.normal); the router's GOODBYE closes the link and
  // calls on_left. Anything else meanwhile is ignored; a failed link calls on_failed.
  void leave();
  // The session left and its link is closed (`now`: steady clock, after the close).
  virtual void on_left(int64_t /*now*/) {}
  // Every message queued on the joined session's link was written (ChannelEvents::on_drained,
  // which the session takes first: the answer to the router's GOODBYE is followed by the close).
  virtual void on_written() {}

  // A message of the joined session (not ABORT / GOODBYE, handled here), read in place
  // first: handle_view() takes what it can (the messages of each operation, in their usual
  // form: nothing is allocated for them); false leaves the message to handle(), which gets it
  // decoded into a document (the join, and anything unusual: an ERROR, a payload written in
  // another form than the worker's, a message the view does not read). The two must come to
  // the same outcome for a message both take. `message` may be moved from.
  virtual bool handle_view(uint64_t /*type*/, MessageView /*message*/, int64_t /*now*/) {
    return false;
  }
  virtual void handle(uint64_t type, Json& message, int64_t now) = 0;
  // The link failed or was closed: fail what is outstanding with `kind`; returns how many
  // operations that was.
  virtual uint32_t on_failed(ErrorKind /*kind*/) { return 0; }
  // Joined again after a reconnect while the window is sending (or, open loop, while the
  // drain still owes requests of the window).
  virtual void on_rejoined() {}
  // Whether the role still has work of the window to send (open loop, during the drain).
  virtual bool may_send() const { return thread_.phase == Phase::kRunning; }
  // A reconnect during the drain failed: what the role still owes cannot be sent.
  virtual void on_rejoin_failed() {}
  // Whether a session lost during the start lead (between begin_window and the window's start:
  // a router's idle timeout, a restart) joins again at once, so that it measures the window as
  // the others do. False for a role that opens a session per operation.
  virtual bool rejoins_in_lead() const { return true; }

  ThreadState& thread_;
  const WampPlan& plan_;
  std::unique_ptr<Channel> channel_;

 private:
  // kAnswering: the router sent GOODBYE to the joined session, and its answer is being written;
  // the link closes once it is.
  enum class Link : uint8_t { kDown, kJoining, kUp, kLeaving, kAnswering };

  void on_message(std::span<const uint8_t> bytes, int64_t now) override;
  void on_link_failed(ErrorKind kind) override;
  void on_drained() override;
  void on_join_message(uint64_t type);
  // message_, a REGISTERED or SUBSCRIBED (`answer`) during the join: joined when it answers
  // the join's `request` (the role's join is `answers` and sent it); else the join fails.
  void on_join_answer(Join answers, std::string_view answer, std::string_view request);
  // Whether message_, an ERROR, names the join's REGISTER or SUBSCRIBE (type and request id).
  bool refuses_join_request() const;
  // Whether message_'s element `at` is the join's request id (kJoinRequest).
  bool names_join_request(size_t at) const;
  // HELLO, with authentication when the workload has `auth` (encoded per connect then).
  const std::vector<uint8_t>& hello();
  void join_finished(const boost::system::error_code& ec);
  void reconnect();
  // fail(), returning how many operations it failed.
  uint32_t fail_counting(ErrorKind kind);
  // The router's GOODBYE to the joined session: GOODBYE wamp.close.goodbye_and_out back, the
  // outstanding work failed (a protocol error); the close waits for the answer to be written.
  void answer_goodbye();
  // The answer was written, or the link failed first: closed, and joined again as after fail().
  void closed_after_answer();

  Join join_;
  Link link_ = Link::kDown;
  ConnectDone join_done_;
  Json message_;  // the last decoded message (reused)
  // The elements of the last message read in place; 6: INVOCATION and EVENT with ArgumentsKw.
  std::array<ViewElement, 6> view_{};
  ClientAuth auth_;
  std::vector<uint8_t> hello_;
  std::vector<uint8_t> goodbye_;
  // Bounds the wait for the answer to the router's GOODBYE to be written (kGoodbyeAnswerWait): a
  // router that stops reading but keeps the link open holds the session no longer. Its waits
  // are told apart by answers_ (one per GOODBYE answered), so that a late one of an earlier
  // answer closes nothing.
  boost::asio::steady_timer answer_timer_;
  uint64_t answers_ = 0;
  int64_t connect_started_ns_ = 0;  // steady clock: the session's setup time starts here
  // The join sent its REGISTER or SUBSCRIBE (after WELCOME): only then is an ERROR naming that
  // request a refusal of it.
  bool join_requested_ = false;
  // Why the router refused the last setup, or how it broke the protocol in it (refusal()).
  std::string refusal_;
};

// The session for connection `index` of a WAMP workload (see wamp_driver.h for the layout).
std::unique_ptr<LoadConnection> make_caller(boost::asio::io_context& io, ThreadState& thread,
                                            const WampPlan& plan, uint32_t index);
std::unique_ptr<LoadConnection> make_publisher(boost::asio::io_context& io, ThreadState& thread,
                                               const WampPlan& plan, uint32_t index);
// Callee session `index` (0 .. callee_sessions - 1) of the worker (worker/wamp/callee_session.cc).
std::unique_ptr<LoadConnection> make_callee(boost::asio::io_context& io, ThreadState& thread,
                                            const WampPlan& plan, uint32_t index);
// One session lifecycle per operation (worker/wamp/transfer_session.cc): wamp_transfer, and
// wamp_rpc with session_per_operation.
std::unique_ptr<LoadConnection> make_lifecycle(boost::asio::io_context& io, ThreadState& thread,
                                               const WampPlan& plan);
std::unique_ptr<LoadConnection> make_subscriber(boost::asio::io_context& io, ThreadState& thread,
                                                const WampPlan& plan);

}  // namespace benchgate::worker::wamp
