// Validation of client messages (see message_check.h).
#include "router/wamp/message_check.h"

namespace benchgate::router::wamp {
namespace {

enum class Field : uint8_t { id, dict, string, list, integer, text_or_binary };

struct Shape {
  MessageType type;
  uint8_t min_size;  // elements including the type code
  uint8_t max_size;
  Field fields[6];  // elements after the type code, in order
};

// Messages a client may send to a router in the Basic Profile (plus CANCEL, accepted and
// ignored: the router announces no call canceling). Trailing Arguments|list and
// ArgumentsKw|dict are optional.
constexpr Shape kShapes[] = {
    {MessageType::kHello, 3, 3, {Field::string, Field::dict}},
    // Signature|string (Autobahn sends its WAMP-SCRAM proof as binary), Extra|dict.
    {MessageType::kAuthenticate, 3, 3, {Field::text_or_binary, Field::dict}},
    {MessageType::kAbort, 3, 3, {Field::dict, Field::string}},
    {MessageType::kGoodbye, 3, 3, {Field::dict, Field::string}},
    {MessageType::kError,
     5,
     7,
     {Field::integer, Field::id, Field::dict, Field::string, Field::list, Field::dict}},
    {MessageType::kPublish,
     4,
     6,
     {Field::id, Field::dict, Field::string, Field::list, Field::dict}},
    {MessageType::kSubscribe, 4, 4, {Field::id, Field::dict, Field::string}},
    {MessageType::kUnsubscribe, 3, 3, {Field::id, Field::id}},
    {MessageType::kCall, 4, 6, {Field::id, Field::dict, Field::string, Field::list, Field::dict}},
    {MessageType::kCancel, 3, 3, {Field::id, Field::dict}},
    {MessageType::kRegister, 4, 4, {Field::id, Field::dict, Field::string}},
    {MessageType::kUnregister, 3, 3, {Field::id, Field::id}},
    {MessageType::kYield, 3, 5, {Field::id, Field::dict, Field::list, Field::dict}},
};

bool has_type(const Json& value, Field field) {
  switch (field) {
    case Field::id:
      return is_id(value);
    case Field::dict:
      return value.is_object();
    case Field::string:
      return value.is_string();
    case Field::list:
      return value.is_array();
    case Field::integer:
      return value.is_number_integer();
    case Field::text_or_binary:
      return value.is_string() || value.is_binary();
  }
  return false;
}

}  // namespace

bool is_id(const Json& value) {
  if (value.is_number_unsigned()) return value.get<uint64_t>() <= kMaxId;
  if (value.is_number_integer())
    return value.get<int64_t>() >= 0 && value.get<int64_t>() <= int64_t(kMaxId);
  return false;
}

CheckResult check_client_message(const Json& message) {
  if (!message.is_array() || message.empty())
    return {MessageType::kHello, "a message must be a non-empty list"};
  const Json& code = message[0];
  if (!code.is_number_unsigned() && !(code.is_number_integer() && code.get<int64_t>() >= 0)) {
    return {MessageType::kHello, "the first element must be a message type code"};
  }
  const uint64_t type_code = code.get<uint64_t>();
  for (const Shape& shape : kShapes) {
    if (static_cast<uint64_t>(shape.type) != type_code) continue;
    if (message.size() < shape.min_size || message.size() > shape.max_size) {
      return {shape.type, "wrong number of elements for this message type"};
    }
    for (size_t i = 1; i < message.size(); ++i) {
      if (!has_type(message[i], shape.fields[i - 1])) {
        return {shape.type, "an element has the wrong type for this message type"};
      }
    }
    return {shape.type, nullptr};
  }
  if (message_slot(type_code) != kInvalidSlot || type_code == 4 || type_code == 69) {
    return {static_cast<MessageType>(type_code), "a client may not send this message type"};
  }
  return {MessageType::kHello, "unknown message type"};
}

}  // namespace benchgate::router::wamp
