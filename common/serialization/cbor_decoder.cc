// CBOR (RFC 8949) into nlohmann::json (see binary_decoder.h). Definite and indefinite lengths;
// the chunks of an indefinite string must be definite strings of the same major type. Tags
// are refused, as nlohmann's from_cbor refuses them by default.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/serialization/binary_decoder.h"
#include "common/serialization/byte_reader.h"

namespace benchgate::serialization {
namespace {

using Json = nlohmann::json;

constexpr uint8_t kBreak = 0xff;
constexpr uint64_t kIndefinite = std::numeric_limits<uint64_t>::max();

// IEEE 754 binary16.
double half_from_bits(uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  double magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(mantissa, -24);
  } else if (exponent == 31) {
    magnitude = mantissa == 0 ? std::numeric_limits<double>::infinity()
                              : std::numeric_limits<double>::quiet_NaN();
  } else {
    magnitude = std::ldexp(mantissa + 1024, exponent - 25);
  }
  return (bits & 0x8000) != 0 ? -magnitude : magnitude;
}

class CborDecoder {
 public:
  CborDecoder(std::span<const uint8_t> bytes, int max_depth) : in_(bytes), max_depth_(max_depth) {}

  bool whole(Json& out) { return value(out, 0) && in_.at_end(); }

 private:
  // The argument of an initial byte: the count, length or value its additional information
  // gives (kIndefinite for 31 where `indefinite_ok`).
  bool argument(uint8_t head, bool indefinite_ok, uint64_t& out) {
    const uint8_t info = head & 0x1f;
    if (info < 24) {
      out = info;
      return true;
    }
    if (info <= 27) return in_.big_endian(1 << (info - 24), out);
    if (info == 31 && indefinite_ok) {
      out = kIndefinite;
      return true;
    }
    return false;  // 28-30 are reserved
  }

  bool value(Json& out, int depth) {
    uint8_t head;
    if (!in_.byte(head)) return false;
    const uint8_t major = head >> 5;
    uint64_t n;
    switch (major) {
      case 0:
        if (!argument(head, false, n)) return false;
        out = static_cast<Json::number_unsigned_t>(n);
        return true;
      case 1:
        if (!argument(head, false, n)) return false;
        if (n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
        out = static_cast<Json::number_integer_t>(-1 - static_cast<int64_t>(n));
        return true;
      case 2: {
        std::vector<uint8_t> bytes;
        if (!argument(head, true, n) || !chunks(2, n, bytes)) return false;
        out = Json::binary(std::move(bytes));
        return true;
      }
      case 3: {
        std::string text;
        if (!argument(head, true, n) || !chunks(3, n, text)) return false;
        out = std::move(text);
        return true;
      }
      case 4:
        return argument(head, true, n) && array(out, n, depth);
      case 5:
        return argument(head, true, n) && map(out, n, depth);
      case 6:
        return false;  // tags
      default:
        return simple(head, out);
    }
  }

  bool simple(uint8_t head, Json& out) {
    uint64_t bits;
    switch (head) {
      case 0xf4:
        out = false;
        return true;
      case 0xf5:
        out = true;
        return true;
      case 0xf6:
        out = nullptr;
        return true;
      case 0xf9:
        if (!in_.big_endian(2, bits)) return false;
        out = half_from_bits(static_cast<uint16_t>(bits));
        return true;
      case 0xfa:
        if (!in_.big_endian(4, bits)) return false;
        out = float_from_bits(static_cast<uint32_t>(bits));
        return true;
      case 0xfb:
        if (!in_.big_endian(8, bits)) return false;
        out = double_from_bits(bits);
        return true;
      default:  // undefined, simple values, a stray break
        return false;
    }
  }

  // A byte or text string of `length` (or indefinite: definite chunks of the same major type
  // up to a break), appended to `out` one bulk copy per chunk.
  template <class Container>
  bool chunks(uint8_t major, uint64_t length, Container& out) {
    if (length != kIndefinite) return append(length, out);
    for (;;) {
      uint8_t head;
      if (!in_.byte(head)) return false;
      if (head == kBreak) return true;
      uint64_t chunk;
      if ((head >> 5) != major || !argument(head, false, chunk) || !append(chunk, out)) {
        return false;
      }
    }
  }
  bool append(uint64_t length, std::string& out) { return in_.append_text(length, out); }
  bool append(uint64_t length, std::vector<uint8_t>& out) { return in_.append_bytes(length, out); }

  bool at_break() {
    uint8_t next;
    if (!in_.peek(next) || next != kBreak) return false;
    in_.byte(next);
    return true;
  }

  bool array(Json& out, uint64_t count, int depth) {
    if (depth >= max_depth_) return false;
    out = Json::array();
    auto& elements = out.get_ref<Json::array_t&>();
    if (count == kIndefinite) {
      while (!at_break()) {
        elements.emplace_back();
        if (!value(elements.back(), depth + 1)) return false;
      }
      return true;
    }
    if (count > in_.left()) return false;
    elements.resize(static_cast<size_t>(count));
    for (Json& element : elements) {
      if (!value(element, depth + 1)) return false;
    }
    return true;
  }

  bool map(Json& out, uint64_t count, int depth) {
    if (depth >= max_depth_) return false;
    out = Json::object();
    auto& members = out.get_ref<Json::object_t&>();
    std::string key;
    if (count == kIndefinite) {
      while (!at_break()) {
        if (!map_key(key) || !value(members[std::move(key)], depth + 1)) return false;
      }
      return true;
    }
    if (count > in_.left() / 2) return false;
    for (uint64_t i = 0; i < count; ++i) {
      if (!map_key(key) || !value(members[std::move(key)], depth + 1)) return false;
    }
    return true;
  }

  // Keys are text strings, as nlohmann requires.
  bool map_key(std::string& key) {
    uint8_t head;
    uint64_t length;
    if (!in_.byte(head) || (head >> 5) != 3 || !argument(head, true, length)) return false;
    key.clear();
    return chunks(3, length, key);
  }

  ByteReader in_;
  int max_depth_;
};

}  // namespace

bool decode_cbor(std::span<const uint8_t> bytes, Json& out, int max_depth) {
  CborDecoder decoder(bytes, max_depth);
  if (decoder.whole(out)) return true;
  out = nullptr;
  return false;
}

}  // namespace benchgate::serialization
