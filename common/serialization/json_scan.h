// The scans JSON text shares between the decoder, the writer and the router's in-place reader
// (router/wamp/message_view.cc): where a run of plain characters ends (bytes that stand for
// themselves in a JSON string, written or read), one escape, and a number's grammar.
#pragma once

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace benchgate::serialization {

// Whether a byte ends a run of plain characters: '"', '\\', a control character or a byte of
// a multi-byte UTF-8 sequence (which the caller checks).
inline bool ends_plain_run(uint8_t c) { return c < 0x20 || c >= 0x80 || c == '"' || c == '\\'; }

// The first byte in [at, end) that ends a plain run, or end; 16 bytes per step where SSE2 is
// there (every x86-64 CPU), so a long string costs well under one instruction per byte.
inline const uint8_t* plain_run_end(const uint8_t* at, const uint8_t* end) {
#if defined(__SSE2__)
  const __m128i space = _mm_set1_epi8(0x20);
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  while (end - at >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    // A signed comparison: below 0x20 and from 0x80 on (negative) at once.
    const __m128i stop =
        _mm_or_si128(_mm_cmplt_epi8(v, space),
                     _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
    if (const int mask = _mm_movemask_epi8(stop)) {
      return at + __builtin_ctz(static_cast<unsigned>(mask));
    }
    at += 16;
  }
#endif
  while (at != end && !ends_plain_run(*at)) ++at;
  return at;
}

// One escape (`at` on its backslash, moved past it) as the code point it stands for: the
// character of a one-letter escape, the code of \uXXXX, a surrogate pair joined; false for
// anything else (an unknown letter, bad hex digits, a lone or reversed surrogate).
inline bool scan_escape(const uint8_t*& at, const uint8_t* end, uint32_t& code) {
  const auto hex4 = [&](uint32_t& out) {
    if (end - at < 4) return false;
    uint32_t value = 0;
    for (int k = 0; k < 4; ++k) {
      const uint8_t c = at[k];
      uint32_t digit;
      if (c >= '0' && c <= '9') {
        digit = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        digit = c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        digit = c - 'A' + 10;
      } else {
        return false;
      }
      value = (value << 4) | digit;
    }
    at += 4;
    out = value;
    return true;
  };
  if (end - at < 2) return false;
  const uint8_t c = at[1];
  at += 2;
  switch (c) {
    case '"':
    case '\\':
    case '/':
      code = c;
      return true;
    case 'b':
      code = '\b';
      return true;
    case 'f':
      code = '\f';
      return true;
    case 'n':
      code = '\n';
      return true;
    case 'r':
      code = '\r';
      return true;
    case 't':
      code = '\t';
      return true;
    case 'u':
      break;
    default:
      return false;
  }
  if (!hex4(code)) return false;
  if (code >= 0xdc00 && code <= 0xdfff) return false;  // a low surrogate first
  if (code >= 0xd800 && code <= 0xdbff) {
    // A high surrogate: the low one must follow as another \u escape.
    uint32_t low;
    if (end - at < 2 || at[0] != '\\' || at[1] != 'u') return false;
    at += 2;
    if (!hex4(low) || low < 0xdc00 || low > 0xdfff) return false;
    code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
  }
  return true;
}

// What scan_number() found.
struct NumberScan {
  bool negative = false;
  bool integer = true;     // no fraction, no exponent
  bool overflow = false;   // integer digits past 64 bits
  uint64_t magnitude = 0;  // the integer digits' value, when no overflow
};

// -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? from `at` (moved past it); false when
// the text there is not that.
inline bool scan_number(const uint8_t*& at, const uint8_t* end, NumberScan& out) {
  const auto is_digit = [](uint8_t c) { return c >= '0' && c <= '9'; };
  const auto digits = [&] {
    const uint8_t* start = at;
    while (at != end && is_digit(*at)) ++at;
    return at != start;
  };
  out = NumberScan{};
  out.negative = at != end && *at == '-';
  if (out.negative) ++at;
  if (at == end || !is_digit(*at)) return false;
  if (*at == '0') {
    ++at;
  } else {
    for (; at != end && is_digit(*at); ++at) {
      const uint64_t digit = *at - '0';
      if (out.magnitude > (UINT64_MAX - digit) / 10) out.overflow = true;
      out.magnitude = out.magnitude * 10 + digit;
    }
  }
  if (at != end && *at == '.') {
    out.integer = false;
    ++at;
    if (!digits()) return false;
  }
  if (at != end && (*at == 'e' || *at == 'E')) {
    out.integer = false;
    ++at;
    if (at != end && (*at == '+' || *at == '-')) ++at;
    if (!digits()) return false;
  }
  return true;
}

}  // namespace benchgate::serialization
