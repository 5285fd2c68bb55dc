// Base64 encoding and decoding (see base64.h).
#include "common/serialization/base64.h"

#include <array>

namespace benchgate::serialization {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int8_t, 256> make_reverse() {
  std::array<int8_t, 256> table{};
  for (auto& entry : table) entry = -1;
  for (int i = 0; i < 64; ++i) table[static_cast<uint8_t>(kAlphabet[i])] = static_cast<int8_t>(i);
  return table;
}
constexpr std::array<int8_t, 256> kReverse = make_reverse();

}  // namespace

void base64_encode(std::span<const uint8_t> bytes, char* out) {
  char* o = out;
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    *o++ = kAlphabet[(v >> 18) & 63];
    *o++ = kAlphabet[(v >> 12) & 63];
    *o++ = kAlphabet[(v >> 6) & 63];
    *o++ = kAlphabet[v & 63];
  }
  const size_t rest = bytes.size() - i;
  if (rest == 0) return;
  uint32_t v = uint32_t{bytes[i]} << 16;
  if (rest == 2) v |= uint32_t{bytes[i + 1]} << 8;
  *o++ = kAlphabet[(v >> 18) & 63];
  *o++ = kAlphabet[(v >> 12) & 63];
  *o++ = rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
  *o++ = '=';
}

void append_base64(std::span<const uint8_t> bytes, std::string& out) {
  const size_t start = out.size();
  out.resize(start + base64_size(bytes.size()));
  base64_encode(bytes, out.data() + start);
}

bool base64_decode(std::string_view text, std::vector<uint8_t>& out) {
  out.clear();
  if (text.size() % 4 != 0) return false;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    int8_t q[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + static_cast<size_t>(k)];
      if (c == '=' && last && k >= 2) {
        ++pad;
        q[k] = 0;
        continue;
      }
      if (pad > 0) return false;  // data after padding
      q[k] = kReverse[static_cast<uint8_t>(c)];
      if (q[k] < 0) return false;
    }
    const uint32_t v =
        (uint32_t(q[0]) << 18) | (uint32_t(q[1]) << 12) | (uint32_t(q[2]) << 6) | uint32_t(q[3]);
    out.push_back(static_cast<uint8_t>(v >> 16));
    if (pad < 2) out.push_back(static_cast<uint8_t>(v >> 8));
    if (pad < 1) out.push_back(static_cast<uint8_t>(v));
  }
  return true;
}

}  // namespace benchgate::serialization
