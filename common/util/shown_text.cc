// See shown_text.h.
#include "common/util/shown_text.h"

#include <cstdint>

#include "common/util/text_lines.h"

namespace benchgate {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void append_hex(std::string& out, uint32_t value, int digits) {
  for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) out += kHex[(value >> shift) & 0xf];
}

// The length of the well-formed UTF-8 sequence at `at` (RFC 3629: no overlong form, no
// surrogate, nothing past U+10FFFF) and its code point, or 0 when the bytes there are not one.
size_t utf8_sequence(std::string_view text, size_t at, uint32_t& code) {
  const auto lead = static_cast<unsigned char>(text[at]);
  size_t length = 0;
  uint32_t min = 0;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2, min = 0x80, code = lead & 0x1f;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3, min = 0x800, code = lead & 0x0f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4, min = 0x10000, code = lead & 0x07;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  for (size_t i = 1; i < length; ++i) {
    const auto next = static_cast<unsigned char>(text[at + i]);
    if ((next & 0xc0) != 0x80) return 0;
    code = (code << 6) | (next & 0x3f);
  }
  if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return length;
}

// Code points that change how a terminal shows the line rather than print: C1 controls (0x9b
// starts an escape sequence on some terminals), line and paragraph separators, and the bidi
// marks, embeddings, overrides and isolates that can make a message read differently than
// it is.
bool acts_rather_than_prints(uint32_t code) {
  return (code >= 0x80 && code <= 0x9f) || code == 0x61c || code == 0x200e || code == 0x200f ||
         code == 0x2028 || code == 0x2029 || (code >= 0x202a && code <= 0x202e) ||
         (code >= 0x2066 && code <= 0x2069);
}

}  // namespace

std::string shown_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
      ++i;
      continue;
    }
    if (c == '\n' || c == '\r' || c == '\t') {
      out += c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t";
      ++i;
      continue;
    }
    uint32_t code = 0;
    const size_t length = byte >= 0x80 ? utf8_sequence(text, i, code) : 0;
    if (length == 0) {  // an ASCII control character or a byte of invalid UTF-8
      out += "\\x";
      append_hex(out, byte, 2);
      ++i;
    } else if (acts_rather_than_prints(code)) {
      out += "\\u";
      append_hex(out, code, 4);
      i += length;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

std::string shown_lines(std::string_view text, const std::string& indent, bool keep_last_break) {
  std::string out;
  bool first = true;
  for (const std::string_view line : text_lines(text)) {
    const std::string shown = shown_text(line);
    if (!first) out += "\n" + (shown.empty() ? "" : indent);
    first = false;
    out += shown;
  }
  if (keep_last_break && !text.empty() && (text.back() == '\n' || text.back() == '\r')) {
    out += '\n';
  }
  return out;
}

}  // namespace benchgate
