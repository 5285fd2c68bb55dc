#include "worker/wamp/message_writer.h"

#include "worker/wamp/message_type.h"

namespace benchgate::worker::wamp {
using serialization::kJsonSlotWidth;

void fill_slot(Serializer serializer, uint8_t* at, uint64_t value) {
  if (serializer == Serializer::kJson) {
    uint8_t* p = at + kJsonSlotWidth;
    do {
      *--p = static_cast<uint8_t>('0' + value % 10);
      value /= 10;
    } while (value != 0);
    while (p != at) *--p = ' ';
    return;
  }
  for (int i = 0; i < 8; ++i) at[1 + i] = static_cast<uint8_t>(value >> (8 * (7 - i)));
}

namespace {

// Moves everything written after `split` into the template's tail.
MessageTemplate split_at(MessageWriter& w, size_t split, std::vector<size_t> slots) {
  MessageTemplate t;
  std::vector<uint8_t>& bytes = w.bytes();
  t.head.assign(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(split));
  t.tail.assign(bytes.begin() + static_cast<std::ptrdiff_t>(split), bytes.end());
  t.slots = std::move(slots);
  return t;
}

}  // namespace

std::vector<uint8_t> binary_form(Serializer serializer, std::span<const uint8_t> payload,
                                 bool as_list) {
  MessageWriter w(serializer);
  if (as_list) w.begin_array(1);
  w.binary(payload);
  if (as_list) w.end_array();
  return std::move(w.bytes());
}

MessageTemplate call_template(Serializer serializer, std::string_view procedure,
                              std::span<const uint8_t> payload, uint64_t timeout_ms) {
  MessageWriter w(serializer);
  w.begin_array(5);
  w.uint(code(MessageType::kCall));
  const size_t id = w.uint_slot();
  if (timeout_ms > 0) {
    w.uint_map("timeout", timeout_ms);
  } else {
    w.empty_map();
  }
  w.string(procedure);
  w.begin_array(1);
  const size_t split = w.bytes().size();
  w.binary(payload);
  w.end_array();
  w.end_array();
  return split_at(w, split, {id});
}

MessageTemplate publish_template(Serializer serializer, std::string_view topic, bool acknowledge,
                                 std::span<const uint8_t> payload) {
  MessageWriter w(serializer);
  w.begin_array(5);
  w.uint(code(MessageType::kPublish));
  const size_t id = w.uint_slot();
  if (acknowledge) {
    w.bool_map("acknowledge", true);
  } else {
    w.empty_map();
  }
  w.string(topic);
  w.begin_array(5);
  std::vector<size_t> slots = {id};
  for (int i = 0; i < 4; ++i) slots.push_back(w.uint_slot());
  const size_t split = w.bytes().size();
  w.binary(payload);
  w.end_array();
  w.end_array();
  return split_at(w, split, std::move(slots));
}

}  // namespace benchgate::worker::wamp
