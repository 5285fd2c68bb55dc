// Decoding and encoding of WAMP messages (see serializer.h).
#include "router/wamp/serializer.h"

#include <string>

#include "common/serialization/base64.h"
#include "common/serialization/binary_decoder.h"
#include "router/wamp/json_writer.h"

namespace benchgate::router::wamp {
namespace {

// JSON: nlohmann's own DOM builder behind a depth limit, turning WAMP's JSON binary strings
// into binary values as they are read (so no second pass over the tree is needed).
class WampSax {
 public:
  using Dom = nlohmann::detail::json_sax_dom_parser<Json>;

  explicit WampSax(Json& root) : dom_(root, /*allow_exceptions=*/false) {}

  bool null() { return dom_.null(); }
  bool boolean(bool value) { return dom_.boolean(value); }
  bool number_integer(Json::number_integer_t value) { return dom_.number_integer(value); }
  bool number_unsigned(Json::number_unsigned_t value) { return dom_.number_unsigned(value); }
  bool number_float(Json::number_float_t value, const std::string& text) {
    return dom_.number_float(value, text);
  }
  bool string(std::string& value) {
    if (!value.empty() && value.front() == '\0') {
      Json::binary_t bytes;
      if (!serialization::base64_decode(std::string_view(value).substr(1), bytes)) return false;
      return dom_.binary(bytes);
    }
    return dom_.string(value);
  }
  bool binary(Json::binary_t& value) { return dom_.binary(value); }
  bool start_object(std::size_t size) {
    if (++depth_ > kMaxNestingDepth) return false;
    return dom_.start_object(size);
  }
  bool key(std::string& value) { return dom_.key(value); }
  bool end_object() {
    --depth_;
    return dom_.end_object();
  }
  bool start_array(std::size_t size) {
    if (++depth_ > kMaxNestingDepth) return false;
    return dom_.start_array(size);
  }
  bool end_array() {
    --depth_;
    return dom_.end_array();
  }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& error) {
    return dom_.parse_error(position, token, error);
  }

 private:
  Dom dom_;
  int depth_ = 0;
};

}  // namespace

bool decode(Serializer serializer, std::span<const uint8_t> bytes, Json& out) {
  // MessagePack and CBOR: our own decoders, which copy a binary or string value in one block
  // (nlohmann's read it byte by byte, about 20 instructions per byte of a large payload).
  switch (serializer) {
    case Serializer::kMsgpack:
      return serialization::decode_msgpack(bytes, out, kMaxNestingDepth);
    case Serializer::kCbor:
      return serialization::decode_cbor(bytes, out, kMaxNestingDepth);
    case Serializer::kJson:
      break;
  }
  WampSax sax(out);
  // strict: the whole input must be one value, nothing after it.
  const bool ok = Json::sax_parse(bytes.data(), bytes.data() + bytes.size(), &sax,
                                  nlohmann::detail::input_format_t::json, /*strict=*/true);
  if (!ok) out = nullptr;
  return ok;
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
      write_wamp_json(value, out);
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
