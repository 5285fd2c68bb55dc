// WAMP JSON writer (see json_writer.h).
#include "common/serialization/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <string_view>

#include "common/serialization/base64.h"
#include "common/serialization/json_scan.h"
#include "common/serialization/utf8.h"

namespace benchgate::serialization {
namespace {

void put(std::vector<uint8_t>& out, std::string_view text) {
  out.insert(out.end(), text.begin(), text.end());
}

void put_string(std::vector<uint8_t>& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  const auto* at = reinterpret_cast<const uint8_t*>(text.data());
  const auto* end = at + text.size();
  const auto* run = at;  // the plain characters not yet written
  const auto flush = [&](const uint8_t* to) { out.insert(out.end(), run, to); };
  for (;;) {
    at = plain_run_end(at, end);
    if (at == end) break;
    const uint8_t c = *at;
    if (c >= 0x80) {
      // MessagePack and CBOR peers can send strings that are not UTF-8; JSON text must be.
      // A well-formed sequence passes as is; each byte of a broken one becomes U+FFFD.
      if (const size_t length = utf8_sequence(at, end)) {
        at += length;
        continue;
      }
      flush(at);
      put(out, "\\ufffd");
      run = ++at;
      continue;
    }
    flush(at);
    run = ++at;
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
  flush(end);
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
  append_base64(bytes, out);
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

}  // namespace benchgate::serialization
