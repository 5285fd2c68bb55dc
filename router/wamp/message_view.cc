// CALL, YIELD and PUBLISH read in place (see message_view.h): the elements by
// common/serialization/value_view.h, then their count and types as message_check.cc's shapes.
#include "router/wamp/message_view.h"

#include "router/wamp/message_check.h"

namespace benchgate::router::wamp {
namespace {

using Kind = ViewElement::Kind;

// Element types after the type code, as message_check.cc's shapes give them.
enum class Field : uint8_t { id, dict, string, list };
struct ViewShape {
  MessageType type;
  uint8_t min_size;
  uint8_t max_size;
  Field fields[5];
};
constexpr ViewShape kViewShapes[] = {
    {MessageType::kPublish,
     4,
     6,
     {Field::id, Field::dict, Field::string, Field::list, Field::dict}},
    {MessageType::kCall, 4, 6, {Field::id, Field::dict, Field::string, Field::list, Field::dict}},
    {MessageType::kYield, 3, 5, {Field::id, Field::dict, Field::list, Field::dict}},
};

bool has_type(const ViewElement& element, Field field) {
  switch (field) {
    case Field::id:
      // Ids written as signed integers go to the document path.
      return element.kind == Kind::unsigned_int && element.number <= kMaxId;
    case Field::dict:
      return element.kind == Kind::dict;
    case Field::string:
      return element.kind == Kind::string;
    case Field::list:
      return element.kind == Kind::list;
  }
  return false;
}

// The elements are read: is the message one of the view's shapes?
bool check_shape(MessageView& out) {
  if (out.size == 0 || out.elements[0].kind != Kind::unsigned_int) return false;
  for (const ViewShape& shape : kViewShapes) {
    if (static_cast<uint64_t>(shape.type) != out.elements[0].number) continue;
    if (out.size < shape.min_size || out.size > shape.max_size) return false;
    for (size_t i = 1; i < out.size; ++i) {
      if (!has_type(out.elements[i], shape.fields[i - 1])) return false;
    }
    out.type = shape.type;
    return true;
  }
  return false;
}
}  // namespace

bool read_view(Serializer serializer, std::span<const uint8_t> bytes, MessageView& out) {
  out.serializer = serializer;
  return serialization::read_elements(serializer, bytes, out.elements, out.size) &&
         check_shape(out);
}

}  // namespace benchgate::router::wamp
