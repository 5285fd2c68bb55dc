#include "worker/wamp/codec.h"

#include <cstring>
#include <string>

#include "common/serialization/base64.h"
#include "common/serialization/binary_decoder.h"
#include "common/serialization/json_decoder.h"
#include "common/serialization/json_writer.h"

namespace benchgate::worker::wamp {

bool decode(Serializer serializer, std::span<const uint8_t> bytes, Json& out) {
  switch (serializer) {
    case Serializer::kJson:
      // Binary payloads stay in their JSON form (a string of NUL and base64), which the
      // client compares without decoding it.
      return serialization::decode_json(bytes, out, serialization::NulStrings::kKeep);
    case Serializer::kMsgpack:
      return serialization::decode_msgpack(bytes, out);
    case Serializer::kCbor:
      return serialization::decode_cbor(bytes, out);
  }
  out = nullptr;
  return false;
}

void encode(Serializer serializer, const Json& value, std::vector<uint8_t>& out) {
  out.clear();
  switch (serializer) {
    case Serializer::kJson:
      // The router's writer: plain runs of strings (a payload's NUL and base64) copied in
      // blocks; invalid UTF-8 replaced rather than thrown about (the worker only echoes what
      // the router sent, and a changed string then shows up as a mismatch, not a crash).
      serialization::write_wamp_json(value, out);
      break;
    case Serializer::kMsgpack:
      Json::to_msgpack(value, out);
      break;
    case Serializer::kCbor:
      Json::to_cbor(value, out);
      break;
  }
}

std::string expected_json_binary(std::span<const uint8_t> bytes) {
  std::string out(1, '\0');
  serialization::append_base64(bytes, out);
  return out;
}

bool binary_equals(const Json& value, std::span<const uint8_t> bytes, std::string_view json_form) {
  if (value.is_binary()) {
    const auto& b = value.get_binary();
    return b.size() == bytes.size() &&
           (bytes.empty() || std::memcmp(b.data(), bytes.data(), bytes.size()) == 0);
  }
  if (value.is_string()) return value.get_ref<const std::string&>() == json_form;
  return false;
}

}  // namespace benchgate::worker::wamp
