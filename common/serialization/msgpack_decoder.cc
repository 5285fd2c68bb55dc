// MessagePack into nlohmann::json (see binary_decoder.h). Format:
// https://github.com/msgpack/msgpack/blob/master/spec.md
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/serialization/binary_decoder.h"
#include "common/serialization/byte_reader.h"

namespace benchgate::serialization {
namespace {

using Json = nlohmann::json;

class MsgpackDecoder {
 public:
  MsgpackDecoder(std::span<const uint8_t> bytes, int max_depth)
      : in_(bytes), max_depth_(max_depth) {}

  bool whole(Json& out) { return value(out, 0) && in_.at_end(); }

 private:
  bool value(Json& out, int depth) {
    uint8_t head;
    if (!in_.byte(head)) return false;
    if (head <= 0x7f) {
      out = static_cast<Json::number_unsigned_t>(head);
      return true;
    }
    if (head >= 0xe0) {
      out = static_cast<Json::number_integer_t>(static_cast<int8_t>(head));
      return true;
    }
    if (head <= 0x8f) return map(out, head & 0x0f, depth);
    if (head <= 0x9f) return array(out, head & 0x0f, depth);
    if (head <= 0xbf) return string(out, head & 0x1f);
    uint64_t n;
    switch (head) {
      case 0xc0:
        out = nullptr;
        return true;
      case 0xc2:
        out = false;
        return true;
      case 0xc3:
        out = true;
        return true;
      case 0xc4:
      case 0xc5:
      case 0xc6:
        return in_.big_endian(1 << (head - 0xc4), n) && binary(out, n, std::nullopt);
      case 0xc7:
      case 0xc8:
      case 0xc9:
        return in_.big_endian(1 << (head - 0xc7), n) && ext(out, n);
      case 0xca:
        if (!in_.big_endian(4, n)) return false;
        out = float_from_bits(static_cast<uint32_t>(n));
        return true;
      case 0xcb:
        if (!in_.big_endian(8, n)) return false;
        out = double_from_bits(n);
        return true;
      case 0xcc:
      case 0xcd:
      case 0xce:
      case 0xcf:
        if (!in_.big_endian(1 << (head - 0xcc), n)) return false;
        out = static_cast<Json::number_unsigned_t>(n);
        return true;
      case 0xd0:
      case 0xd1:
      case 0xd2:
      case 0xd3:
        return signed_int(out, 1 << (head - 0xd0));
      case 0xd4:
      case 0xd5:
      case 0xd6:
      case 0xd7:
      case 0xd8:
        return ext(out, uint64_t{1} << (head - 0xd4));
      case 0xd9:
      case 0xda:
      case 0xdb:
        return in_.big_endian(1 << (head - 0xd9), n) && string(out, n);
      case 0xdc:
      case 0xdd:
        return in_.big_endian(head == 0xdc ? 2 : 4, n) && array(out, n, depth);
      case 0xde:
      case 0xdf:
        return in_.big_endian(head == 0xde ? 2 : 4, n) && map(out, n, depth);
      default:  // 0xc1: never used
        return false;
    }
  }

  bool signed_int(Json& out, int width) {
    uint64_t n;
    if (!in_.big_endian(width, n)) return false;
    // Sign-extend from `width` bytes.
    const int shift = 64 - 8 * width;
    out = static_cast<Json::number_integer_t>(static_cast<int64_t>(n << shift) >> shift);
    return true;
  }

  bool string(Json& out, uint64_t length) {
    std::string text;
    if (!in_.text(length, text)) return false;
    out = std::move(text);
    return true;
  }

  bool binary(Json& out, uint64_t length, std::optional<uint8_t> subtype) {
    std::vector<uint8_t> bytes;
    if (!in_.bytes(length, bytes)) return false;
    out = subtype ? Json::binary(std::move(bytes), *subtype) : Json::binary(std::move(bytes));
    return true;
  }

  // ext and fixext: a one-byte type, then the data; nlohmann keeps the type as the subtype.
  bool ext(Json& out, uint64_t length) {
    uint8_t type;
    return in_.byte(type) && binary(out, length, type);
  }

  bool array(Json& out, uint64_t count, int depth) {
    if (depth >= max_depth_ || count > in_.left()) return false;
    out = Json::array();
    auto& elements = out.get_ref<Json::array_t&>();
    elements.resize(static_cast<size_t>(count));
    for (Json& element : elements) {
      if (!value(element, depth + 1)) return false;
    }
    return true;
  }

  bool map(Json& out, uint64_t count, int depth) {
    if (depth >= max_depth_ || count > in_.left() / 2) return false;
    out = Json::object();
    auto& members = out.get_ref<Json::object_t&>();
    std::string key;
    for (uint64_t i = 0; i < count; ++i) {
      if (!map_key(key) || !value(members[std::move(key)], depth + 1)) return false;
    }
    return true;
  }

  // Keys are strings (fixstr, str 8/16/32), as nlohmann requires.
  bool map_key(std::string& key) {
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
    return in_.text(length, key);
  }

  ByteReader in_;
  int max_depth_;
};

}  // namespace

bool decode_msgpack(std::span<const uint8_t> bytes, Json& out, int max_depth) {
  MsgpackDecoder decoder(bytes, max_depth);
  if (decoder.whole(out)) return true;
  out = nullptr;
  return false;
}

}  // namespace benchgate::serialization
