// A subscriber: SUBSCRIBEs to the topic and takes every EVENT of the current window as one
// operation, latency = delivery - the publication's intended send instant (the publisher's
// steady clock, same host), service time = delivery - its actual send instant (open loop).
// Each event of the window also counts in the ledger, so the driver can tell when every
// publication reached every subscriber, and how many never did.
#include "worker/wamp/message_type.h"
#include "worker/wamp/session.h"

namespace benchgate::worker::wamp {
namespace {

class SubscriberSession : public Session {
 public:
  SubscriberSession(boost::asio::io_context& io, ThreadState& thread, const WampPlan& plan)
      : Session(io, thread, plan, Join::kSubscribe, /*count_bytes=*/true) {}

 protected:
  void handle(uint64_t type, Json& message, int64_t now) override {
    // [EVENT, SUBSCRIBED.Subscription|id, PUBLISHED.Publication|id, Details|dict,
    //  [intended_ns, sent_ns, sequence, window, payload]]
    if (type != code(MessageType::kEvent) || !thread_.collecting) return;
    if (message.size() < 5 || !message[4].is_array() || message[4].size() != 5 ||
        !message[4][0].is_number_unsigned() || !message[4][1].is_number_unsigned() ||
        !message[4][3].is_number_unsigned()) {
      thread_.stats.record_failure(ErrorKind::kProtocol);
      return;
    }
    const Json& args = message[4];
    if (args[3].get<uint64_t>() != thread_.window_index) return;  // an earlier window's
    const auto intended = static_cast<int64_t>(args[0].get<uint64_t>());
    const auto sent = static_cast<int64_t>(args[1].get<uint64_t>());
    if (binary_equals(args[4], plan_.payload, plan_.payload_json)) {
      thread_.stats.record_success(now, now - intended, plan_.payload.size(), plan_.load->progress);
      if (plan_.load->open_loop()) thread_.stats.service_time.record(now - sent);
    } else {
      thread_.stats.record_failure(ErrorKind::kMismatch);
    }
    thread_.stats.last_receive_ns = now;
    // After the statistics: the engine takes them once the ledger is complete.
    plan_.ledger->delivered.fetch_add(1, std::memory_order_release);
  }
};

}  // namespace

std::unique_ptr<LoadConnection> make_subscriber(boost::asio::io_context& io, ThreadState& thread,
                                                const WampPlan& plan) {
  return std::make_unique<SubscriberSession>(io, thread, plan);
}

}  // namespace benchgate::worker::wamp
