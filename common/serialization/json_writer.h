// A JSON writer for WAMP's JSON serialization. nlohmann::json's dump() writes binary values as
// objects; WAMP wants "\u0000" + base64, so this writer walks the value itself and writes
// binary values straight into the output (no intermediate string per payload).
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

namespace benchgate::router::wamp {

// Appends `value` as compact JSON to `out`. Strings are written as UTF-8 with the escapes
// JSON requires, and always as valid UTF-8: each byte of a malformed sequence (possible in a
// string from a MessagePack or CBOR peer) is written as U+FFFD; non-finite numbers as null. Nesting
// is bounded by the decoder that built the value (serializer.h) or by the router code that did.
void write_wamp_json(const nlohmann::json& value, std::vector<uint8_t>& out);

}  // namespace benchgate::router::wamp
