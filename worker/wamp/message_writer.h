// The messages the client sends per operation (CALL, PUBLISH), written in any of the three
// serializations by common/serialization/message_writer.h, without going through nlohmann::json, so
// a large payload is encoded once per workload and never copied per operation. Integers that change
// per message (request ids, timestamps) get fixed-width slots that fill_slot() overwrites in place:
// MessagePack uint64 (0xcf + 8 bytes), CBOR uint64 (0x1b + 8 bytes), and in JSON 20 characters of
// decimal right-aligned in spaces (whitespace before a value is valid JSON).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "common/serialization/message_writer.h"
#include "worker/wamp/codec.h"

namespace benchgate::worker::wamp {

using serialization::MessageWriter;

// Writes `value` into the slot at `at` (the message bytes, at the offset uint_slot() gave).
void fill_slot(Serializer serializer, uint8_t* at, uint64_t value);

// A message split where its constant tail begins: `head` holds the slots (copied per message,
// a few dozen bytes), `tail` the payload and the closing bytes (shared, never copied).
struct MessageTemplate {
  std::vector<uint8_t> head;
  std::vector<size_t> slots;  // offsets into head, in the order the message defines
  std::vector<uint8_t> tail;
};

// `payload` as this writer writes a binary value, alone or as the list [payload]: the forms an
// echoed payload read in place is compared with (worker/wamp/wamp_plan.h).
std::vector<uint8_t> binary_form(Serializer serializer, std::span<const uint8_t> payload,
                                 bool as_list);

// [48, ID, {}, procedure, [payload]]: slots {ID}. timeout_ms > 0: Options {timeout: ms}.
MessageTemplate call_template(Serializer serializer, std::string_view procedure,
                              std::span<const uint8_t> payload, uint64_t timeout_ms = 0);
// [16, ID, {acknowledge?}, topic, [intended_ns, sent_ns, sequence, window, payload]]:
// slots {ID, intended_ns, sent_ns, sequence, window}.
MessageTemplate publish_template(Serializer serializer, std::string_view topic, bool acknowledge,
                                 std::span<const uint8_t> payload);

}  // namespace benchgate::worker::wamp
