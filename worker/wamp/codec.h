// The three WAMP serializations between bytes and nlohmann::json, as the client needs them.
// Decoding: all three by common/serialization (one bulk copy per binary or string value,
// nesting bounded at 64, announced counts bounded); binary values arrive
// as json::binary_t from MessagePack and CBOR, and as a string of a NUL byte and base64 from JSON
// (WAMP's JSON form), which the client compares in that form without decoding it. Failures are
// reported with false, never thrown (the hot path).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "worker/engine/workload.h"

namespace benchgate::worker::wamp {

using Json = nlohmann::json;
using Serializer = WampRequestSpec::Serializer;
using ::benchgate::wamp::is_text;
using ::benchgate::wamp::rawsocket_serializer_id;
using ::benchgate::wamp::serializer_name;
using ::benchgate::wamp::subprotocol;

// One message into `out`; false when the bytes are not one well-formed value.
bool decode(Serializer serializer, std::span<const uint8_t> bytes, Json& out);
// Replaces `out` with the encoding of `value` (its capacity is kept for the next one).
void encode(Serializer serializer, const Json& value, std::vector<uint8_t>& out);

// How a binary payload of `bytes` looks after decode(): for JSON the string "\0" + base64,
// for the binary formats the bytes themselves.
std::string expected_json_binary(std::span<const uint8_t> bytes);
// Whether a decoded value is the binary payload `bytes`. `json_form` is
// expected_json_binary(bytes), computed once.
bool binary_equals(const Json& value, std::span<const uint8_t> bytes, std::string_view json_form);

}  // namespace benchgate::worker::wamp
