// See websocket_framing.h.
#include "worker/wamp/websocket_framing.h"

#include <immintrin.h>

#include <cstring>

namespace benchgate::worker::wamp::ws {
namespace {

// Bytes of the header announced by its first two bytes: 2, plus the extended length (2 or
// 8), plus the masking key (4) when the mask bit is set.
size_t header_size(uint8_t second) {
  const uint8_t len7 = second & 0x7f;
  const size_t extended = len7 == 126 ? 2 : (len7 == 127 ? 8 : 0);
  return 2 + extended + ((second & 0x80) != 0 ? 4 : 0);
}

bool use_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}

// The key repeated over 8 bytes, starting at key[phase % 4].
uint64_t key_word(const std::array<uint8_t, 4>& key, size_t phase) {
  uint8_t bytes[8];
  for (size_t i = 0; i < 8; ++i) bytes[i] = key[(phase + i) % 4];
  uint64_t word;
  std::memcpy(&word, bytes, 8);
  return word;
}

// 32 bytes at a time; returns how many bytes it did (a multiple of 32; a multiple of 4 keeps
// the phase).
__attribute__((target("avx2"))) size_t mask_avx2(uint8_t* dst, const uint8_t* src, size_t size,
                                                 uint64_t word) {
  const __m256i k = _mm256_set1_epi64x(static_cast<long long>(word));
  size_t i = 0;
  for (; i + 128 <= size; i += 128) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 32));
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 64));
    const __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 96));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_xor_si256(a, k));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i + 32), _mm256_xor_si256(b, k));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i + 64), _mm256_xor_si256(c, k));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i + 96), _mm256_xor_si256(d, k));
  }
  for (; i + 32 <= size; i += 32) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_xor_si256(a, k));
  }
  return i;
}

}  // namespace

size_t encode_header(const FrameHeader& header, uint8_t* out) {
  out[0] = static_cast<uint8_t>((header.fin ? 0x80 : 0x00) | (header.opcode & 0x0f));
  const uint8_t mask_bit = header.masked ? 0x80 : 0x00;
  size_t n = 2;
  if (header.length < 126) {
    out[1] = static_cast<uint8_t>(mask_bit | header.length);
  } else if (header.length <= 0xffff) {
    out[1] = mask_bit | 126;
    out[2] = static_cast<uint8_t>(header.length >> 8);
    out[3] = static_cast<uint8_t>(header.length);
    n = 4;
  } else {
    out[1] = mask_bit | 127;
    for (size_t i = 0; i < 8; ++i) out[2 + i] = static_cast<uint8_t>(header.length >> (56 - 8 * i));
    n = 10;
  }
  if (header.masked) {
    std::memcpy(out + n, header.key.data(), 4);
    n += 4;
  }
  return n;
}

size_t HeaderParser::feed(const uint8_t* data, size_t size) {
  size_t taken = 0;
  while (state_ == State::kNeedMore && taken < size) {
    const size_t want = have_ < 2 ? 2 : header_size(bytes_[1]);
    const size_t take = std::min(want - have_, size - taken);
    std::memcpy(bytes_.data() + have_, data + taken, take);
    have_ += take;
    taken += take;
    if (have_ >= 2 && have_ == header_size(bytes_[1])) finish();
  }
  return taken;
}

void HeaderParser::finish() {
  FrameHeader h;
  h.fin = (bytes_[0] & 0x80) != 0;
  h.opcode = bytes_[0] & 0x0f;
  h.masked = (bytes_[1] & 0x80) != 0;
  const uint8_t len7 = bytes_[1] & 0x7f;
  size_t at = 2;
  if (len7 == 126) {
    h.length = (uint64_t{bytes_[2]} << 8) | bytes_[3];
    at = 4;
  } else if (len7 == 127) {
    h.length = 0;
    for (size_t i = 2; i < 10; ++i) h.length = (h.length << 8) | bytes_[i];
    at = 10;
  } else {
    h.length = len7;
  }
  if (h.masked) std::memcpy(h.key.data(), bytes_.data() + at, 4);
  header_ = h;
  state_ = State::kError;
  if ((bytes_[0] & 0x70) != 0) {
    error_ = "reserved bits set (no extension was negotiated)";
  } else if ((h.opcode >= 0x3 && h.opcode <= 0x7) || h.opcode >= 0xb) {
    error_ = "reserved opcode";
  } else if (h.opcode >= 0x8 && (!h.fin || h.length > 125)) {
    error_ = "control frame fragmented or longer than 125 bytes";
  } else if (len7 == 127 && (h.length >> 63) != 0) {
    error_ = "payload length with its most significant bit set";
  } else {
    state_ = State::kDone;
  }
}

void mask_copy(uint8_t* dst, const uint8_t* src, size_t size, const std::array<uint8_t, 4>& key,
               size_t phase) {
  const uint64_t word = key_word(key, phase);
  size_t i = 0;
  if (size >= 32 && use_avx2()) i = mask_avx2(dst, src, size, word);
  for (; i + 8 <= size; i += 8) {
    uint64_t v;
    std::memcpy(&v, src + i, 8);
    v ^= word;
    std::memcpy(dst + i, &v, 8);
  }
  for (; i < size; ++i) dst[i] = src[i] ^ key[(phase + i) % 4];
}

}  // namespace benchgate::worker::wamp::ws
