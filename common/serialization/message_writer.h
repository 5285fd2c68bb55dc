// Writes WAMP messages in any of the three serializations without going through
// nlohmann::json: the worker's CALL and PUBLISH templates (worker/wamp/message_writer.h) and the
// router's routed messages (RESULT, INVOCATION, EVENT, PUBLISHED: router/wamp/routing_frames.h)
// are written with it. It appends to a byte vector, its own or one the caller keeps (whose
// capacity then serves message after message), and allocates nothing but that vector's growth:
// JSON's array nesting is a bit mask (at most kMaxWriterDepth deep), numbers are written
// through a stack buffer.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "common/wamp/serializers.h"

namespace benchgate::serialization {

inline constexpr int kMaxWriterDepth = 64;
// The characters of a JSON uint_slot(): the digits of the largest uint64.
inline constexpr int kJsonSlotWidth = 20;

class MessageWriter {
 public:
  using Serializer = ::benchgate::wamp::Serializer;

  // Writes into a vector of its own.
  explicit MessageWriter(Serializer serializer) : serializer_(serializer), out_(own_) {}
  // Appends to `out`.
  MessageWriter(Serializer serializer, std::vector<uint8_t>& out)
      : serializer_(serializer), out_(out) {}
  MessageWriter(const MessageWriter&) = delete;
  MessageWriter& operator=(const MessageWriter&) = delete;

  void begin_array(size_t count);
  void end_array();
  void uint(uint64_t value);
  // A fixed-width unsigned integer; returns its offset for fill_slot() (worker/wamp).
  size_t uint_slot();
  void string(std::string_view text);
  void empty_map();
  // A map of one string key to a boolean ({"acknowledge": true}).
  void bool_map(std::string_view key, bool value);
  // A map of one string key to an unsigned integer ({"timeout": 5}).
  void uint_map(std::string_view key, uint64_t value);
  void binary(std::span<const uint8_t> bytes);
  // One value already serialized in this writer's serialization (an Arguments|list passed on
  // as the bytes it came in).
  void raw(std::span<const uint8_t> value);

  std::vector<uint8_t>& bytes() { return out_; }

 private:
  void before_value();
  void head(uint8_t major, uint64_t value);  // CBOR major type and argument
  void big_endian(uint64_t value, int bytes);
  void append(std::string_view text);
  void decimal(uint64_t value);

  Serializer serializer_;
  std::vector<uint8_t> own_;
  std::vector<uint8_t>& out_;
  // JSON: bit d set when the array open at depth d has an element (the next needs a comma).
  uint64_t has_element_ = 0;
  int depth_ = 0;
};

}  // namespace benchgate::serialization
