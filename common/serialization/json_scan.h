// The scan that JSON strings share between the decoder and the writer: where a run of plain
// characters ends (bytes that stand for themselves in a JSON string, written or read).
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

}  // namespace benchgate::serialization
