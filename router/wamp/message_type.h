// WAMP message type codes and the labels the router's metrics use for them.
#pragma once

#include <cstdint>
#include <string_view>

namespace benchgate::router::wamp {

enum class MessageType : uint8_t {
  hello = 1,
  welcome = 2,
  abort = 3,
  challenge = 4,
  authenticate = 5,
  goodbye = 6,
  error = 8,
  publish = 16,
  published = 17,
  subscribe = 32,
  subscribed = 33,
  unsubscribe = 34,
  unsubscribed = 35,
  event = 36,
  call = 48,
  cancel = 49,
  result = 50,
  register_ = 64,
  registered = 65,
  unregister = 66,
  unregistered = 67,
  invocation = 68,
  interrupt = 69,
  yield = 70,
};

// Metric slots: one per Basic Profile message type (plus CANCEL) and one for messages that
// could not be decoded or have an unknown type ("INVALID").
inline constexpr int kMessageSlots = 22;
inline constexpr int kInvalidSlot = kMessageSlots - 1;

// The slot of a type code; codes the router does not know map to kInvalidSlot.
int message_slot(uint64_t code);
inline int message_slot(MessageType type) { return message_slot(static_cast<uint64_t>(type)); }
// "HELLO", "CALL", ..., "INVALID".
std::string_view message_slot_name(int slot);

}  // namespace benchgate::router::wamp
