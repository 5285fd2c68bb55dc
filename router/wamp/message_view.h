// The messages a router routes per operation (CALL, YIELD, PUBLISH), read in place: no
// nlohmann::json document, nothing allocated. A view holds, for each element of the message,
// its kind, its serialized bytes (a span into the message), and the number (an id) or the
// text (a URI) it carries; Options|dict is read key by key (find_option), Arguments|list and
// ArgumentsKw|dict stay the bytes they came in, to be passed on as they are to a peer using
// the same serializer (router/wamp/routing_frames.h).
//
// read_view() is true only for a message that the document path (decode() and
// check_client_message()) would accept with the same type and elements: every element is
// checked as the decoders check it (common/serialization: nesting depth, announced lengths,
// JSON's UTF-8, escapes, numbers and NUL-prefixed base64), the element count and types as
// message_check.cc's shapes say. It is stricter where that is simpler, and then false: what
// it does not read (a CBOR indefinite length, a JSON byte order mark, a JSON number that only
// strtod can round, a binary JSON string with an escape, an id written as a signed integer,
// more elements than any of the three types has) goes to the document path, which gives the
// same answer it always gave. fuzz/wamp_message_fuzz.cc checks both agree.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "router/wamp/message_type.h"
#include "router/wamp/serializer.h"

namespace benchgate::router::wamp {

struct ViewElement {
  enum class Kind : uint8_t {
    unsigned_int,  // number: the value (nlohmann's number_unsigned)
    boolean,       // number: 1 for true, 0 for false
    string,        // text: the string, unless `escaped`
    dict,
    list,
    other,  // a signed integer, float, null, binary value (JSON: a NUL-prefixed string)
  };
  Kind kind = Kind::other;
  // JSON: a string written with an escape; `text` is then its raw form, not its value.
  bool escaped = false;
  uint64_t number = 0;
  std::string_view text;
  std::span<const uint8_t> bytes;  // the serialized value
};

inline constexpr size_t kMaxViewElements = 6;

struct MessageView {
  Serializer serializer = Serializer::kJson;
  MessageType type = MessageType::kHello;
  size_t size = 0;  // elements, the type code included
  std::array<ViewElement, kMaxViewElements> elements{};
  const ViewElement& operator[](size_t i) const { return elements[i]; }
};

// Reads a CALL, YIELD or PUBLISH; false for anything else, and for whatever the document path
// has to read (see above).
bool read_view(Serializer serializer, std::span<const uint8_t> bytes, MessageView& out);

// An Options|dict entry: the value of the last `key` in `dict` (a repeated key keeps the last
// value, as the decoders do). `unknown` where the view cannot tell (a JSON key written with an
// escape): the document path must decide.
struct Option {
  enum class Kind : uint8_t { absent, unsigned_int, boolean, other, unknown };
  Kind kind = Kind::absent;
  uint64_t number = 0;  // as ViewElement::number
  bool is_true() const { return kind == Kind::boolean && number == 1; }
};
Option find_option(Serializer serializer, std::span<const uint8_t> dict, std::string_view key);

}  // namespace benchgate::router::wamp
