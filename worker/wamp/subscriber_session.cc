// A subscriber: SUBSCRIBEs to the topic and takes every EVENT of the current window as one
// operation, latency = delivery - the publication's intended send instant (the publisher's
// steady clock, same host), service time = delivery - its actual send instant (open loop).
// Each event of the window also counts in the ledger, so the driver can tell when every
// publication reached every subscriber, and how many never did.
#include <array>
#include <cstring>

#include "worker/wamp/message_type.h"
#include "worker/wamp/session.h"

namespace benchgate::worker::wamp {
namespace {

class SubscriberSession : public Session {
 public:
  SubscriberSession(boost::asio::io_context& io, ThreadState& thread, const WampPlan& plan)
      : Session(io, thread, plan, Join::kSubscribe, /*count_bytes=*/true) {}

 protected:
  // [EVENT, SUBSCRIBED.Subscription|id, PUBLISHED.Publication|id, Details|dict,
  //  [intended_ns, sent_ns, sequence, window, payload]]
  // Read in place when its arguments are read so and the payload is in the worker's own form;
  // anything else (a malformed EVENT, the payload written another way) goes to handle().
  bool handle_view(uint64_t type, MessageView message, int64_t now) override {
    using Kind = ViewElement::Kind;
    if (type != code(MessageType::kEvent) || !thread_.collecting) return true;  // ignored
    if (message.size() < 5 || message[4].kind != Kind::list) return false;
    size_t n = 0;
    if (!serialization::read_elements(plan_.spec.serializer, message[4].bytes, args_, n) ||
        n != 5 || args_[0].kind != Kind::unsigned_int || args_[1].kind != Kind::unsigned_int ||
        args_[3].kind != Kind::unsigned_int ||
        args_[4].bytes.size() != plan_.payload_value.size() ||
        std::memcmp(args_[4].bytes.data(), plan_.payload_value.data(),
                    plan_.payload_value.size()) != 0) {
      return false;
    }
    delivered(args_[0].number, args_[1].number, args_[3].number, true, now);
    return true;
  }

  void handle(uint64_t type, Json& message, int64_t now) override {
    if (type != code(MessageType::kEvent) || !thread_.collecting) return;
    if (message.size() < 5 || !message[4].is_array() || message[4].size() != 5 ||
        !message[4][0].is_number_unsigned() || !message[4][1].is_number_unsigned() ||
        !message[4][3].is_number_unsigned()) {
      return unreadable(message, now);
    }
    const Json& args = message[4];
    delivered(args[0].get<uint64_t>(), args[1].get<uint64_t>(), args[3].get<uint64_t>(),
              binary_equals(args[4], plan_.payload, plan_.payload_json), now);
  }

 private:
  // An EVENT of window `window` published at `intended_ns` (sent at `sent_ns`) was received.
  void delivered(uint64_t intended_ns, uint64_t sent_ns, uint64_t window, bool matches,
                 int64_t now) {
    if (window != thread_.window_index) return;  // an earlier window's
    const auto intended = static_cast<int64_t>(intended_ns);
    const auto sent = static_cast<int64_t>(sent_ns);
    if (matches) {
      thread_.stats.record_success(now, now - intended, plan_.payload.size(), plan_.load->progress);
      if (plan_.load->open_loop()) thread_.stats.service_time.record(now - sent);
    } else {
      thread_.stats.record_failure(ErrorKind::kMismatch);
    }
    thread_.stats.last_receive_ns = now;
    // After the statistics: the engine takes them once the ledger is complete.
    plan_.ledger->delivered.fetch_add(1, std::memory_order_release);
  }

  // An event that reached the subscriber unreadable: one operation that failed, as a protocol
  // error, and delivered as far as the ledger goes, so it is not also `lost` (docs/MEASUREMENT.md
  // "Operations, successes and errors"). Unless it is an earlier window's, which this window
  // ignores as it ignores a readable one (delivered()): by its window where that element can be
  // read; else by its send instant where that one can, or by its arrival, before this window's
  // start, when no publication of this window had been sent yet (publishers send from the start
  // on, the same steady clock on the same host). Counted here, it added one to this window's
  // `delivered` and hid one of its `lost`. With neither element to read, one of an earlier window
  // arriving after the start cannot be told from this window's: nothing else in it says when it
  // was published (the publication id is the router's, random in WAMP's global scope; the
  // sequence is in the arguments, and runs on across windows).
  void unreadable(const Json& message, int64_t now) {
    const Json* args = message.size() >= 5 && message[4].is_array() ? &message[4] : nullptr;
    if (args != nullptr && args->size() > 3 && (*args)[3].is_number_unsigned()) {
      if ((*args)[3].get<uint64_t>() != thread_.window_index) return;
    } else if (args != nullptr && args->size() > 1 && (*args)[1].is_number_unsigned()) {
      if ((*args)[1].get<uint64_t>() < static_cast<uint64_t>(thread_.start_ns)) return;
    } else if (now < thread_.start_ns) {
      return;
    }
    thread_.stats.record_failure(ErrorKind::kProtocol);
    thread_.stats.last_receive_ns = now;
    plan_.ledger->delivered.fetch_add(1, std::memory_order_release);
  }

  std::array<ViewElement, 6> args_{};  // an EVENT's Arguments|list, read in place
};

}  // namespace

std::unique_ptr<LoadConnection> make_subscriber(boost::asio::io_context& io, ThreadState& thread,
                                                const WampPlan& plan) {
  return std::make_unique<SubscriberSession>(io, thread, plan);
}

}  // namespace benchgate::worker::wamp
