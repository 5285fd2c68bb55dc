// Everything about a WAMP workload that its sessions share read-only, built once by the
// driver: the encoded setup messages, the CALL / PUBLISH templates over the one payload, and
// the forms an echoed payload must have. The pub/sub ledger is the one shared mutable part:
// publishers add what they owe, subscribers what they received, across threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "worker/engine/load_plan.h"
#include "worker/engine/workload.h"
#include "worker/wamp/channel.h"
#include "worker/wamp/codec.h"
#include "worker/wamp/message_writer.h"

namespace benchgate::worker::wamp {

// The request id of the join's REGISTER or SUBSCRIBE: an ERROR names it when it refuses that
// request (worker/wamp/session.cc).
inline constexpr uint64_t kJoinRequest = 1;

// One window's deliveries: expected = publications sent x subscribers, delivered = events of
// this window received. Reset by the driver before each window.
struct PubSubLedger {
  std::atomic<uint64_t> expected{0};
  std::atomic<uint64_t> delivered{0};
};

// wamp_rpc with callee = "worker": the invocations each of the worker's callee sessions got in
// this window, and the caller answers that prove an invocation was routed (a RESULT, an ERROR
// wamp.error.timeout, an ERROR wamp.error.canceled after this worker's CANCEL). The window is
// settled once the callees counted as many as the callers were answered, so a count read after
// it is exact (an invocation a callee has yet to read is not lost to the next window). Reset by
// the driver before each window.
struct CalleeLedger {
  explicit CalleeLedger(uint32_t sessions)
      : invocations(std::make_unique<std::atomic<uint64_t>[]>(sessions)), count(sessions) {}
  std::unique_ptr<std::atomic<uint64_t>[]> invocations;  // per callee session
  uint32_t count;
  std::atomic<uint64_t> invoked{0};   // the sum of `invocations`
  std::atomic<uint64_t> answered{0};  // caller answers that needed an invocation
};

struct WampPlan {
  const LoadPlan* load = nullptr;  // the engine's plan (endpoint, in_flight, rate, connections)
  WampRequestSpec spec;
  ChannelOptions channel;
  std::vector<uint8_t> payload;  // the pattern, request_bytes long
  std::string payload_json;      // its JSON form ("\0" + base64)
  // The payload serialized as the worker writes it (MessageWriter::binary), alone and as the
  // list [payload]: an EVENT's payload element and a RESULT's Arguments|list read in place
  // (worker/wamp/session.h) that are these bytes are the payload; other bytes go to the
  // document path, which compares values.
  std::vector<uint8_t> payload_value;
  std::vector<uint8_t> payload_args;
  MessageTemplate call;     // rpc
  MessageTemplate publish;  // pubsub
  std::vector<uint8_t> hello;
  // HELLO's Details, for sessions that authenticate (worker/wamp/auth): their HELLO is encoded
  // per connect, WAMP-SCRAM's carrying a fresh nonce.
  Json hello_details;
  // transfer (and rpc with session_per_operation: [CALL, 1, {}, procedure, [payload]]): the
  // one CALL of each session (receive_progress, [transfer_bytes, chunk_bytes]);
  // `payload` is then the pattern, chunk_bytes + 26 long (a chunk at offset o is
  // payload[o % 26, o % 26 + size)).
  std::vector<uint8_t> transfer_call;
  std::vector<uint8_t> register_message;   // REGISTER, request id kJoinRequest
  std::vector<uint8_t> subscribe_message;  // SUBSCRIBE, request id kJoinRequest
  PubSubLedger* ledger = nullptr;
  CalleeLedger* callees = nullptr;  // rpc with callee = "worker"
};

}  // namespace benchgate::worker::wamp
