// The serializations' writers (see message_writer.h).
#include "common/serialization/message_writer.h"

#include <charconv>
#include <cstdio>

#include "common/serialization/base64.h"

namespace benchgate::serialization {
namespace {

using Serializer = ::benchgate::wamp::Serializer;

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

void MessageWriter::decimal(uint64_t value) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out_.insert(out_.end(), digits, end);
}

void MessageWriter::before_value() {
  if (serializer_ != Serializer::kJson || depth_ == 0) return;
  const uint64_t bit = uint64_t{1} << (depth_ - 1);
  if ((has_element_ & bit) != 0) out_.push_back(',');
  has_element_ |= bit;
}

void MessageWriter::begin_array(size_t count) {
  before_value();
  switch (serializer_) {
    case Serializer::kJson:
      out_.push_back('[');
      ++depth_;
      has_element_ &= ~(uint64_t{1} << (depth_ - 1));
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
  --depth_;
}

void MessageWriter::uint(uint64_t value) {
  before_value();
  switch (serializer_) {
    case Serializer::kJson:
      decimal(value);
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
      {
        // The key is no array element: no comma before it.
        const int depth = depth_;
        depth_ = 0;
        string(key);
        depth_ = depth;
      }
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
      {
        // The key is no array element: no comma before it.
        const int depth = depth_;
        depth_ = 0;
        string(key);
        depth_ = depth;
      }
      out_.push_back(':');
      decimal(value);
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
    case Serializer::kJson:
      append("\"\\u0000");
      append_base64(bytes, out_);
      out_.push_back('"');
      break;
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

void MessageWriter::raw(std::span<const uint8_t> value) {
  before_value();
  out_.insert(out_.end(), value.begin(), value.end());
}

}  // namespace benchgate::serialization
