// Base64 encoding and decoding (see base64.h).
//
// Large payloads (WAMP's JSON binary strings) are the hot case: on x86-64 CPUs with AVX2
// (checked once at run time) both directions go through a vector loop of 24 bytes / 32
// characters per step, about 0.7 instructions per byte instead of 5 to 7 for the scalar
// loop; the scalar loop does the rest (the last 16 to 47 characters, which hold any padding)
// and everything on other CPUs. Both give the same bytes and reject the same text.
#include "common/serialization/base64.h"

#include <algorithm>
#include <array>
#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define BENCHGATE_BASE64_AVX2 1
#endif

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

#ifdef BENCHGATE_BASE64_AVX2
bool use_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}

// Encodes 24 bytes per step of the first `size` while 28 can be read (two 16-byte loads, 12
// bytes apart; `readable` >= `size` bytes are there); returns how many bytes it encoded (a
// multiple of 24; their 4/3 as many characters are written).
//
// Each 32-bit lane gets the bytes b1 b0 b2 b1 of one group of three, so that its two 16-bit
// words are w0 = b0:b1 and w1 = b1:b2; the four sextets are then w0 >> 10, (w0 >> 4) & 63,
// (w1 >> 6) & 63 and w1 & 63, moved into the lane's four bytes by one multiply-high (by 2^6
// and 2^10) and one multiply-low (by 2^4 and 2^8). A sextet becomes its character by adding
// an offset chosen by its range: 0-25 'A', 26-51 'a' - 26, 52-61 '0' - 52, 62 '+', 63 '/'.
__attribute__((target("avx2"))) size_t encode_avx2(const uint8_t* in, size_t size, size_t readable,
                                                   char* out) {
  const __m256i spread = _mm256_setr_epi8(1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10,  //
                                          1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10);
  const __m256i keep_high = _mm256_set1_epi32(0x0fc0fc00);
  const __m256i shift_high = _mm256_set1_epi32(0x04000040);
  const __m256i keep_low = _mm256_set1_epi32(0x003f03f0);
  const __m256i shift_low = _mm256_set1_epi32(0x01000010);
  const __m256i offsets =
      _mm256_setr_epi8(65, 71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -19, -16, 0, 0,  //
                       65, 71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -19, -16, 0, 0);
  const __m256i fifty_one = _mm256_set1_epi8(51);
  const __m256i twenty_five = _mm256_set1_epi8(25);
  size_t i = 0;
  for (; size - i >= 24 && readable - i >= 28; i += 24) {
    const __m128i low = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    const __m128i high = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i + 12));
    const __m256i v =
        _mm256_shuffle_epi8(_mm256_inserti128_si256(_mm256_castsi128_si256(low), high, 1), spread);
    const __m256i sextets =
        _mm256_or_si256(_mm256_mulhi_epu16(_mm256_and_si256(v, keep_high), shift_high),
                        _mm256_mullo_epi16(_mm256_and_si256(v, keep_low), shift_low));
    __m256i range = _mm256_subs_epu8(sextets, fifty_one);  // 0 below 52, then 1..12
    range = _mm256_sub_epi8(range, _mm256_cmpgt_epi8(sextets, twenty_five));
    const __m256i chars = _mm256_add_epi8(sextets, _mm256_shuffle_epi8(offsets, range));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i / 3 * 4), chars);
  }
  return i;
}

// Decodes 32 characters per step while at least `tail` (32 or 48) are left; with 48 the last
// quartet, with any padding, is the scalar loop's and the 32-byte store stays inside an output
// of exactly the decoded size; 32 needs 8 bytes of room past it. Returns how many characters
// it decoded (a multiple of 32), or SIZE_MAX when one is not in the alphabet.
//
// Validity: a character is bad when the class bits of its high nibble meet the bits its low
// nibble has for the classes in which it is invalid (classes: high nibble 2 ('+' at B and '/'
// at F only), 3 (digits 0-9), 4 and 6 (all but 0), 5 and 7 (0 to A), and everything else).
// Value: the character plus an offset chosen by its high nibble, '/' moved to a slot of its
// own. Then the four sextets of each lane are packed into 24 bits (two multiply-adds) and the
// three bytes of each lane gathered at the front.
__attribute__((target("avx2"))) size_t decode_avx2(const char* in, size_t size, size_t tail,
                                                   uint8_t* out) {
  const __m256i invalid_for_low =
      _mm256_setr_epi8(0x0b, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x07, 0x15, 0x17,
                       0x17, 0x17, 0x15,  //
                       0x0b, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x03, 0x07, 0x15, 0x17,
                       0x17, 0x17, 0x15);
  const __m256i class_of_high =
      _mm256_setr_epi8(1, 1, 2, 4, 8, 16, 8, 16, 1, 1, 1, 1, 1, 1, 1, 1,  //
                       1, 1, 2, 4, 8, 16, 8, 16, 1, 1, 1, 1, 1, 1, 1, 1);
  const __m256i offsets =
      _mm256_setr_epi8(0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0,  //
                       0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m256i nibble = _mm256_set1_epi8(0x0f);
  const __m256i slash = _mm256_set1_epi8('/');
  const __m256i pairs = _mm256_set1_epi32(0x01400140);  // a * 64 + b
  const __m256i quads = _mm256_set1_epi32(0x00011000);  // ab * 4096 + cd
  const __m256i gather = _mm256_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1, 2,
                                          1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);
  size_t i = 0;
  for (; size - i >= tail; i += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    const __m256i high = _mm256_and_si256(_mm256_srli_epi32(v, 4), nibble);
    const __m256i low = _mm256_and_si256(v, nibble);
    const __m256i bad = _mm256_and_si256(_mm256_shuffle_epi8(invalid_for_low, low),
                                         _mm256_shuffle_epi8(class_of_high, high));
    if (!_mm256_testz_si256(bad, bad)) return SIZE_MAX;
    const __m256i slot = _mm256_add_epi8(_mm256_cmpeq_epi8(v, slash), high);
    const __m256i sextets = _mm256_add_epi8(v, _mm256_shuffle_epi8(offsets, slot));
    const __m256i packed = _mm256_madd_epi16(_mm256_maddubs_epi16(sextets, pairs), quads);
    const __m256i bytes = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(packed, gather), lanes);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i / 4 * 3), bytes);
  }
  return i;
}
#endif

void encode_scalar(const uint8_t* in, size_t size, char* o) {
  size_t i = 0;
  for (; i + 3 <= size; i += 3) {
    const uint32_t v = (uint32_t{in[i]} << 16) | (uint32_t{in[i + 1]} << 8) | in[i + 2];
    *o++ = kAlphabet[(v >> 18) & 63];
    *o++ = kAlphabet[(v >> 12) & 63];
    *o++ = kAlphabet[(v >> 6) & 63];
    *o++ = kAlphabet[v & 63];
  }
  const size_t rest = size - i;
  if (rest == 0) return;
  uint32_t v = uint32_t{in[i]} << 16;
  if (rest == 2) v |= uint32_t{in[i + 1]} << 8;
  *o++ = kAlphabet[(v >> 18) & 63];
  *o++ = kAlphabet[(v >> 12) & 63];
  *o++ = rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
  *o++ = '=';
}

// Decodes quartets of `text` (a multiple of 4 long) into `out`, which has room for exactly
// the bytes they hold; '=' is allowed only as the last one or two characters of the text, and
// only when it is the end of the whole text (`final`).
bool decode_scalar(std::string_view text, bool final, uint8_t* out) {
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = final && i + 4 == text.size();
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
    *out++ = static_cast<uint8_t>(v >> 16);
    if (pad < 2) *out++ = static_cast<uint8_t>(v >> 8);
    if (pad < 1) *out++ = static_cast<uint8_t>(v);
  }
  return true;
}

// Decodes `text` (a multiple of 4 long; its end is the whole text's when `final`) into
// out[0, its decoded size); `slack`: out has 8 bytes of room past that, so an inner chunk is
// decoded by the vector loop to its end.
bool decode_block(std::string_view text, bool final, bool slack, uint8_t* out) {
  size_t done = 0;
#ifdef BENCHGATE_BASE64_AVX2
  const size_t tail = slack && !final ? 32 : 48;
  if (text.size() >= tail && use_avx2()) {
    done = decode_avx2(text.data(), text.size(), tail, out);
    if (done == SIZE_MAX) return false;
  }
#else
  (void)slack;
#endif
  return decode_scalar(text.substr(done), final, out + done / 4 * 3);
}

// Encodes the first `size` of `readable` bytes at `in`.
void encode_part(const uint8_t* in, size_t size, size_t readable, char* out) {
  size_t done = 0;
#ifdef BENCHGATE_BASE64_AVX2
  if (size >= 24 && readable >= 28 && use_avx2()) done = encode_avx2(in, size, readable, out);
#else
  (void)readable;
#endif
  encode_scalar(in + done, size - done, out + done / 3 * 4);
}

// Into a std::vector, large input goes through a small buffer on the stack: resize() would
// first zero-fill the whole destination (a second pass over it), and there is no way to grow
// a vector without initialising its bytes. The chunk stays in L1 and is appended with a
// short vector copy. Sizes are multiples of 3 bytes / 4 characters.
constexpr size_t kChunkBytes = 1536;
constexpr size_t kChunkChars = kChunkBytes / 3 * 4;

}  // namespace

void base64_encode(std::span<const uint8_t> bytes, char* out) {
  encode_part(bytes.data(), bytes.size(), bytes.size(), out);
}

void append_base64(std::span<const uint8_t> bytes, std::string& out) {
  const size_t start = out.size();
  out.resize(start + base64_size(bytes.size()));
  base64_encode(bytes, out.data() + start);
}

size_t base64_decoded_size(std::string_view text) {
  if (text.size() % 4 != 0) return SIZE_MAX;
  size_t pad = 0;
  if (!text.empty() && text.back() == '=') pad = text[text.size() - 2] == '=' ? 2 : 1;
  return text.size() / 4 * 3 - pad;
}

void append_base64(std::span<const uint8_t> bytes, std::vector<uint8_t>& out) {
  out.reserve(out.size() + base64_size(bytes.size()));
  char chunk[kChunkChars];
  for (size_t i = 0; i < bytes.size(); i += kChunkBytes) {
    // The bytes after the chunk may be read (not encoded) by its last vector step.
    const size_t size = std::min(kChunkBytes, bytes.size() - i);
    encode_part(bytes.data() + i, size, bytes.size() - i, chunk);
    out.insert(out.end(), chunk, chunk + base64_size(size));
  }
}

bool base64_decode(std::string_view text, uint8_t* out) {
  if (text.size() % 4 != 0) return false;
  return decode_block(text, /*final=*/true, /*slack=*/false, out);
}

bool base64_valid(std::string_view text) {
  if (base64_decoded_size(text) == SIZE_MAX) return false;
  uint8_t chunk[kChunkBytes + 8];
  for (size_t i = 0; i < text.size(); i += kChunkChars) {
    const std::string_view part = text.substr(i, kChunkChars);
    if (!decode_block(part, i + part.size() == text.size(), /*slack=*/true, chunk)) return false;
  }
  return true;
}

bool base64_decode(std::string_view text, std::vector<uint8_t>& out) {
  out.clear();
  const size_t size = base64_decoded_size(text);
  if (size == SIZE_MAX) return false;
  out.reserve(size);
  uint8_t chunk[kChunkBytes + 8];
  for (size_t i = 0; i < text.size(); i += kChunkChars) {
    const std::string_view part = text.substr(i, kChunkChars);
    const bool final = i + part.size() == text.size();
    if (!decode_block(part, final, /*slack=*/true, chunk)) {
      out.clear();
      return false;
    }
    out.insert(out.end(), chunk, chunk + (final ? size - out.size() : part.size() / 4 * 3));
  }
  return true;
}

}  // namespace benchgate::serialization
