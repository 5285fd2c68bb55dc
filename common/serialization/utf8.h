// UTF-8 well-formedness (RFC 3629), as JSON text needs it: what the JSON decoder accepts in a
// string and what the router's JSON writer passes through unchanged.
#pragma once

#include <cstddef>
#include <cstdint>

namespace benchgate::serialization {

// Length of the well-formed UTF-8 sequence starting at `at` (a lead byte >= 0x80, before
// `end`), or 0 when it is not one: a stray continuation byte, a truncated sequence, an
// overlong form, a surrogate or a code point past U+10FFFF.
inline size_t utf8_sequence(const uint8_t* at, const uint8_t* end) {
  const uint8_t lead = at[0];
  size_t length = 0;
  uint8_t low = 0x80, high = 0xbf;  // allowed range of the second byte
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) low = 0xa0;   // overlong
    if (lead == 0xed) high = 0x9f;  // surrogates
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) low = 0x90;   // overlong
    if (lead == 0xf4) high = 0x8f;  // past U+10FFFF
  } else {
    return 0;
  }
  if (static_cast<size_t>(end - at) < length || at[1] < low || at[1] > high) return 0;
  for (size_t k = 2; k < length; ++k) {
    if (at[k] < 0x80 || at[k] > 0xbf) return 0;
  }
  return length;
}

}  // namespace benchgate::serialization
