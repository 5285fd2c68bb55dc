// Serialized values read in place (see value_view.h). Each reader walks one value as its
// decoder in common/serialization does, with the same limits, and keeps nothing but where the
// value lies and what the view needs of it.
#include "common/serialization/value_view.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/serialization/base64.h"
#include "common/serialization/binary_decoder.h"
#include "common/serialization/byte_reader.h"
#include "common/serialization/json_scan.h"
#include "common/serialization/utf8.h"

namespace benchgate::serialization {
namespace {

using Kind = ViewElement::Kind;

// MessagePack, as common/serialization/msgpack_decoder.cc reads it.
class MsgpackReader {
 public:
  explicit MsgpackReader(std::span<const uint8_t> bytes) : in_(bytes) {}

  const uint8_t* at() const { return in_.position(); }
  bool at_end() const { return in_.at_end(); }

  // An array header; false for anything else.
  bool array_header(uint64_t& count) {
    uint8_t head;
    if (!in_.byte(head)) return false;
    if (head >= 0x90 && head <= 0x9f) {
      count = head & 0x0f;
      return true;
    }
    if (head == 0xdc || head == 0xdd) return in_.big_endian(head == 0xdc ? 2 : 4, count);
    return false;
  }
  bool map_header(uint64_t& count) {
    uint8_t head;
    if (!in_.byte(head)) return false;
    if (head >= 0x80 && head <= 0x8f) {
      count = head & 0x0f;
      return true;
    }
    if (head == 0xde || head == 0xdf) return in_.big_endian(head == 0xde ? 2 : 4, count);
    return false;
  }
  // A map key (a string); its bytes in `key`.
  bool key(std::string_view& key) {
    uint8_t head;
    if (!in_.byte(head)) return false;
    uint64_t length;
    if (head >= 0xa0 && head <= 0xbf) {
      length = head & 0x1f;
    } else if (head >= 0xd9 && head <= 0xdb) {
      if (!in_.big_endian(1 << (head - 0xd9), length)) return false;
    } else {
      return false;
    }
    return text(length, key);
  }

  bool value(int depth, ViewElement& out) {
    uint8_t head;
    if (!in_.byte(head)) return false;
    if (head <= 0x7f) return unsigned_int(head, out);
    if (head >= 0xe0) return true;  // negative fixint
    if (head <= 0x8f) return map(head & 0x0f, depth, out);
    if (head <= 0x9f) return array(head & 0x0f, depth, out);
    if (head <= 0xbf) return string(head & 0x1f, out);
    uint64_t n;
    switch (head) {
      case 0xc0:
        return true;
      case 0xc2:
      case 0xc3:
        out.kind = Kind::boolean;
        out.number = head == 0xc3 ? 1 : 0;
        return true;
      case 0xc4:
      case 0xc5:
      case 0xc6:
        return in_.big_endian(1 << (head - 0xc4), n) && skip(n);
      case 0xc7:
      case 0xc8:
      case 0xc9:
        return in_.big_endian(1 << (head - 0xc7), n) && skip(1) && skip(n);
      case 0xca:
        return skip(4);
      case 0xcb:
        return skip(8);
      case 0xcc:
      case 0xcd:
      case 0xce:
      case 0xcf:
        return in_.big_endian(1 << (head - 0xcc), n) && unsigned_int(n, out);
      case 0xd0:
      case 0xd1:
      case 0xd2:
      case 0xd3:
        return skip(uint64_t{1} << (head - 0xd0));
      case 0xd4:
      case 0xd5:
      case 0xd6:
      case 0xd7:
      case 0xd8:
        return skip(1) && skip(uint64_t{1} << (head - 0xd4));
      case 0xd9:
      case 0xda:
      case 0xdb:
        return in_.big_endian(1 << (head - 0xd9), n) && string(n, out);
      case 0xdc:
      case 0xdd:
        return in_.big_endian(head == 0xdc ? 2 : 4, n) && array(n, depth, out);
      case 0xde:
      case 0xdf:
        return in_.big_endian(head == 0xde ? 2 : 4, n) && map(n, depth, out);
      default:  // 0xc1
        return false;
    }
  }

 private:
  static bool unsigned_int(uint64_t n, ViewElement& out) {
    out.kind = Kind::unsigned_int;
    out.number = n;
    return true;
  }
  bool skip(uint64_t n) { return in_.skip(n); }
  bool text(uint64_t length, std::string_view& out) {
    if (length > in_.left()) return false;
    out = std::string_view(reinterpret_cast<const char*>(at()), static_cast<size_t>(length));
    return in_.skip(length);
  }
  bool string(uint64_t length, ViewElement& out) {
    out.kind = Kind::string;
    return text(length, out.text);
  }
  bool array(uint64_t count, int depth, ViewElement& out) {
    if (depth >= kMaxNestingDepth || count > in_.left()) return false;
    out.kind = Kind::list;
    for (uint64_t i = 0; i < count; ++i) {
      ViewElement element;
      if (!value(depth + 1, element)) return false;
    }
    return true;
  }
  bool map(uint64_t count, int depth, ViewElement& out) {
    if (depth >= kMaxNestingDepth || count > in_.left() / 2) return false;
    out.kind = Kind::dict;
    for (uint64_t i = 0; i < count; ++i) {
      std::string_view name;
      ViewElement element;
      if (!key(name) || !value(depth + 1, element)) return false;
    }
    return true;
  }

  ByteReader in_;
};

// CBOR, as common/serialization/cbor_decoder.cc reads it, definite lengths only.
class CborReader {
 public:
  explicit CborReader(std::span<const uint8_t> bytes) : in_(bytes) {}

  const uint8_t* at() const { return in_.position(); }
  bool at_end() const { return in_.at_end(); }

  bool array_header(uint64_t& count) { return header(4, count); }
  bool map_header(uint64_t& count) { return header(5, count); }
  bool key(std::string_view& key) {
    uint64_t length;
    return header(3, length) && text(length, key);
  }

  bool value(int depth, ViewElement& out) {
    uint8_t head;
    if (!in_.byte(head)) return false;
    uint64_t n;
    switch (head >> 5) {
      case 0:
        if (!argument(head, n)) return false;
        out.kind = Kind::unsigned_int;
        out.number = n;
        return true;
      case 1:
        return argument(head, n) && n <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
      case 2:
        return argument(head, n) && in_.skip(n);
      case 3:
        out.kind = Kind::string;
        return argument(head, n) && text(n, out.text);
      case 4:
        if (!argument(head, n) || depth >= kMaxNestingDepth || n > in_.left()) {
          return false;
        }
        out.kind = Kind::list;
        for (uint64_t i = 0; i < n; ++i) {
          ViewElement element;
          if (!value(depth + 1, element)) return false;
        }
        return true;
      case 5:
        if (!argument(head, n) || depth >= kMaxNestingDepth || n > in_.left() / 2) {
          return false;
        }
        out.kind = Kind::dict;
        for (uint64_t i = 0; i < n; ++i) {
          std::string_view name;
          ViewElement element;
          if (!key(name) || !value(depth + 1, element)) return false;
        }
        return true;
      case 6:
        return false;  // tags
      default:
        return simple(head, out);
    }
  }

 private:
  // A definite argument (indefinite lengths go to the document path).
  bool argument(uint8_t head, uint64_t& out) {
    const uint8_t info = head & 0x1f;
    if (info < 24) {
      out = info;
      return true;
    }
    if (info <= 27) return in_.big_endian(1 << (info - 24), out);
    return false;
  }
  bool header(uint8_t major, uint64_t& out) {
    uint8_t head;
    return in_.byte(head) && (head >> 5) == major && argument(head, out);
  }
  bool simple(uint8_t head, ViewElement& out) {
    uint64_t bits;
    switch (head) {
      case 0xf4:
      case 0xf5:
        out.kind = Kind::boolean;
        out.number = head == 0xf5 ? 1 : 0;
        return true;
      case 0xf6:
        return true;
      case 0xf9:
        return in_.big_endian(2, bits);
      case 0xfa:
        return in_.big_endian(4, bits);
      case 0xfb:
        return in_.big_endian(8, bits);
      default:
        return false;
    }
  }
  bool text(uint64_t length, std::string_view& out) {
    if (length > in_.left()) return false;
    out = std::string_view(reinterpret_cast<const char*>(at()), static_cast<size_t>(length));
    return in_.skip(length);
  }

  ByteReader in_;
};

bool is_space(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// JSON, as common/serialization/json_decoder.cc reads it (NUL-prefixed strings as binary).
class JsonReader {
 public:
  explicit JsonReader(std::span<const uint8_t> bytes)
      : at_(bytes.data()), end_(bytes.data() + bytes.size()) {}

  const uint8_t* at() const { return at_; }
  bool at_end() const { return at_ == end_; }
  void skip_space() {
    while (at_ != end_ && is_space(*at_)) ++at_;
  }
  // The byte after whitespace, consumed when it is `c`.
  bool take(uint8_t c) {
    skip_space();
    if (at_ == end_ || *at_ != c) return false;
    ++at_;
    return true;
  }

  // A map key: its raw text, `escaped` when it holds an escape.
  bool key(std::string_view& key, bool& escaped) {
    skip_space();
    if (at_ == end_ || *at_ != '"') return false;
    return string_text(key, escaped);
  }

  // A value (whitespace before it skipped).
  bool value(int depth, ViewElement& out) {
    skip_space();
    if (at_ == end_) return false;
    switch (*at_) {
      case '[':
        return array(depth, out);
      case '{':
        return object(depth, out);
      case '"':
        return string_value(out);
      case 't':
        out.kind = Kind::boolean;
        out.number = 1;
        return literal("true");
      case 'f':
        out.kind = Kind::boolean;
        out.number = 0;
        return literal("false");
      case 'n':
        return literal("null");
      default:
        return number(out);
    }
  }

 private:
  bool literal(std::string_view text) {
    if (static_cast<size_t>(end_ - at_) < text.size() ||
        std::memcmp(at_, text.data(), text.size()) != 0) {
      return false;
    }
    at_ += text.size();
    return true;
  }

  bool array(int depth, ViewElement& out) {
    if (depth >= kMaxNestingDepth) return false;
    ++at_;
    out.kind = Kind::list;
    if (take(']')) return true;
    for (;;) {
      ViewElement element;
      if (!value(depth + 1, element)) return false;
      if (take(']')) return true;
      if (!take(',')) return false;
    }
  }

  bool object(int depth, ViewElement& out) {
    if (depth >= kMaxNestingDepth) return false;
    ++at_;
    out.kind = Kind::dict;
    if (take('}')) return true;
    for (;;) {
      std::string_view name;
      bool escaped = false;
      ViewElement element;
      if (!key(name, escaped) || !take(':') || !value(depth + 1, element)) return false;
      if (take('}')) return true;
      if (!take(',')) return false;
    }
  }

  bool string_value(ViewElement& out) {
    static constexpr std::string_view kNul = "\\u0000";
    if (static_cast<size_t>(end_ - at_) > kNul.size() &&
        std::memcmp(at_ + 1, kNul.data(), kNul.size()) == 0) {
      // Binary: base64 up to the next '"' (the decoder's fast path). With an escape in it the
      // decoder unescapes first; that is left to the document path.
      const uint8_t* text = at_ + 1 + kNul.size();
      const auto* quote =
          static_cast<const uint8_t*>(std::memchr(text, '"', static_cast<size_t>(end_ - text)));
      if (quote == nullptr || !base64_valid(std::string_view(reinterpret_cast<const char*>(text),
                                                             static_cast<size_t>(quote - text)))) {
        return false;
      }
      at_ = quote + 1;
      out.kind = Kind::other;
      return true;
    }
    out.kind = Kind::string;
    return string_text(out.text, out.escaped);
  }

  // A string (at_ on its opening quote): its raw text between the quotes.
  bool string_text(std::string_view& text, bool& escaped) {
    ++at_;
    const uint8_t* start = at_;
    for (;;) {
      at_ = plain_run_end(at_, end_);
      if (at_ == end_) return false;
      const uint8_t c = *at_;
      if (c == '"') {
        text = std::string_view(reinterpret_cast<const char*>(start),
                                static_cast<size_t>(at_ - start));
        ++at_;
        return true;
      }
      if (c >= 0x80) {
        const size_t length = utf8_sequence(at_, end_);
        if (length == 0) return false;
        at_ += length;
        continue;
      }
      if (c != '\\' || !escape()) return false;
      escaped = true;
    }
  }

  bool escape() {
    uint32_t code;
    return scan_escape(at_, end_, code);
  }

  bool number(ViewElement& out) {
    const uint8_t* start = at_;
    NumberScan scanned;
    if (!scan_number(at_, end_, scanned)) return false;
    if (scanned.integer && !scanned.overflow) {
      if (!scanned.negative) {
        out.kind = Kind::unsigned_int;
        out.number = scanned.magnitude;
        return true;
      }
      if (scanned.magnitude <= uint64_t{1} << 63) return true;
    }
    // A double: what from_chars cannot hold (out of range, which strtod rounds to zero or the
    // decoder refuses) is left to the document path.
    double parsed = 0;
    const auto* first = reinterpret_cast<const char*>(start);
    const auto* last = reinterpret_cast<const char*>(at_);
    const auto result = std::from_chars(first, last, parsed);
    return result.ec == std::errc() && result.ptr == last && std::isfinite(parsed);
  }

  const uint8_t* at_;
  const uint8_t* end_;
};

// The next element of the array into out[count].
template <typename Reader>
bool read_element(Reader& reader, std::span<ViewElement> out, size_t& count) {
  if (count == out.size()) return false;
  ViewElement& element = out[count];
  element = ViewElement{};
  const uint8_t* start = reader.at();
  if (!reader.value(1, element)) return false;
  element.bytes = std::span<const uint8_t>(start, static_cast<size_t>(reader.at() - start));
  ++count;
  return true;
}

// Looks `key` up in a map whose entries the reader is at (after the header).
template <typename Reader>
Option lookup(Reader& reader, uint64_t count, std::string_view key) {
  Option found;
  for (uint64_t i = 0; i < count; ++i) {
    std::string_view name;
    ViewElement value;
    if (!reader.key(name) || !reader.value(1, value)) return {Option::Kind::unknown};
    if (name != key) continue;
    switch (value.kind) {
      case Kind::unsigned_int:
        found = {Option::Kind::unsigned_int, value.number};
        break;
      case Kind::boolean:
        found = {Option::Kind::boolean, value.number};
        break;
      default:
        found = {Option::Kind::other};
    }
  }
  return found;
}

}  // namespace

bool read_elements(Serializer serializer, std::span<const uint8_t> bytes,
                   std::span<ViewElement> out, size_t& size) {
  uint64_t count = 0;
  size = 0;
  switch (serializer) {
    case Serializer::kMsgpack: {
      MsgpackReader reader(bytes);
      if (!reader.array_header(count) || count > out.size()) return false;
      for (uint64_t i = 0; i < count; ++i) {
        if (!read_element(reader, out, size)) return false;
      }
      return reader.at_end();
    }
    case Serializer::kCbor: {
      CborReader reader(bytes);
      if (!reader.array_header(count) || count > out.size()) return false;
      for (uint64_t i = 0; i < count; ++i) {
        if (!read_element(reader, out, size)) return false;
      }
      return reader.at_end();
    }
    case Serializer::kJson: {
      JsonReader reader(bytes);
      // An empty list is no message the view reads.
      if (!reader.take('[') || reader.take(']')) return false;
      for (;;) {
        reader.skip_space();
        if (!read_element(reader, out, size)) return false;
        if (reader.take(']')) break;
        if (!reader.take(',')) return false;
      }
      reader.skip_space();
      return reader.at_end();
    }
  }
  return false;
}

Option find_option(Serializer serializer, std::span<const uint8_t> dict, std::string_view key) {
  uint64_t count = 0;
  switch (serializer) {
    case Serializer::kMsgpack: {
      MsgpackReader reader(dict);
      if (!reader.map_header(count)) return {Option::Kind::unknown};
      return lookup(reader, count, key);
    }
    case Serializer::kCbor: {
      CborReader reader(dict);
      if (!reader.map_header(count)) return {Option::Kind::unknown};
      return lookup(reader, count, key);
    }
    case Serializer::kJson: {
      JsonReader reader(dict);
      if (!reader.take('{')) return {Option::Kind::unknown};
      if (reader.take('}')) return {};
      Option found;
      for (;;) {
        std::string_view name;
        bool escaped = false;
        ViewElement value;
        if (!reader.key(name, escaped) || escaped || !reader.take(':') || !reader.value(1, value)) {
          return {Option::Kind::unknown};
        }
        if (name == key) {
          found = value.kind == Kind::unsigned_int
                      ? Option{Option::Kind::unsigned_int, value.number}
                  : value.kind == Kind::boolean ? Option{Option::Kind::boolean, value.number}
                                                : Option{Option::Kind::other};
        }
        if (reader.take('}')) return found;
        if (!reader.take(',')) return {Option::Kind::unknown};
      }
    }
  }
  return {Option::Kind::unknown};
}

}  // namespace benchgate::serialization
