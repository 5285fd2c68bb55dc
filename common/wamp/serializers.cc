// Names and ids of the WAMP serializations (see serializers.h).
#include "common/wamp/serializers.h"

namespace benchgate::wamp {

std::string_view serializer_name(Serializer serializer) {
  switch (serializer) {
    case Serializer::kJson:
      return "json";
    case Serializer::kMsgpack:
      return "msgpack";
    case Serializer::kCbor:
      return "cbor";
  }
  return "json";
}

std::string_view subprotocol(Serializer serializer) {
  switch (serializer) {
    case Serializer::kJson:
      return "wamp.2.json";
    case Serializer::kMsgpack:
      return "wamp.2.msgpack";
    case Serializer::kCbor:
      return "wamp.2.cbor";
  }
  return "wamp.2.json";
}

std::optional<Serializer> serializer_for_subprotocol(std::string_view name) {
  for (auto serializer : {Serializer::kJson, Serializer::kMsgpack, Serializer::kCbor}) {
    if (subprotocol(serializer) == name) return serializer;
  }
  return std::nullopt;
}

uint8_t rawsocket_serializer_id(Serializer serializer) {
  return static_cast<uint8_t>(static_cast<uint8_t>(serializer) + 1);
}

std::optional<Serializer> serializer_for_rawsocket_id(uint8_t id) {
  if (id < 1 || id > kSerializerCount) return std::nullopt;
  return static_cast<Serializer>(id - 1);
}

}  // namespace benchgate::wamp
