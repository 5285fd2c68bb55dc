// The sessions that generate load: callers (CALL, RESULT checked against the payload) and
// publishers (PUBLISH carrying its intended and actual send instants, its sequence and the
// window; acknowledged ones wait for PUBLISHED). Like the HTTP connection they keep in_flight
// operations outstanding (closed loop) or follow the connection's OpenLoopSchedule, sending
// what the window still owes during the drain (docs/MEASUREMENT.md "Closed loop and open loop"); a
// request id encodes its slot, so a RESULT finds its call without searching. Per operation: the
// template's head is copied (tens of bytes) and the shared payload is referenced.
//
// Calls carry call_timeout in CALL.Options.timeout (the template's options), and with
// cancel_after a call still unanswered that long after it was sent gets a CANCEL. ERROR
// wamp.error.timeout is a call_timeout, ERROR wamp.error.canceled for a call this session
// cancelled is canceled (docs/MEASUREMENT.md "Operations, successes and errors"): failed
// operations of their own kinds, without a latency. So is a callee's own ERROR (callee_error),
// told from the router's refusal of a call (wamp_error) by its URI (call_refusal.h).
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstring>
#include <deque>

#include "common/time/clock.h"
#include "worker/engine/open_loop_schedule.h"
#include "worker/wamp/call_refusal.h"
#include "worker/wamp/message_type.h"
#include "worker/wamp/session.h"

namespace benchgate::worker::wamp {
namespace {

namespace asio = boost::asio;

constexpr int64_t kLateSendNs = 1'000'000;  // as the HTTP connection (docs/MEASUREMENT.md)
constexpr uint64_t kSlotBits = 12;          // in_flight <= 4096
constexpr uint64_t kSlotMask = (uint64_t{1} << kSlotBits) - 1;

class LoadSession : public Session {
 public:
  LoadSession(asio::io_context& io, ThreadState& thread, const WampPlan& plan, bool publisher,
              uint32_t index)
      : Session(io, thread, plan, Join::kNone, /*count_bytes=*/true),
        publisher_(publisher),
        tracked_(!publisher || plan.spec.acknowledge),
        template_(publisher ? plan.publish : plan.call),
        timer_(io),
        cancel_timer_(io),
        schedule_(plan.load->open_loop()
                      ? OpenLoopSchedule(plan.load->rate, plan.load->connections, index,
                                         plan.load->schedule_first, plan.load->schedule_connections)
                      : OpenLoopSchedule()),
        slots_(plan.load->in_flight) {
    for (uint32_t s = plan.load->in_flight; s > 0; --s) free_.push_back(s - 1);
    scratch_.reserve(template_.head.size());
  }

  void begin_window() override {
    claimed_ = 0;
    window_due_ =
        plan_.load->open_loop() ? schedule_.due_in_window(thread_.end_ns - thread_.start_ns) : 0;
    Session::begin_window();
  }
  void start_sending() override {
    if (up()) issue(steady_now_ns());
  }
  // Open loop: what the window still owes goes out during the drain (and counts in unsent).
  void stop_sending() override {
    const uint64_t n = owed();
    if (n == 0) return;
    thread_.stats.unsent += n;
    thread_.owe(n);
    if (down()) return write_off_owed();
    issue(steady_now_ns());
  }
  // The drain deadline: what was never sent is cut off (not_sent), what is unanswered times
  // out.
  void expire() override {
    write_off_owed();
    if (busy_ > 0) fail(ErrorKind::kTimeout);
  }
  void close() override {
    timer_.cancel();
    cancel_timer_.cancel();
    Session::close();
    release_all();
  }

 protected:
  // RESULT whose Arguments|list is [payload] in the worker's own form, and PUBLISHED: read in
  // place. A RESULT with anything else (a mismatch, or the payload written another way) and
  // ERROR go to handle().
  bool handle_view(uint64_t type, MessageView message, int64_t now) override {
    const bool answer = publisher_ ? type == code(MessageType::kPublished)
                                   : type == code(MessageType::kResult) && message.size() >= 4 &&
                                         equal(message[3].bytes, plan_.payload_args);
    if (!answer) return false;
    if (message.size() < 2 || message[1].kind != ViewElement::Kind::unsigned_int) return false;
    answered(message[1].number, now, nullptr, /*matches=*/true);
    issue(steady_now_ns());
    return true;
  }

  void handle(uint64_t type, Json& message, int64_t now) override {
    switch (type) {
      case code(MessageType::kResult):
        if (!publisher_) on_answer(message, 1, now, /*error=*/false);
        break;
      case code(MessageType::kPublished):
        if (publisher_) on_answer(message, 1, now, false);
        break;
      case code(MessageType::kError):
        on_answer(message, 2, now, /*error=*/true);
        break;
      default:
        return;  // nothing else concerns a caller or publisher
    }
    // A fresh reading: the replacements' write starts after this message was processed.
    issue(steady_now_ns());
  }

  // The link failed (or the drain deadline ended it) with operations outstanding: each call
  // fails once, under the failure's kind. A publication is no operation of its own (its events
  // are, docs/MEASUREMENT.md): whether its PUBLISHED was lost or it never reached the router,
  // each of its events is counted once where it ends, delivered by a subscriber or, never
  // delivered, `lost` when the window completes; so the failure fails no operation here and,
  // as a subscriber's, counts on its own only as a protocol error (Session::fail_protocol).
  uint32_t on_failed(ErrorKind kind) override {
    uint32_t failed = 0;
    for (Slot& slot : slots_) {
      if (slot.id == 0) continue;
      slot.id = 0;
      ++failed;
      if (!publisher_) thread_.stats.record_failure(kind);
      thread_.request_finished();
    }
    release_all();
    return publisher_ ? 0 : failed;
  }

  void on_rejoined() override { issue(steady_now_ns()); }
  bool may_send() const override {
    if (thread_.phase == Phase::kRunning) return true;
    return thread_.phase == Phase::kDraining && owed() > 0;
  }
  void on_rejoin_failed() override { write_off_owed(); }
  void on_written() override {
    if (!tracked_) issue(steady_now_ns());
  }

 private:
  struct Slot {
    uint64_t id = 0;  // 0: free
    int64_t intended_ns = 0;
    int64_t sent_ns = 0;
    bool cancel_sent = false;  // cancel_after: this worker sent CANCEL for the call
  };
  // cancel_after: a call's CANCEL is due at sent + cancel_after; one delay for every call, so
  // the queue is in due order.
  struct CancelDue {
    int64_t due_ns = 0;
    uint64_t id = 0;
  };

  uint64_t owed() const { return plan_.load->open_loop() ? window_due_ - claimed_ : 0; }

  // The drain deadline, or a link that cannot send them: what is owed is cut off, one
  // `not_sent` per operation. A publication's operations are the events it would have been
  // (docs/MEASUREMENT.md), so one never published is `subscribers` of them, as a refused one is.
  void write_off_owed() {
    const uint64_t n = owed();
    if (n == 0) return;
    const uint64_t operations = publisher_ ? n * plan_.spec.subscribers : n;
    for (uint64_t i = 0; i < operations; ++i) thread_.stats.record_failure(ErrorKind::kNotSent);
    claimed_ = window_due_;
    thread_.paid(n);
    thread_.settle_if_drained();
  }

  void release_all() {
    cancels_.clear();
    free_.clear();
    for (uint32_t s = static_cast<uint32_t>(slots_.size()); s > 0; --s) {
      slots_[s - 1].id = 0;
      free_.push_back(s - 1);
    }
    busy_ = 0;
  }

  static bool equal(std::span<const uint8_t> a, const std::vector<uint8_t>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
  }

  // RESULT / PUBLISHED (id at 1) or ERROR (id at 2) for one of the outstanding operations.
  void on_answer(Json& message, size_t id_at, int64_t now, bool error) {
    if (!tracked_ && !error) return;
    if (message.size() <= id_at || !message[id_at].is_number_unsigned()) return fail_protocol();
    answered(message[id_at].get<uint64_t>(), now, error ? &message : nullptr,
             error || publisher_ || result_matches(message));
  }

  // The answer to operation `id`: an ERROR when `error` is not null, else a RESULT (whose
  // payload `matches` or not) or a PUBLISHED.
  void answered(uint64_t id, int64_t now, const Json* error, bool matches) {
    if (!tracked_ && error == nullptr) return;
    const uint64_t s = id & kSlotMask;
    if (!tracked_ || s >= slots_.size() || slots_[s].id != id) {
      // An answer to nothing outstanding (an ERROR for an unacknowledged publish included).
      if (thread_.phase != Phase::kIdle) {
        thread_.stats.record_connection_error(error != nullptr ? ErrorKind::kWampError
                                                               : ErrorKind::kProtocol);
      }
      return;
    }
    Slot& slot = slots_[s];
    if (error != nullptr && publisher_) {
      // A refused publication delivers nothing. Its operations are the events it would have
      // been (docs/MEASUREMENT.md: in wamp_pubsub one operation is one delivered event): each
      // fails once, under the ERROR's kind, and leaves the window's expected deliveries, so
      // that it is not counted again as lost.
      const ErrorKind kind = error_kind(*error, slot);
      const uint32_t events = plan_.spec.subscribers;
      for (uint32_t i = 0; i < events; ++i) thread_.stats.record_failure(kind);
      plan_.ledger->expected.fetch_sub(events, std::memory_order_relaxed);
    } else if (error != nullptr) {
      const ErrorKind kind = error_kind(*error, slot);
      // A call the dealer timed out or cancelled had reached a callee that counted its
      // INVOCATION. A callee_error proves less: the worker's own callees answer with ERROR only
      // after this worker's CANCEL, so with them it is a call whose callee left, perhaps before
      // it read (and counted) the INVOCATION; the CalleeLedger does not wait for that count.
      if (kind == ErrorKind::kCallTimeout || kind == ErrorKind::kCanceled) answered_routed();
      thread_.stats.record_failure(kind);
    } else if (publisher_) {
      // A publication is not an operation: its deliveries are (counted by the subscribers).
    } else {
      answered_routed();
      if (matches) {
        thread_.stats.record_success(now, now - slot.intended_ns, plan_.payload.size(),
                                     plan_.load->progress);
        if (plan_.load->open_loop()) thread_.stats.service_time.record(now - slot.sent_ns);
      } else {
        thread_.stats.record_failure(ErrorKind::kMismatch);
      }
    }
    thread_.stats.last_receive_ns = now;
    slot.id = 0;
    free_.push_back(static_cast<uint32_t>(s));
    --busy_;
    thread_.request_finished();
  }

  // [ERROR, type, request, details, uri], counted as call_refusal.h says.
  ErrorKind error_kind(const Json& message, const Slot& slot) const {
    return answer_error_kind(message, publisher_, slot.cancel_sent);
  }

  // callee = "worker": an answer that needed an invocation, which the window waits for the
  // callees to have counted (CalleeLedger).
  void answered_routed() {
    if (plan_.callees != nullptr && !publisher_) {
      plan_.callees->answered.fetch_add(1, std::memory_order_release);
    }
  }

  // [RESULT, id, details, [payload]] with the payload byte for byte.
  bool result_matches(const Json& message) const {
    if (message.size() < 4 || !message[3].is_array() || message[3].size() != 1) return false;
    return binary_equals(message[3][0], plan_.payload, plan_.payload_json);
  }

  // Claims what may be sent now (closed loop: every free slot; open loop: what is due, up to
  // the free slots) and queues it.
  void issue(int64_t now) {
    if (!may_send() || !up()) return;
    const bool open_loop = plan_.load->open_loop();
    if (!open_loop && now >= thread_.end_ns) return;  // the end timer is about to fire
    const uint32_t in_flight = plan_.load->in_flight;
    uint64_t free = 0;
    if (tracked_) {
      free = free_.size();
    } else {
      const size_t queued = channel_->queued();
      free = in_flight > queued ? in_flight - queued : 0;
    }
    uint64_t n = free;
    if (open_loop) {
      // Only requests due inside the window: after its end they are sent late, never new ones.
      const uint64_t due_total = std::min(schedule_.due_by(now - thread_.start_ns), window_due_);
      const uint64_t due = due_total > claimed_ ? due_total - claimed_ : 0;
      n = std::min<uint64_t>(due, free);
      if (n == due && free > n) {
        arm_timer(thread_.start_ns + schedule_.due_offset_ns(claimed_ + n));
      }
    }
    if (n == 0) return;
    thread_.stats.first_send_ns = std::min(thread_.stats.first_send_ns, now);
    for (uint64_t i = 0; i < n; ++i) send_one(now);
    if (thread_.phase == Phase::kDraining) {
      thread_.paid(n);  // outstanding now (tracked) or queued on the link (unacknowledged)
      thread_.settle_if_drained();
    }
  }

  void send_one(int64_t now) {
    int64_t intended = now;
    if (plan_.load->open_loop()) {
      intended = thread_.start_ns + schedule_.due_offset_ns(claimed_);
      if (now - intended > kLateSendNs) ++thread_.stats.late_sends;
    }
    ++claimed_;
    ++sequence_;
    uint64_t id = sequence_;
    if (tracked_) {
      const uint32_t s = free_.back();
      free_.pop_back();
      id = (sequence_ << kSlotBits) | s;
      slots_[s] = Slot{id, intended, now, false};
      ++busy_;
      thread_.request_sent();
      if (!publisher_ && plan_.spec.cancel_after_ns > 0) {
        cancels_.push_back(CancelDue{now + plan_.spec.cancel_after_ns, id});
        arm_cancel();
      }
    }
    const Serializer serializer = plan_.spec.serializer;
    scratch_.assign(template_.head.begin(), template_.head.end());
    fill_slot(serializer, scratch_.data() + template_.slots[0], id);
    if (publisher_) {
      fill_slot(serializer, scratch_.data() + template_.slots[1], static_cast<uint64_t>(intended));
      fill_slot(serializer, scratch_.data() + template_.slots[2], static_cast<uint64_t>(now));
      fill_slot(serializer, scratch_.data() + template_.slots[3], sequence_);
      fill_slot(serializer, scratch_.data() + template_.slots[4], thread_.window_index);
      plan_.ledger->expected.fetch_add(plan_.spec.subscribers, std::memory_order_relaxed);
    }
    channel_->send(scratch_, template_.tail);
  }

  void arm_timer(int64_t due_ns) {
    if (timer_armed_ || due_ns >= thread_.end_ns) return;
    timer_armed_ = true;
    timer_.expires_at(steady_point(due_ns));
    timer_.async_wait([this](const boost::system::error_code& ec) {
      timer_armed_ = false;
      if (!ec) issue(steady_now_ns());
    });
  }

  // cancel_after: [CANCEL, CALL.Request|id, {mode}] for each call still outstanding when its
  // CANCEL is due (an answer may cross it: the router then ignores the CANCEL).
  void arm_cancel() {
    if (cancel_armed_ || cancels_.empty()) return;
    cancel_armed_ = true;
    cancel_timer_.expires_at(steady_point(cancels_.front().due_ns));
    cancel_timer_.async_wait([this](const boost::system::error_code& ec) {
      cancel_armed_ = false;
      if (ec) return;
      const int64_t now = steady_now_ns();
      while (!cancels_.empty() && cancels_.front().due_ns <= now) {
        const uint64_t id = cancels_.front().id;
        cancels_.pop_front();
        Slot& slot = slots_[id & kSlotMask];
        if (slot.id != id || slot.cancel_sent || !up()) continue;
        slot.cancel_sent = true;
        encode(
            plan_.spec.serializer,
            Json::array({code(MessageType::kCancel), id, Json{{"mode", plan_.spec.cancel_mode}}}),
            cancel_bytes_);
        channel_->send_taking(cancel_bytes_);
      }
      arm_cancel();
    });
  }

  const bool publisher_;
  const bool tracked_;  // operations wait for an answer (calls, acknowledged publishes)
  const MessageTemplate& template_;
  asio::steady_timer timer_;
  asio::steady_timer cancel_timer_;
  std::deque<CancelDue> cancels_;
  std::vector<uint8_t> cancel_bytes_;
  bool cancel_armed_ = false;
  OpenLoopSchedule schedule_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;
  std::vector<uint8_t> scratch_;
  uint32_t busy_ = 0;
  uint64_t claimed_ = 0;     // operations taken from the schedule in this window
  uint64_t window_due_ = 0;  // open loop: operations due inside this window
  uint64_t sequence_ = 0;    // per session, never reset (ids stay unique across windows)
  bool timer_armed_ = false;
};

}  // namespace

std::unique_ptr<LoadConnection> make_caller(asio::io_context& io, ThreadState& thread,
                                            const WampPlan& plan, uint32_t index) {
  return std::make_unique<LoadSession>(io, thread, plan, /*publisher=*/false, index);
}

std::unique_ptr<LoadConnection> make_publisher(asio::io_context& io, ThreadState& thread,
                                               const WampPlan& plan, uint32_t index) {
  return std::make_unique<LoadSession>(io, thread, plan, /*publisher=*/true, index);
}

}  // namespace benchgate::worker::wamp
