// WAMP v2 message type codes the client sends or handles.
#pragma once

#include <cstdint>

namespace benchgate::worker::wamp {

enum MessageType : uint64_t {
  kHello = 1,
  kWelcome = 2,
  kAbort = 3,
  kGoodbye = 6,
  kError = 8,
  kPublish = 16,
  kPublished = 17,
  kSubscribe = 32,
  kSubscribed = 33,
  kEvent = 36,
  kCall = 48,
  kResult = 50,
  kRegister = 64,
  kRegistered = 65,
  kInvocation = 68,
  kYield = 70,
};

}  // namespace benchgate::worker::wamp
