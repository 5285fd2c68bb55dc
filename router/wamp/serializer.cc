// Decoding and encoding of WAMP messages (see serializer.h).
#include "router/wamp/serializer.h"

#include <string>

#include "common/serialization/base64.h"
#include "common/serialization/binary_decoder.h"
#include "common/serialization/json_decoder.h"
#include "common/serialization/json_writer.h"

namespace benchgate::router::wamp {

bool decode(Serializer serializer, std::span<const uint8_t> bytes, Json& out) {
  // Our own decoders, which copy a binary or string value in one block and decode JSON's
  // base64 in one pass (nlohmann's read them byte by byte: about 20 instructions per byte of
  // a large MessagePack payload, 90 for JSON).
  switch (serializer) {
    case Serializer::kMsgpack:
      return serialization::decode_msgpack(bytes, out, kMaxNestingDepth);
    case Serializer::kCbor:
      return serialization::decode_cbor(bytes, out, kMaxNestingDepth);
    case Serializer::kJson:
      return serialization::decode_json(bytes, out, serialization::NulStrings::kBinary,
                                        kMaxNestingDepth);
  }
  out = nullptr;
  return false;
}

size_t encoded_size_hint(Serializer serializer, const Json& value) {
  switch (value.type()) {
    case Json::value_t::binary: {
      const size_t size = value.get_binary().size();
      return (serializer == Serializer::kJson ? serialization::base64_size(size) + 8 : size) + 9;
    }
    case Json::value_t::string:
      return value.get_ref<const std::string&>().size() + 9;
    case Json::value_t::array: {
      size_t total = 9;
      for (const auto& element : value) total += encoded_size_hint(serializer, element) + 1;
      return total;
    }
    case Json::value_t::object: {
      size_t total = 9;
      for (const auto& [key, element] : value.items()) {
        total += key.size() + 12 + encoded_size_hint(serializer, element);
      }
      return total;
    }
    default:
      return 24;
  }
}

void encode(Serializer serializer, const Json& value, std::vector<uint8_t>& out) {
  switch (serializer) {
    case Serializer::kJson:
      serialization::write_wamp_json(value, out);
      return;
    case Serializer::kMsgpack:
      Json::to_msgpack(value, out);
      return;
    case Serializer::kCbor:
      Json::to_cbor(value, out);
      return;
  }
}

}  // namespace benchgate::router::wamp
