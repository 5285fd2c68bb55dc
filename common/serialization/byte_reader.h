// A bounds-checked cursor over untrusted bytes, with big-endian loads: what the MessagePack
// and CBOR decoders share. Every read checks the bytes left first and fails instead of
// reading past the end.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace benchgate::serialization {

class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> bytes)
      : at_(bytes.data()), end_(bytes.data() + bytes.size()) {}

  size_t left() const { return static_cast<size_t>(end_ - at_); }
  bool at_end() const { return at_ == end_; }

  bool byte(uint8_t& out) {
    if (at_ == end_) return false;
    out = *at_++;
    return true;
  }
  // The next byte without consuming it; false at the end.
  bool peek(uint8_t& out) const {
    if (at_ == end_) return false;
    out = *at_;
    return true;
  }
  // Where the next byte is.
  const uint8_t* position() const { return at_; }
  // Moves past `length` bytes.
  bool skip(uint64_t length) {
    if (length > left()) return false;
    at_ += length;
    return true;
  }
  // An unsigned big-endian integer of `width` bytes (1, 2, 4 or 8).
  bool big_endian(int width, uint64_t& out) {
    if (left() < static_cast<size_t>(width)) return false;
    uint64_t value = 0;
    for (int i = 0; i < width; ++i) value = (value << 8) | at_[i];
    at_ += width;
    out = value;
    return true;
  }
  // `length` bytes as a string or a byte vector: one check, one copy.
  bool text(uint64_t length, std::string& out) {
    if (length > left()) return false;
    out.assign(reinterpret_cast<const char*>(at_), static_cast<size_t>(length));
    at_ += length;
    return true;
  }
  bool append_text(uint64_t length, std::string& out) {
    if (length > left()) return false;
    out.append(reinterpret_cast<const char*>(at_), static_cast<size_t>(length));
    at_ += length;
    return true;
  }
  bool bytes(uint64_t length, std::vector<uint8_t>& out) {
    if (length > left()) return false;
    out.assign(at_, at_ + length);
    at_ += length;
    return true;
  }
  bool append_bytes(uint64_t length, std::vector<uint8_t>& out) {
    if (length > left()) return false;
    out.insert(out.end(), at_, at_ + length);
    at_ += length;
    return true;
  }

 private:
  const uint8_t* at_;
  const uint8_t* end_;
};

// IEEE 754 binary32 / binary64 from their bit patterns.
inline double float_from_bits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return static_cast<double>(value);
}
inline double double_from_bits(uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

}  // namespace benchgate::serialization
