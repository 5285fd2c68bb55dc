#include "worker/wamp/message_writer.h"

#include <cstdio>
#include <cstring>
#include <string>

#include "common/serialization/base64.h"
#include "worker/wamp/message_type.h"

namespace benchgate::worker::wamp {
namespace {

constexpr int kJsonSlotWidth = 20;  // digits of the largest uint64

}  // namespace

void MessageWriter::append(std::string_view text) {
  out_.insert(out_.end(), text.begin(), text.end());
}

void MessageWriter::big_endian(uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out_.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

void MessageWriter::head(uint8_t major, uint64_t value) {
  const uint8_t m = static_cast<uint8_t>(major << 5);
  if (value < 24) {
    out_.push_back(static_cast<uint8_t>(m | value));
  } else if (value <= 0xff) {
    out_.push_back(m | 24);
    big_endian(value, 1);
  } else if (value <= 0xffff) {
    out_.push_back(m | 25);
    big_endian(value, 2);
  } else if (value <= 0xffffffff) {
    out_.push_back(m | 26);
    big_endian(value, 4);
  } else {
    out_.push_back(m | 27);
    big_endian(value, 8);
  }
}

void MessageWriter::before_value() {
  if (serializer_ != Serializer::kJson || first_in_array_.empty()) return;
  if (!first_in_array_.back()) out_.push_back(',');
  first_in_array_.back() = false;
}

void MessageWriter::begin_array(size_t count) {
  before_value();
  switch (serializer_) {
    case Serializer::kJson:
      out_.push_back('[');
      first_in_array_.push_back(true);
      break;
    case Serializer::kMsgpack:
      if (count < 16) {
        out_.push_back(static_cast<uint8_t>(0x90 | count));
      } else if (count <= 0xffff) {
        out_.push_back(0xdc);
        big_endian(count, 2);
      } else {
        out_.push_back(0xdd);
        big_endian(count, 4);
      }
      break;
    case Serializer::kCbor:
      head(4, count);
      break;
  }
}

void MessageWriter::end_array() {
  if (serializer_ != Serializer::kJson) return;
  out_.push_back(']');
  first_in_array_.pop_back();
}

void MessageWriter::uint(uint64_t value) {
  before_value();
  switch (serializer_) {
    case Serializer::kJson:
      append(std::to_string(value));
      break;
    case Serializer::kMsgpack:
      if (value < 128) {
        out_.push_back(static_cast<uint8_t>(value));
      } else if (value <= 0xff) {
        out_.push_back(0xcc);
        big_endian(value, 1);
      } else if (value <= 0xffff) {
        out_.push_back(0xcd);
        big_endian(value, 2);
      } else if (value <= 0xffffffff) {
        out_.push_back(0xce);
        big_endian(value, 4);
      } else {
        out_.push_back(0xcf);
        big_endian(value, 8);
      }
      break;
    case Serializer::kCbor:
      head(0, value);
      break;
  }
}

size_t MessageWriter::uint_slot() {
  before_value();
  const size_t at = out_.size();
  switch (serializer_) {
    case Serializer::kJson:
      out_.insert(out_.end(), kJsonSlotWidth - 1, ' ');
      out_.push_back('0');
      break;
    case Serializer::kMsgpack:
      out_.push_back(0xcf);
      big_endian(0, 8);
      break;
    case Serializer::kCbor:
      out_.push_back(0x1b);
      big_endian(0, 8);
      break;
  }
  return at;
}

void MessageWriter::string(std::string_view text) {
  before_value();
  switch (serializer_) {
    case Serializer::kJson:
      out_.push_back('"');
      for (char c : text) {
        if (c == '"' || c == '\\') {
          out_.push_back('\\');
          out_.push_back(static_cast<uint8_t>(c));
        } else if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          append(escaped);
        } else {
          out_.push_back(static_cast<uint8_t>(c));
        }
      }
      out_.push_back('"');
      break;
    case Serializer::kMsgpack:
      if (text.size() < 32) {
        out_.push_back(static_cast<uint8_t>(0xa0 | text.size()));
      } else if (text.size() <= 0xff) {
        out_.push_back(0xd9);
        big_endian(text.size(), 1);
      } else if (text.size() <= 0xffff) {
        out_.push_back(0xda);
        big_endian(text.size(), 2);
      } else {
        out_.push_back(0xdb);
        big_endian(text.size(), 4);
      }
      append(text);
      break;
    case Serializer::kCbor:
      head(3, text.size());
      append(text);
      break;
  }
}

void MessageWriter::empty_map() {
  before_value();
  switch (serializer_) {
    case Serializer::kJson:
      append("{}");
      break;
    case Serializer::kMsgpack:
      out_.push_back(0x80);
      break;
    case Serializer::kCbor:
      out_.push_back(0xa0);
      break;
  }
}

void MessageWriter::bool_map(std::string_view key, bool value) {
  before_value();
  switch (serializer_) {
    case Serializer::kJson:
      out_.push_back('{');
      first_in_array_.push_back(true);
      string(key);
      first_in_array_.pop_back();
      append(value ? ":true}" : ":false}");
      break;
    case Serializer::kMsgpack:
      out_.push_back(0x81);
      string(key);
      out_.push_back(value ? 0xc3 : 0xc2);
      break;
    case Serializer::kCbor:
      out_.push_back(0xa1);
      string(key);
      out_.push_back(value ? 0xf5 : 0xf4);
      break;
  }
}

void MessageWriter::uint_map(std::string_view key, uint64_t value) {
  before_value();
  switch (serializer_) {
    case Serializer::kJson:
      out_.push_back('{');
      first_in_array_.push_back(true);
      string(key);
      first_in_array_.pop_back();
      out_.push_back(':');
      append(std::to_string(value));
      out_.push_back('}');
      break;
    case Serializer::kMsgpack:
      out_.push_back(0x81);
      string(key);
      uint(value);
      break;
    case Serializer::kCbor:
      out_.push_back(0xa1);
      string(key);
      uint(value);
      break;
  }
}

void MessageWriter::binary(std::span<const uint8_t> bytes) {
  before_value();
  switch (serializer_) {
    case Serializer::kJson: {
      std::string text = "\"\\u0000";
      serialization::append_base64(bytes, text);
      text += '"';
      append(text);
      break;
    }
    case Serializer::kMsgpack:
      if (bytes.size() <= 0xff) {
        out_.push_back(0xc4);
        big_endian(bytes.size(), 1);
      } else if (bytes.size() <= 0xffff) {
        out_.push_back(0xc5);
        big_endian(bytes.size(), 2);
      } else {
        out_.push_back(0xc6);
        big_endian(bytes.size(), 4);
      }
      out_.insert(out_.end(), bytes.begin(), bytes.end());
      break;
    case Serializer::kCbor:
      head(2, bytes.size());
      out_.insert(out_.end(), bytes.begin(), bytes.end());
      break;
  }
}

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
