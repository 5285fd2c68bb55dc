// Decoding of MessagePack and CBOR into nlohmann::json, for WAMP messages from the network.
//
// Same results as nlohmann's from_msgpack / from_cbor (strict, tags rejected): MessagePack
// positive integers of the uint family and positive fixints become number_unsigned, the int
// family and negative fixints number_integer; CBOR major type 0 number_unsigned, 1
// number_integer; bin (and MessagePack ext, with its type as subtype) and CBOR byte strings
// become binary values; map keys must be strings; a repeated key keeps the last value.
//
// What differs is the cost: a string or binary value is copied with one bulk copy, not read
// byte by byte, and containers reserve their announced size. The input is untrusted, so:
//   - the whole input must be exactly one value (nothing after it);
//   - containers nest at most `max_depth` deep (the decoder recurses);
//   - an announced count or length larger than the bytes left is malformed before anything
//     is reserved (each element takes at least one byte, each map entry two), so a crafted
//     header cannot make the decoder reserve more than the input's size;
//   - a CBOR negative integer below INT64_MIN, a tag, an undefined or simple value, a
//     reserved additional-information value and a MessagePack 0xc1 are malformed.
// Failure returns false and leaves `out` null; nothing throws.
#pragma once

#include <cstdint>
#include <span>

#include <nlohmann/json.hpp>

namespace benchgate::serialization {

inline constexpr int kMaxNestingDepth = 64;

bool decode_msgpack(std::span<const uint8_t> bytes, nlohmann::json& out,
                    int max_depth = kMaxNestingDepth);
bool decode_cbor(std::span<const uint8_t> bytes, nlohmann::json& out,
                 int max_depth = kMaxNestingDepth);

}  // namespace benchgate::serialization
