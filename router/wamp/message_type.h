// The labels the router's metrics use for WAMP message types (the codes themselves are
// common/wamp/message_type.h).
#pragma once

#include <cstdint>
#include <string_view>

#include "common/wamp/message_type.h"

namespace benchgate::router::wamp {

using ::benchgate::wamp::MessageType;

// Metric slots: one per Basic Profile message type (plus CANCEL, INTERRUPT, CHALLENGE and
// AUTHENTICATE) and one for messages that could not be decoded or have an unknown type
// ("INVALID").
inline constexpr int kMessageSlots = 25;
inline constexpr int kInvalidSlot = kMessageSlots - 1;

// The slot of a type code; codes the router does not know map to kInvalidSlot.
int message_slot(uint64_t code);
inline int message_slot(MessageType type) { return message_slot(static_cast<uint64_t>(type)); }
// "HELLO", "CALL", ..., "INVALID".
std::string_view message_slot_name(int slot);

}  // namespace benchgate::router::wamp
