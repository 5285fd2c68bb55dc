// A serialized array read in place: no nlohmann::json document, nothing allocated. For each
// element it keeps its kind, its serialized bytes (a span into the input), and the number (an
// id) or the text (a URI) it carries; a dict is read key by key (find_option), a list stays the
// bytes it came in (read_elements() again reads its elements). The router reads the messages
// it routes with it (router/wamp/message_view.h), the worker those it gets per operation
// (worker/wamp/session.h).
//
// read_elements() is true only for an array that the decoders (decode_json with NUL strings
// kept, decode_msgpack, decode_cbor) accept, with the same elements: every element is checked
// as the decoders check it (nesting depth, announced lengths, JSON's UTF-8, escapes, numbers
// and NUL-prefixed base64). It is stricter where that is simpler, and then false: what it does
// not read (a CBOR indefinite length, a JSON byte order mark, a JSON number that only strtod
// can round, a binary JSON string with an escape, more elements than `out` holds) is left to
// the document path, which gives the same answer it always gave. tests/unit/router's view test
// and fuzz/wamp_message_fuzz.cc check both agree.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "common/wamp/serializers.h"

namespace benchgate::serialization {

using Serializer = ::benchgate::wamp::Serializer;

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

// The elements of the array `bytes` (the whole input) into out[0, size); false where the
// document path has to read it (see above). A JSON empty list is false too.
bool read_elements(Serializer serializer, std::span<const uint8_t> bytes,
                   std::span<ViewElement> out, size_t& size);

// A dict entry: the value of the last `key` in `dict` (a repeated key keeps the last value, as
// the decoders do). `unknown` where the view cannot tell (a JSON key written with an escape):
// the document path must decide.
struct Option {
  enum class Kind : uint8_t { absent, unsigned_int, boolean, other, unknown };
  Kind kind = Kind::absent;
  uint64_t number = 0;  // as ViewElement::number
  bool is_true() const { return kind == Kind::boolean && number == 1; }
};
Option find_option(Serializer serializer, std::span<const uint8_t> dict, std::string_view key);

}  // namespace benchgate::serialization
