// The worker's own callee (callee = "worker"): a session that REGISTERs the procedure (with
// REGISTER.Options.invoke when the registration is shared by callee_sessions sessions) and
// answers every INVOCATION with a YIELD of the same arguments: as the bytes they came in when the
// INVOCATION is read in place (handle_view), else moved out of the decoded message (JSON's
// base64 strings and the binary formats' byte strings pass through as they came). Its
// traffic mirrors the callers', so its bytes are not counted again. Each callee session counts
// the invocations it got in the window (CalleeLedger: the split of a shared registration).
//
// callee_delay: every answer waits that long after its INVOCATION arrived, in arrival order
// (one timer per session; the delay is the same for all, so the queue is ordered by due time).
// An INTERRUPT for a waiting invocation (the router's dealer gave up on it: the call's timeout,
// or a CANCEL in mode killnowait or kill) drops its answer; mode kill answers ERROR
// wamp.error.canceled instead, which the router passes on to the caller. The queue is bounded
// (kMaxDelayed answers, kMaxDelayedBytes of their payloads): past that the oldest answer is
// dropped unsent (with cancel_mode = "skip" the router never tells the callee that a call was
// cancelled, so answers nobody waits for would otherwise pile up).
#include <boost/asio/steady_timer.hpp>
#include <deque>

#include "common/time/clock.h"
#include "worker/wamp/message_type.h"
#include "worker/wamp/session.h"

namespace benchgate::worker::wamp {
namespace {

constexpr size_t kMaxDelayed = 65536;
constexpr size_t kMaxDelayedBytes = size_t{256} << 20;

class CalleeSession : public Session {
 public:
  CalleeSession(boost::asio::io_context& io, ThreadState& thread, const WampPlan& plan,
                uint32_t index)
      : Session(io, thread, plan, Join::kRegister, /*count_bytes=*/false),
        index_(index),
        timer_(io) {}

  void close() override {
    timer_.cancel();
    delayed_.clear();
    delayed_bytes_ = 0;
    Session::close();
  }

 protected:
  // [INVOCATION, Request|id, REGISTERED.Registration|id, Details|dict, Arguments?, KwArgs?]
  // read in place, when its Arguments are a list and its ArgumentsKw a dict: the YIELD is
  // written with them as the bytes they came in (common/serialization/message_writer.h), as the
  // router passes arguments on. Anything else goes to handle().
  bool handle_view(uint64_t type, MessageView message, int64_t now) override {
    using Kind = ViewElement::Kind;
    if (type != code(MessageType::kInvocation) || message.size() < 4 ||
        message[1].kind != Kind::unsigned_int ||
        (message.size() > 4 && message[4].kind != Kind::list) ||
        (message.size() > 5 && message[5].kind != Kind::dict)) {
      return false;
    }
    answer(message[1].number, now, [&](std::vector<uint8_t>& out) {
      out.clear();
      MessageWriter w(plan_.spec.serializer, out);
      w.begin_array(message.size() - 1);
      w.uint(code(MessageType::kYield));
      w.uint(message[1].number);
      w.empty_map();
      for (size_t i = 4; i < message.size(); ++i) w.raw(message[i].bytes);
      w.end_array();
    });
    return true;
  }

  void handle(uint64_t type, Json& message, int64_t now) override {
    if (type == code(MessageType::kInterrupt)) return on_interrupt(message);
    if (type != code(MessageType::kInvocation)) return;
    if (message.size() < 4 || !message[1].is_number_unsigned()) return fail_protocol();
    const uint64_t invocation = message[1].get<uint64_t>();
    yield_ = Json::array({code(MessageType::kYield), invocation, Json::object()});
    if (message.size() > 4) yield_.push_back(std::move(message[4]));
    if (message.size() > 5) yield_.push_back(std::move(message[5]));
    answer(invocation, now,
           [&](std::vector<uint8_t>& out) { encode(plan_.spec.serializer, yield_, out); });
  }

  uint32_t on_failed(ErrorKind /*kind*/) override {
    // The router cancelled this session's invocations with the link; nothing is answered. A
    // callee's invocations are no operations of the workload (its callers' calls are).
    timer_.cancel();
    delayed_.clear();
    delayed_bytes_ = 0;
    return 0;
  }

 private:
  // Counts invocation `invocation` and answers it with the YIELD `write` writes into the
  // vector it is given (replacing what is there): now, or after callee_delay.
  template <typename Write>
  void answer(uint64_t invocation, int64_t now, const Write& write) {
    if (plan_.callees != nullptr) {
      plan_.callees->invocations[index_].fetch_add(1, std::memory_order_relaxed);
      plan_.callees->invoked.fetch_add(1, std::memory_order_release);
    }
    if (plan_.spec.callee_delay_ns <= 0) {
      write(bytes_);
      return channel_->send_taking(bytes_);
    }
    Delayed delayed{invocation, now + plan_.spec.callee_delay_ns, {}};
    write(delayed.bytes);
    delayed_bytes_ += delayed.bytes.size();
    delayed_.push_back(std::move(delayed));
    while (delayed_.size() > kMaxDelayed || delayed_bytes_ > kMaxDelayedBytes) drop_front();
    arm();
  }

  struct Delayed {
    uint64_t invocation = 0;
    int64_t due_ns = 0;
    std::vector<uint8_t> bytes;  // the encoded YIELD; empty once interrupted
  };

  // [INTERRUPT, INVOCATION.Request|id, Options|dict]
  void on_interrupt(const Json& message) {
    if (message.size() < 3 || !message[1].is_number_unsigned()) return;
    const uint64_t invocation = message[1].get<uint64_t>();
    for (Delayed& d : delayed_) {
      if (d.invocation != invocation || d.bytes.empty()) continue;
      delayed_bytes_ -= d.bytes.size();
      d.bytes.clear();
      d.bytes.shrink_to_fit();
      break;
    }
    const bool kill = message[2].is_object() && message[2].value("mode", "") == "kill";
    if (!kill) return;
    // [ERROR, INVOCATION, INVOCATION.Request|id, Details|dict, Error|uri]
    encode(plan_.spec.serializer,
           Json::array({code(MessageType::kError), code(MessageType::kInvocation), invocation,
                        Json::object(), "wamp.error.canceled"}),
           bytes_);
    channel_->send_taking(bytes_);
  }

  void drop_front() {
    delayed_bytes_ -= delayed_.front().bytes.size();
    delayed_.pop_front();
  }

  void arm() {
    if (armed_ || delayed_.empty()) return;
    armed_ = true;
    timer_.expires_at(steady_point(delayed_.front().due_ns));
    timer_.async_wait([this](const boost::system::error_code& ec) {
      armed_ = false;
      if (ec) return;
      const int64_t now = steady_now_ns();
      while (!delayed_.empty() && delayed_.front().due_ns <= now) {
        Delayed& d = delayed_.front();
        delayed_bytes_ -= d.bytes.size();
        if (!d.bytes.empty() && up()) channel_->send_taking(d.bytes);  // swaps d.bytes
        delayed_.pop_front();
      }
      arm();
    });
  }

  const uint32_t index_;
  boost::asio::steady_timer timer_;
  std::deque<Delayed> delayed_;
  size_t delayed_bytes_ = 0;
  bool armed_ = false;
  Json yield_;
  std::vector<uint8_t> bytes_;
};

}  // namespace

std::unique_ptr<LoadConnection> make_callee(boost::asio::io_context& io, ThreadState& thread,
                                            const WampPlan& plan, uint32_t index) {
  return std::make_unique<CalleeSession>(io, thread, plan, index);
}

}  // namespace benchgate::worker::wamp
