// WAMP JSON writer (see json_writer.h).
#include "router/wamp/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <string_view>

#include "common/serialization/base64.h"

namespace benchgate::router::wamp {
namespace {

void put(std::vector<uint8_t>& out, std::string_view text) {
  out.insert(out.end(), text.begin(), text.end());
}

// Length of the well-formed UTF-8 sequence starting at text[i] (a lead byte >= 0x80), or 0
// when it is not one: a stray continuation byte, a truncated sequence, an overlong form, a
// surrogate or a code point past U+10FFFF (RFC 3629).
size_t utf8_sequence(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char lead = byte(0);
  size_t length = 0;
  unsigned char low = 0x80, high = 0xbf;  // allowed range of the second byte
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
  if (text.size() - i < length || byte(1) < low || byte(1) > high) return 0;
  for (size_t k = 2; k < length; ++k) {
    if (byte(k) < 0x80 || byte(k) > 0xbf) return 0;
  }
  return length;
}

void put_string(std::vector<uint8_t>& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  size_t plain_from = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      // MessagePack and CBOR peers can send strings that are not UTF-8; JSON text must be.
      // A well-formed sequence passes as is; each byte of a broken one becomes U+FFFD.
      if (const size_t length = utf8_sequence(text, i)) {
        i += length - 1;
        continue;
      }
      put(out, text.substr(plain_from, i - plain_from));
      plain_from = i + 1;
      put(out, "\\ufffd");
      continue;
    }
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    put(out, text.substr(plain_from, i - plain_from));
    plain_from = i + 1;
    switch (c) {
      case '"':
        put(out, "\\\"");
        break;
      case '\\':
        put(out, "\\\\");
        break;
      case '\n':
        put(out, "\\n");
        break;
      case '\r':
        put(out, "\\r");
        break;
      case '\t':
        put(out, "\\t");
        break;
      case '\b':
        put(out, "\\b");
        break;
      case '\f':
        put(out, "\\f");
        break;
      default: {
        const char escape[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        put(out, std::string_view(escape, sizeof escape));
      }
    }
  }
  put(out, text.substr(plain_from));
  out.push_back('"');
}

template <class Number>
void put_number(std::vector<uint8_t>& out, Number value) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, value);
  put(out, std::string_view(text, static_cast<size_t>(result.ptr - text)));
}

void put_binary(std::vector<uint8_t>& out, const nlohmann::json::binary_t& bytes) {
  put(out, "\"\\u0000");
  const size_t start = out.size();
  out.resize(start + serialization::base64_size(bytes.size()));
  serialization::base64_encode(bytes, reinterpret_cast<char*>(out.data() + start));
  out.push_back('"');
}

}  // namespace

void write_wamp_json(const nlohmann::json& value, std::vector<uint8_t>& out) {
  using value_t = nlohmann::json::value_t;
  switch (value.type()) {
    case value_t::null:
    case value_t::discarded:
      put(out, "null");
      return;
    case value_t::boolean:
      put(out, value.get<bool>() ? "true" : "false");
      return;
    case value_t::number_integer:
      put_number(out, value.get<int64_t>());
      return;
    case value_t::number_unsigned:
      put_number(out, value.get<uint64_t>());
      return;
    case value_t::number_float: {
      const double number = value.get<double>();
      if (!std::isfinite(number)) return put(out, "null");
      put_number(out, number);
      return;
    }
    case value_t::string:
      put_string(out, value.get_ref<const std::string&>());
      return;
    case value_t::binary:
      put_binary(out, value.get_binary());
      return;
    case value_t::array: {
      out.push_back('[');
      bool first = true;
      for (const auto& element : value) {
        if (!first) out.push_back(',');
        first = false;
        write_wamp_json(element, out);
      }
      out.push_back(']');
      return;
    }
    case value_t::object: {
      out.push_back('{');
      bool first = true;
      for (const auto& [key, element] : value.items()) {
        if (!first) out.push_back(',');
        first = false;
        put_string(out, key);
        out.push_back(':');
        write_wamp_json(element, out);
      }
      out.push_back('}');
      return;
    }
  }
}

}  // namespace benchgate::router::wamp
