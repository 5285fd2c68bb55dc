// The WAMP v2 message type codes (the first element of every message), shared by the router
// and the worker so that both speak one vocabulary.
#pragma once

#include <cstdint>

namespace benchgate::wamp {

enum class MessageType : uint8_t {
  kHello = 1,
  kWelcome = 2,
  kAbort = 3,
  kChallenge = 4,
  kAuthenticate = 5,
  kGoodbye = 6,
  kError = 8,
  kPublish = 16,
  kPublished = 17,
  kSubscribe = 32,
  kSubscribed = 33,
  kUnsubscribe = 34,
  kUnsubscribed = 35,
  kEvent = 36,
  kCall = 48,
  kCancel = 49,
  kResult = 50,
  kRegister = 64,
  kRegistered = 65,
  kUnregister = 66,
  kUnregistered = 67,
  kInvocation = 68,
  kInterrupt = 69,
  kYield = 70,
};

// The code as it travels in a message, for comparing with a decoded first element (which may
// hold any integer, including codes no enumerator names).
constexpr uint64_t code(MessageType type) { return static_cast<uint64_t>(type); }

}  // namespace benchgate::wamp
