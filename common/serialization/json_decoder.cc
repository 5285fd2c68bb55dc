// JSON into nlohmann::json (see json_decoder.h): a recursive-descent parser over the bytes,
// no token buffer.
#include "common/serialization/json_decoder.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/serialization/base64.h"
#include "common/serialization/json_scan.h"
#include "common/serialization/utf8.h"

namespace benchgate::serialization {
namespace {

using Json = nlohmann::json;

bool is_space(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

void append_utf8(std::string& out, uint32_t code) {
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  } else if (code < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | (code >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  }
}

class JsonDecoder {
 public:
  JsonDecoder(std::span<const uint8_t> bytes, NulStrings nul_strings, int max_depth)
      : at_(bytes.data()),
        end_(bytes.data() + bytes.size()),
        nul_strings_(nul_strings),
        max_depth_(max_depth) {}

  bool whole(Json& out) {
    // A byte order mark is skipped, as nlohmann's lexer does.
    if (end_ - at_ >= 3 && at_[0] == 0xef && at_[1] == 0xbb && at_[2] == 0xbf) at_ += 3;
    skip_space();
    if (!value(out, 0)) return false;
    skip_space();
    return at_ == end_;
  }

 private:
  void skip_space() {
    while (at_ != end_ && is_space(*at_)) ++at_;
  }

  bool value(Json& out, int depth) {
    if (at_ == end_) return false;
    switch (*at_) {
      case '[':
        return array(out, depth);
      case '{':
        return object(out, depth);
      case '"':
        return string_value(out);
      case 't':
        out = true;
        return literal("true");
      case 'f':
        out = false;
        return literal("false");
      case 'n':
        out = nullptr;
        return literal("null");
      default:
        return number(out);
    }
  }

  bool literal(std::string_view text) {
    if (static_cast<size_t>(end_ - at_) < text.size() ||
        std::memcmp(at_, text.data(), text.size()) != 0) {
      return false;
    }
    at_ += text.size();
    return true;
  }

  bool array(Json& out, int depth) {
    if (depth >= max_depth_) return false;
    ++at_;  // '['
    out = Json::array();
    auto& elements = out.get_ref<Json::array_t&>();
    skip_space();
    if (at_ != end_ && *at_ == ']') {
      ++at_;
      return true;
    }
    for (;;) {
      skip_space();
      elements.emplace_back();
      if (!value(elements.back(), depth + 1)) return false;
      skip_space();
      if (at_ == end_) return false;
      const uint8_t c = *at_++;
      if (c == ']') return true;
      if (c != ',') return false;
    }
  }

  bool object(Json& out, int depth) {
    if (depth >= max_depth_) return false;
    ++at_;  // '{'
    out = Json::object();
    auto& members = out.get_ref<Json::object_t&>();
    skip_space();
    if (at_ != end_ && *at_ == '}') {
      ++at_;
      return true;
    }
    std::string key;
    for (;;) {
      skip_space();
      if (at_ == end_ || *at_ != '"' || !string_text(key)) return false;
      skip_space();
      if (at_ == end_ || *at_ != ':') return false;
      ++at_;
      skip_space();
      if (!value(members[std::move(key)], depth + 1)) return false;
      key.clear();
      skip_space();
      if (at_ == end_) return false;
      const uint8_t c = *at_++;
      if (c == '}') return true;
      if (c != ',') return false;
    }
  }

  bool string_value(Json& out) {
    static constexpr std::string_view kNul = "\\u0000";
    if (nul_strings_ == NulStrings::kBinary && static_cast<size_t>(end_ - at_) > kNul.size() &&
        std::memcmp(at_ + 1, kNul.data(), kNul.size()) == 0) {
      // The fast path for binary: base64 up to the next '"'. Any escape in it (a JSON writer
      // may write '/' as "\/") makes the base64 invalid here, and the general path below
      // unescapes the string first.
      const uint8_t* text = at_ + 1 + kNul.size();
      if (const auto* quote = static_cast<const uint8_t*>(
              std::memchr(text, '"', static_cast<size_t>(end_ - text)))) {
        out = Json::binary(std::vector<uint8_t>{});
        const std::string_view base64(reinterpret_cast<const char*>(text),
                                      static_cast<size_t>(quote - text));
        if (base64_decode(base64, out.get_binary())) {
          at_ = quote + 1;
          return true;
        }
      }
    }
    std::string text;
    if (!string_text(text)) return false;
    if (nul_strings_ == NulStrings::kBinary && !text.empty() && text.front() == '\0') {
      out = Json::binary(std::vector<uint8_t>{});
      return base64_decode(std::string_view(text).substr(1), out.get_binary());
    }
    out = std::move(text);
    return true;
  }

  // A string (at_ on its opening quote) into `text`, unescaped.
  bool string_text(std::string& text) {
    ++at_;
    const uint8_t* run = at_;
    for (;;) {
      at_ = plain_run_end(at_, end_);
      if (at_ == end_) return false;
      const uint8_t c = *at_;
      if (c == '"') {
        text.append(reinterpret_cast<const char*>(run), static_cast<size_t>(at_ - run));
        ++at_;
        return true;
      }
      if (c >= 0x80) {
        const size_t length = utf8_sequence(at_, end_);
        if (length == 0) return false;
        at_ += length;
        continue;
      }
      if (c != '\\') return false;  // a control character
      text.append(reinterpret_cast<const char*>(run), static_cast<size_t>(at_ - run));
      if (!escape(text)) return false;
      run = at_;
    }
  }

  // One escape (at_ on its backslash), appended to `text`.
  bool escape(std::string& text) {
    uint32_t code;
    if (!scan_escape(at_, end_, code)) return false;
    append_utf8(text, code);
    return true;
  }

  // A number (scan_number's grammar).
  bool number(Json& out) {
    const uint8_t* start = at_;
    NumberScan scanned;
    if (!scan_number(at_, end_, scanned)) return false;
    const bool negative = scanned.negative;
    const uint64_t magnitude = scanned.magnitude;
    if (scanned.integer && !scanned.overflow) {
      if (!negative) {
        out = static_cast<Json::number_unsigned_t>(magnitude);
        return true;
      }
      if (magnitude <= uint64_t{1} << 63) {
        out = static_cast<Json::number_integer_t>(0 - magnitude);
        return true;
      }
    }
    // A fraction, an exponent, or an integer past 64 bits: a double, as strtod rounds it.
    double parsed = 0;
    const auto* first = reinterpret_cast<const char*>(start);
    const auto* last = reinterpret_cast<const char*>(at_);
    const auto result = std::from_chars(first, last, parsed);
    if (result.ec == std::errc::result_out_of_range) {
      // Underflow is a zero or a subnormal for strtod (and nlohmann); overflow is refused.
      const std::string text(first, last);
      parsed = std::strtod(text.c_str(), nullptr);
    } else if (result.ec != std::errc() || result.ptr != last) {
      return false;
    }
    if (!std::isfinite(parsed)) return false;
    out = parsed;
    return true;
  }

  const uint8_t* at_;
  const uint8_t* end_;
  NulStrings nul_strings_;
  int max_depth_;
};

}  // namespace

bool decode_json(std::span<const uint8_t> bytes, Json& out, NulStrings nul_strings, int max_depth) {
  JsonDecoder decoder(bytes, nul_strings, max_depth);
  if (decoder.whole(out)) return true;
  out = nullptr;
  return false;
}

}  // namespace benchgate::serialization
