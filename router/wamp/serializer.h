// The three WAMP serializations (JSON, MessagePack, CBOR) between bytes and nlohmann::json,
// with binary values as WAMP specifies: native binary in MessagePack and CBOR, and in JSON a
// string made of a NUL byte and the base64 of the bytes. Decoded messages hold binary values
// as json::binary_t whatever the serializer, so a message can be re-encoded for a peer that
// uses another one.
//
// No exceptions: decoding reports failure with false; nesting deeper than kMaxNestingDepth is
// a failure (the decoders recurse, so depth is bounded before it can exhaust the stack).
// MessagePack and CBOR are decoded by common/serialization (bulk copies of binary and string
// values), JSON by nlohmann's parser.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/serialization/binary_decoder.h"

namespace benchgate::router::wamp {

using Json = nlohmann::json;

enum class Serializer : uint8_t { json = 0, msgpack = 1, cbor = 2 };
inline constexpr int kSerializerCount = 3;
inline constexpr int kMaxNestingDepth = serialization::kMaxNestingDepth;

// "json", "msgpack", "cbor".
std::string_view serializer_name(Serializer serializer);
// WebSocket subprotocols: "wamp.2.json", "wamp.2.msgpack", "wamp.2.cbor".
std::string_view subprotocol(Serializer serializer);
std::optional<Serializer> serializer_for_subprotocol(std::string_view name);
// RawSocket serializer ids: 1 JSON, 2 MessagePack, 3 CBOR.
uint8_t rawsocket_serializer_id(Serializer serializer);
std::optional<Serializer> serializer_for_rawsocket_id(uint8_t id);

// Decodes one message into `out`. False when the bytes are not one well-formed value of the
// format, nest too deeply, or (JSON) hold a NUL-prefixed string that is not base64.
bool decode(Serializer serializer, std::span<const uint8_t> bytes, Json& out);
// About how many bytes encode() writes for `value`, so that the output buffer is reserved once
// (a large payload is then copied once, not again at every growth of the buffer).
size_t encoded_size_hint(Serializer serializer, const Json& value);
// Appends the encoding of `value` to `out`.
void encode(Serializer serializer, const Json& value, std::vector<uint8_t>& out);

}  // namespace benchgate::router::wamp
