// The dealer role: REGISTER / UNREGISTER / CALL / YIELD / ERROR / CANCEL, routing each call to
// a session that registered the procedure (exact URI match), and the procedures the router
// answers itself: bench.echo, bench.transfer and the meta procedure wamp.session.count.
//
// Advanced profile features: shared registrations (REGISTER.Options.invoke "single", the
// default, or "roundrobin", "random", "first", "last": every session registering the same
// procedure with the same policy joins one registration, and each call goes to one of them),
// call timeouts (CALL.Options.timeout in ms: when it passes, the caller gets ERROR
// wamp.error.timeout and the callee an INTERRUPT), call canceling (CANCEL with mode "skip",
// "kill" or "killnowait", the default), progressive call results (YIELD.Options.progress is
// passed on as RESULT.Details.progress).
//
// What a session holds here is bounded (router/wamp/options.h): a caller has at most
// --max-pending-calls-per-session calls pending, bench.transfers included, all callers
// together at most --max-pending-calls, and a session at most --max-registrations-per-session
// registrations; past them the request gets an ERROR.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include "common/util/size_class_pool.h"
#include "router/wamp/call_index.h"
#include "router/wamp/frame_pool.h"
#include "router/wamp/message_view.h"
#include "router/wamp/peer.h"
#include "router/wamp/serializer.h"
#include "router/wamp/session_ids.h"

namespace benchgate::router::wamp {

class Session;
class WampCore;
struct Registration;

using CallClock = std::chrono::steady_clock;
// What times out at a deadline: a pending call (its invocation id), or a bench.transfer (its
// id, of the invocations' space, and its caller's session id, so that its timeout looks at
// that session's transfers only; 0 for a call: session ids start at 1).
struct CallDeadline {
  uint64_t id = 0;
  uint64_t transfer_caller = 0;
};
// Call deadlines, soonest first. Nodes from the thread's size-class pool, as the pending
// calls' are.
using CallDeadlines =
    std::multimap<CallClock::time_point, CallDeadline, std::less<>,
                  PoolAllocator<std::pair<const CallClock::time_point, CallDeadline>>>;

// A call routed to a callee and not answered yet. It is in two lists, linked through the calls
// themselves: its caller's (Session::calls_made) and its callee's (Session::calls_served), so
// that a session that leaves visits its own calls only, not every call pending in the router;
// and in the dealer's index by caller and request id (router/wamp/call_index.h), which a
// CANCEL looks its call up in. The links live in the call's node, so a routed call costs no
// allocation (commit 715ae67 took out a std::map node per call for that reason).
struct PendingCall {
  uint64_t invocation = 0;
  // Both are alive while the call is pending: a session that leaves ends the calls it made and
  // serves first (Dealer::session_left).
  Session* caller = nullptr;
  uint64_t caller_request = 0;
  Session* callee = nullptr;
  // The call's entry in the dealer's deadlines, taken out with the call whichever way it ends.
  std::optional<CallDeadlines::iterator> deadline;
  PendingCall* caller_prev = nullptr;
  PendingCall* caller_next = nullptr;
  PendingCall* callee_prev = nullptr;
  PendingCall* callee_next = nullptr;
  // The next call in its bucket of the dealer's index (CallIndex).
  PendingCall* request_next = nullptr;
  bool interrupted = false;  // CANCEL mode "kill": waiting for the callee's ERROR
  // CALL.Options.receive_progress: without it a progressive YIELD is not forwarded, since
  // the caller would take its RESULT for the call's answer.
  bool receive_progress = false;
};

inline constexpr const char* kEchoProcedure = "bench.echo";
// bench.transfer(transfer_bytes, chunk_bytes), called with receive_progress: progressive
// RESULTs [offset, chunk] carrying bytes offset .. offset + chunk of the pattern byte i =
// 'a' + i % 26, chunk_bytes each (the last one shorter), then a final RESULT [transfer_bytes].
// Chunks are produced as the caller's connection drains (at most kTransferChunksQueued
// queued), so a transfer never holds more than that in the router. The router is the callee:
// CANCEL in any mode ends a transfer (ERROR wamp.error.canceled), and CALL.Options.timeout
// ends it with ERROR wamp.error.timeout, as for a routed call.
inline constexpr const char* kTransferProcedure = "bench.transfer";
inline constexpr const char* kSessionCountProcedure = "wamp.session.count";
inline constexpr size_t kTransferChunksQueued = 2;
// Chunk buffers the router keeps for reuse (a queue holds at most kTransferChunksQueued of a
// session's, plus the one being written; more sessions transferring at once share them).
inline constexpr size_t kTransferFramesKept = 8;
// The largest transfer_bytes bench.transfer accepts (1 TiB).
inline constexpr uint64_t kMaxTransferBytes = uint64_t{1} << 40;

class Dealer {
 public:
  explicit Dealer(WampCore& core);
  ~Dealer();

  // Call timeouts run on `executor` (the serving thread's); without it they are not armed.
  void use_executor(boost::asio::any_io_executor executor);
  // Cancels the timeout timer (on the serving thread, so that its io_context can stop).
  void stop_timers();
  // Destroys the timer; after the serving thread has ended, before its io_context goes.
  void release_timers();

  // Each handler takes a message that passed check_client_message; arguments are moved out
  // of it into the message routed on.
  void on_register(Session& session, Json& message);
  void on_unregister(Session& session, Json& message);
  void on_call(Session& caller, Json& message);
  void on_yield(Session& callee, Json& message);
  void on_cancel(Session& caller, Json& message);
  // CALL and YIELD read in place (router/wamp/message_view.h), routed as on_call and on_yield
  // route them, without a document (router/wamp/routing_frames.h). False, with nothing done,
  // where the message needs the document path: a procedure the router answers otherwise than
  // bench.echo, an invalid or unknown procedure, a CALL.Options.timeout that is not an
  // unsigned integer, an option key the view cannot read.
  bool route_call(Session& caller, const MessageView& message);
  bool route_yield(Session& callee, const MessageView& message);
  // ERROR from a callee for an INVOCATION (the caller has checked REQUEST.Type).
  void on_invocation_error(Session& callee, Json& message);
  // The session's connection has room for more (fewer than kTransferChunksQueued messages
  // queued): its transfers go on.
  void on_drained(Session& session);
  // Drops the session's registrations, transfers and the calls it made; the callers of the
  // calls it serves get ERROR wamp.error.canceled.
  void session_left(Session& session);

  // The call deadlines held: one per pending call or bench.transfer that has a timeout, none
  // for a call that has ended (answered, failed, canceled, timed out, or its caller or callee
  // gone).
  size_t call_deadlines_held() const { return deadlines_.size(); }
  // Calls pending, all callers together, as --max-pending-calls counts them: routed calls not
  // answered yet and bench.transfers under way (the sum of every session's calls_pending).
  uint64_t calls_pending() const { return calls_pending_; }

 private:
  using Clock = CallClock;
  using Deadlines = CallDeadlines;
  using Pending = PendingCall;
  struct Transfer {
    uint64_t request = 0;
    uint64_t total = 0;
    uint64_t chunk = 0;
    uint64_t sent = 0;
    // With CALL.Options.timeout: the transfer's entry in deadlines_, under an id of the
    // invocations' space (so that no pending call has it), taken out whichever way it ends.
    uint64_t id = 0;
    std::optional<Deadlines::iterator> deadline;
  };
  using Transfers = std::unordered_map<uint64_t, std::vector<Transfer>>;

  // The callee of `registration` that gets the next call, as its policy says, among those
  // whose link is not closing; nullptr when every one's is.
  Session* choose(Registration& registration);
  // Sends the INVOCATION for the caller's CALL `request` (send_invocation(callee) sends it) to
  // the callee choose() gives, and to the next one while a send finds the link closing; the
  // call is then pending or answered (invoked), or, where every callee's link is closing,
  // refused with ERROR wamp.error.no_available_callee.
  template <typename SendInvocation>
  void invoke(Registration& registration, Session& caller, uint64_t request, uint64_t invocation,
              std::optional<Clock::time_point> deadline, bool receive_progress,
              SendInvocation send_invocation);
  // The INVOCATION for the caller's CALL `request` was sent (or not, as `sent` says; invoke()
  // passes no closed link here, but tries the next callee): the call is pending (with its
  // deadline), or the caller gets the ERROR.
  void invoked(SendResult sent, Session& caller, uint64_t request, Session& callee,
               uint64_t invocation, std::optional<Clock::time_point> deadline,
               bool receive_progress);
  void start_transfer(Session& caller, uint64_t request, const Json& message);
  // Whether `caller` may have one more call pending (--max-pending-calls-per-session, then
  // --max-pending-calls); when not, its CALL `request` is answered with ERROR
  // kTooManyPendingCalls or kRouterTooManyPendingCalls and counted.
  bool may_call(Session& caller, uint64_t request);
  // Ends the transfer at `index` of `caller`'s list `list` (its deadline too); the list goes
  // when it is empty, the chunks' buffers when no transfer is left.
  void end_transfer(Session& caller, Transfers::iterator list, size_t index);
  // Ends the caller's transfer for CALL `request` with ERROR `uri`; false when none is under
  // way.
  bool stop_transfer(Session& caller, uint64_t request, const char* uri);
  // Ends the transfer at `index` of `caller`'s list `list` with ERROR `uri` (CANCEL, timeout),
  // counted as a call routed if no chunk of it went out yet.
  void fail_transfer(Session& caller, Transfers::iterator list, size_t index, const char* uri);
  // The transfer of session `caller` whose deadline is `id` timed out: ended, counted, ERROR
  // wamp.error.timeout to its caller; false when no transfer has that deadline. Looks at that
  // session's transfers only (at most --max-pending-calls-per-session).
  bool time_out_transfer(uint64_t id, uint64_t caller);
  // CALL.Options.timeout as a deadline (nullopt: none, or no timer); false when the option
  // is not an unsigned integer.
  bool call_deadline(const Json& options, std::optional<Clock::time_point>& deadline) const;
  // Sends chunks while the caller's queue has room; false when the transfer is over.
  bool pump(Session& caller, Transfer& transfer);
  // [INTERRUPT, invocation, {mode, reason}] when the callee announced call canceling.
  void interrupt(Session& callee, uint64_t invocation, const char* mode, const char* reason);
  // The pending call serving the caller's CALL `request`, looked up in calls_by_request_;
  // nullptr when none is. Request ids are not checked for uniqueness (see router/README.md on
  // call canceling): where a client reused one while its first call was pending, this is
  // either call's.
  Pending* find_call(const Session& caller, uint64_t request) const;
  void arm_timer();
  void on_timer();

  WampCore& core_;
  using PendingCalls = std::unordered_map<uint64_t, Pending, std::hash<uint64_t>, std::equal_to<>,
                                          PoolAllocator<std::pair<const uint64_t, Pending>>>;
  // Ends the call: takes it out of pending_ and out of its caller's and its callee's lists,
  // and its deadline, if it has one, out of deadlines_ (every path that ends a call goes
  // through here, so that an ended call holds nothing).
  PendingCalls::iterator end_call(PendingCalls::iterator call);

  // Invocation request id -> the call it serves. Its nodes come from the thread's size-class
  // pool (common/util/size_class_pool.h): a routed call allocates no node.
  PendingCalls pending_;
  // pending_'s calls by caller and CALL request id, for CANCEL: linked through the calls, its
  // buckets grown at a new peak of calls pending only.
  CallIndex<Pending> calls_by_request_;
  // pending_'s calls and the transfers under way, against --max-pending-calls.
  uint64_t calls_pending_ = 0;
  // One entry per pending call with a timeout, and none for a call that has ended: a client
  // that calls with the longest timeout (2^40 ms) and has each call answered at once leaves
  // nothing behind.
  Deadlines deadlines_;
  std::optional<boost::asio::steady_timer> timer_;
  std::optional<Clock::time_point> armed_for_;
  // Transfers under way by caller session id.
  Transfers transfers_;
  // Where each of a session's registration ids sits in Session::registrations.
  SessionIds registrations_;
  std::vector<uint8_t> pattern_;  // 'a' + i % 26, one chunk and a period long
  // The chunks' buffers, reused as the queues let them go: a chunk of megabytes in a new buffer
  // each time cost a page fault per 4 KiB written (glibc gives large blocks back to the kernel
  // when they are freed). Kept while transfers are under way, freed when none is.
  FramePool transfer_frames_{kTransferFramesKept, SIZE_MAX};
};

}  // namespace benchgate::router::wamp
