#include "worker/wamp/wamp_driver.h"

#include <algorithm>

#include "worker/http/request_builder.h"
#include "worker/wamp/message_type.h"
#include "worker/wamp/rawsocket_framing.h"
#include "worker/wamp/session.h"

namespace benchgate::worker::wamp {
namespace {

using Kind = WampRequestSpec::Kind;

// Room for a message's envelope around the payload (ids, options, URIs, timestamps).
constexpr size_t kEnvelopeBytes = 64 * 1024;

class WampDriver : public ProtocolDriver {
 public:
  WampDriver(const WorkloadSpec& spec, const LoadPlan& load)
      : callees_(spec.wamp.worker_callee ? spec.wamp.callee_sessions : 0),
        plan_(build_plan(spec, load)) {
    plan_.ledger = &ledger_;
    if (plan_.spec.worker_callee) plan_.callees = &callees_;
  }

  uint32_t sessions() const override {
    const WampRequestSpec& w = plan_.spec;
    if (w.kind == Kind::kPubSub) return w.publishers + w.subscribers;
    if (w.kind == Kind::kTransfer) return plan_.load->connections;
    return plan_.load->connections + (w.worker_callee ? w.callee_sessions : 0);
  }

  std::unique_ptr<LoadConnection> make_connection(boost::asio::io_context& io, ThreadState& thread,
                                                  uint32_t index) override {
    const WampRequestSpec& w = plan_.spec;
    if (w.kind == Kind::kPubSub) {
      if (index < w.publishers) return make_publisher(io, thread, plan_, index);
      return make_subscriber(io, thread, plan_);
    }
    if (w.kind == Kind::kTransfer) return make_lifecycle(io, thread, plan_);
    if (index < plan_.load->connections && w.session_per_operation) {
      return make_lifecycle(io, thread, plan_);
    }
    if (index < plan_.load->connections) return make_caller(io, thread, plan_, index);
    return make_callee(io, thread, plan_, index - plan_.load->connections);
  }

  void window_starting() override {
    ledger_.expected.store(0);
    ledger_.delivered.store(0);
    for (uint32_t c = 0; c < callees_.count; ++c) callees_.invocations[c].store(0);
    callees_.invoked.store(0);
    callees_.answered.store(0);
  }

  bool window_settled() const override {
    if (plan_.spec.kind == Kind::kRpc) {
      return callees_.invoked.load(std::memory_order_acquire) >=
             callees_.answered.load(std::memory_order_acquire);
    }
    if (plan_.spec.kind != Kind::kPubSub) return true;
    return ledger_.delivered.load(std::memory_order_acquire) >=
           ledger_.expected.load(std::memory_order_acquire);
  }

  void complete(WindowResult& result) const override {
    for (uint32_t c = 0; c < callees_.count; ++c) {
      result.callee_invocations.push_back(callees_.invocations[c].load());
    }
    if (plan_.spec.kind != Kind::kPubSub) return;
    result.pubsub = true;
    result.events_expected = ledger_.expected.load();
    result.events_delivered = ledger_.delivered.load();
    // What was published and never delivered is lost, the events of a publication whose
    // publisher's link failed before its PUBLISHED came included: they were counted nowhere
    // else (a refused publication's left `expected` with its ERROR).
    if (result.events_expected > result.events_delivered) {
      const uint64_t lost = result.events_expected - result.events_delivered;
      result.errors[static_cast<size_t>(ErrorKind::kLost)] += lost;
      result.operations += lost;
    }
  }

 private:
  PubSubLedger ledger_;
  CalleeLedger callees_;
  WampPlan plan_;
};

std::vector<uint8_t> encoded(Serializer serializer, const Json& message) {
  std::vector<uint8_t> out;
  encode(serializer, message, out);
  return out;
}

}  // namespace

WampPlan build_plan(const WorkloadSpec& spec, const LoadPlan& load) {
  WampPlan plan;
  plan.load = &load;
  plan.spec = spec.wamp;
  const WampRequestSpec& w = plan.spec;
  const bool transfer = w.kind == Kind::kTransfer;
  const std::string pattern = http::body_pattern(transfer ? w.chunk_bytes + 26 : w.request_bytes);
  plan.payload.assign(pattern.begin(), pattern.end());
  if (w.serializer == Serializer::kJson && !transfer) {
    plan.payload_json = expected_json_binary(plan.payload);
  }
  if (!transfer) {
    plan.payload_value = binary_form(w.serializer, plan.payload, /*as_list=*/false);
    plan.payload_args = binary_form(w.serializer, plan.payload, /*as_list=*/true);
  }

  plan.channel.endpoint = load.endpoint;
  plan.channel.host = spec.address;
  plan.channel.serializer = w.serializer;
  plan.channel.tls = load.tls;
  plan.channel.sni = load.sni;
  plan.channel.verify_host = load.verify_host;
  plan.channel.tls_resumption = load.tls_resumption;
  plan.channel.fragment_bytes = w.fragment_bytes;
  size_t encoded_payload = transfer ? w.chunk_bytes : w.request_bytes;
  if (w.serializer == Serializer::kJson) encoded_payload = (encoded_payload + 2) / 3 * 4;
  plan.channel.max_message_bytes = encoded_payload + kEnvelopeBytes;
  if (w.transport == WampRequestSpec::Transport::kRawSocket) {
    plan.channel.max_message_bytes = kRawSocketMaxLength;  // what the handshake announces
  }

  if (transfer) {
    plan.transfer_call =
        encoded(w.serializer, Json::array({code(MessageType::kCall),
                                           1,
                                           {{"receive_progress", true}},
                                           w.procedure,
                                           Json::array({w.transfer_bytes, w.chunk_bytes})}));
  } else if (w.session_per_operation) {
    // One CALL per session, request id 1: [CALL, 1, {}, procedure, [payload]].
    // JSON carries binary as "\0" + base64 (WAMP's form), the others natively.
    Json payload =
        w.serializer == Serializer::kJson ? Json(plan.payload_json) : Json::binary(plan.payload);
    plan.transfer_call =
        encoded(w.serializer, Json::array({code(MessageType::kCall), 1, Json::object(), w.procedure,
                                           Json::array({std::move(payload)})}));
  } else if (w.kind == Kind::kPubSub) {
    plan.publish = publish_template(w.serializer, w.topic, w.acknowledge, plan.payload);
  } else {
    plan.call = call_template(w.serializer, w.procedure, plan.payload, w.call_timeout_ms);
  }
  // The caller's and the callee's advanced features the workload uses: CALL.Options.timeout,
  // CANCEL, and INTERRUPT for the worker's callee (which drops a delayed answer on it).
  const Json caller_features = {{"call_timeout", true}, {"call_canceling", true}};
  const Json roles = {{"caller", {{"features", caller_features}}},
                      {"callee", {{"features", {{"call_canceling", true}}}}},
                      {"publisher", Json::object()},
                      {"subscriber", Json::object()}};
  plan.hello =
      encoded(w.serializer, Json::array({code(MessageType::kHello), w.realm, {{"roles", roles}}}));
  plan.hello_details = Json{{"roles", roles}};
  // REGISTER.Options.invoke only when shared, so a single registration is the plain REGISTER.
  const Json register_options = w.invoke == "single" ? Json::object() : Json{{"invoke", w.invoke}};
  plan.register_message = encoded(
      w.serializer,
      Json::array({code(MessageType::kRegister), kJoinRequest, register_options, w.procedure}));
  plan.subscribe_message =
      encoded(w.serializer,
              Json::array({code(MessageType::kSubscribe), kJoinRequest, Json::object(), w.topic}));
  return plan;
}

Expected<std::unique_ptr<ProtocolDriver>> make_wamp_driver(const WorkloadSpec& spec,
                                                           const LoadPlan& load) {
  return std::unique_ptr<ProtocolDriver>(std::make_unique<WampDriver>(spec, load));
}

}  // namespace benchgate::worker::wamp
