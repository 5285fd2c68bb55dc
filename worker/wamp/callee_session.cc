// The worker's own callee (callee = "worker"): one session that REGISTERs the procedure and
// answers every INVOCATION with a YIELD of the same arguments, moved out of the decoded
// message (JSON's base64 strings and the binary formats' byte strings pass through as they
// came). Its traffic mirrors the callers', so its bytes are not counted again.
#include "worker/wamp/message_type.h"
#include "worker/wamp/session.h"

namespace benchgate::worker::wamp {
namespace {

class CalleeSession : public Session {
 public:
  CalleeSession(boost::asio::io_context& io, ThreadState& thread, const WampPlan& plan)
      : Session(io, thread, plan, Join::kRegister, /*count_bytes=*/false) {}

 protected:
  void handle(uint64_t type, Json& message, int64_t /*now*/) override {
    // [INVOCATION, Request|id, REGISTERED.Registration|id, Details|dict, Arguments?, KwArgs?]
    if (type != code(MessageType::kInvocation)) return;
    if (message.size() < 4 || !message[1].is_number_unsigned()) {
      thread_.stats.record_connection_error(ErrorKind::kProtocol);
      return fail(ErrorKind::kProtocol);
    }
    yield_ = Json::array({code(MessageType::kYield), message[1], Json::object()});
    if (message.size() > 4) yield_.push_back(std::move(message[4]));
    if (message.size() > 5) yield_.push_back(std::move(message[5]));
    encode(plan_.spec.serializer, yield_, bytes_);
    channel_->send_taking(bytes_);
  }

 private:
  Json yield_;
  std::vector<uint8_t> bytes_;
};

}  // namespace

std::unique_ptr<LoadConnection> make_callee(boost::asio::io_context& io, ThreadState& thread,
                                            const WampPlan& plan) {
  return std::make_unique<CalleeSession>(io, thread, plan);
}

}  // namespace benchgate::worker::wamp
