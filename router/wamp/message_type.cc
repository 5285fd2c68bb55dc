// Message type slots for metrics (see message_type.h).
#include "router/wamp/message_type.h"

#include <array>

namespace benchgate::router::wamp {
namespace {

struct SlotEntry {
  MessageType type;
  std::string_view name;
};

constexpr std::array<SlotEntry, kMessageSlots - 1> kSlots = {{
    {MessageType::kHello, "HELLO"},
    {MessageType::kWelcome, "WELCOME"},
    {MessageType::kAbort, "ABORT"},
    {MessageType::kGoodbye, "GOODBYE"},
    {MessageType::kError, "ERROR"},
    {MessageType::kPublish, "PUBLISH"},
    {MessageType::kPublished, "PUBLISHED"},
    {MessageType::kSubscribe, "SUBSCRIBE"},
    {MessageType::kSubscribed, "SUBSCRIBED"},
    {MessageType::kUnsubscribe, "UNSUBSCRIBE"},
    {MessageType::kUnsubscribed, "UNSUBSCRIBED"},
    {MessageType::kEvent, "EVENT"},
    {MessageType::kCall, "CALL"},
    {MessageType::kCancel, "CANCEL"},
    {MessageType::kResult, "RESULT"},
    {MessageType::kRegister, "REGISTER"},
    {MessageType::kRegistered, "REGISTERED"},
    {MessageType::kUnregister, "UNREGISTER"},
    {MessageType::kUnregistered, "UNREGISTERED"},
    {MessageType::kInvocation, "INVOCATION"},
    {MessageType::kYield, "YIELD"},
    {MessageType::kChallenge, "CHALLENGE"},
    {MessageType::kAuthenticate, "AUTHENTICATE"},
    {MessageType::kInterrupt, "INTERRUPT"},
}};

constexpr std::array<int8_t, 128> make_slot_table() {
  std::array<int8_t, 128> table{};
  for (auto& entry : table) entry = kInvalidSlot;
  for (size_t i = 0; i < kSlots.size(); ++i) {
    table[static_cast<size_t>(kSlots[i].type)] = static_cast<int8_t>(i);
  }
  return table;
}
constexpr std::array<int8_t, 128> kSlotByCode = make_slot_table();

}  // namespace

int message_slot(uint64_t code) {
  return code < kSlotByCode.size() ? kSlotByCode[code] : kInvalidSlot;
}

std::string_view message_slot_name(int slot) {
  if (slot < 0 || slot >= kInvalidSlot) return "INVALID";
  return kSlots[static_cast<size_t>(slot)].name;
}

}  // namespace benchgate::router::wamp
