// The three WAMP serializations (JSON, MessagePack, CBOR) between bytes and nlohmann::json,
// with binary values as WAMP specifies: native binary in MessagePack and CBOR, and in JSON a
// string made of a NUL byte and the base64 of the bytes. Decoded messages hold binary values
// as json::binary_t whatever the serializer, so a message can be re-encoded for a peer that
// uses another one.
//
// No exceptions: decoding reports failure with false; nesting deeper than kMaxNestingDepth is
// a failure (the decoders recurse, so depth is bounded before it can exhaust the stack).
// All three are decoded by common/serialization (bulk copies of binary and string values, JSON's
// base64 decoded in one pass straight into the binary value).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/serialization/binary_decoder.h"
#include "common/wamp/serializers.h"

namespace benchgate::router::wamp {

using Json = nlohmann::json;

using ::benchgate::wamp::kSerializerCount;
using ::benchgate::wamp::rawsocket_serializer_id;
using ::benchgate::wamp::Serializer;
using ::benchgate::wamp::serializer_for_rawsocket_id;
using ::benchgate::wamp::serializer_for_subprotocol;
using ::benchgate::wamp::serializer_name;
using ::benchgate::wamp::subprotocol;
inline constexpr int kMaxNestingDepth = serialization::kMaxNestingDepth;

// Decodes one message into `out`. False when the bytes are not one well-formed value of the
// format, nest too deeply, or (JSON) hold a NUL-prefixed string that is not base64.
bool decode(Serializer serializer, std::span<const uint8_t> bytes, Json& out);
// About how many bytes encode() writes for `value`, so that the output buffer is reserved once
// (a large payload is then copied once, not again at every growth of the buffer).
size_t encoded_size_hint(Serializer serializer, const Json& value);
// Appends the encoding of `value` to `out`.
void encode(Serializer serializer, const Json& value, std::vector<uint8_t>& out);

}  // namespace benchgate::router::wamp
