// A JSON writer for WAMP's JSON serialization, shared by the router and the worker.
// nlohmann::json's dump() writes binary values as objects; WAMP wants "\u0000" + base64, so
// this writer walks the value itself and writes binary values straight into the output (no
// intermediate string per payload, base64 in one pass), and copies the plain runs of strings
// in blocks (dump() escapes character by character).
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

namespace benchgate::serialization {

// Appends `value` as compact JSON to `out`. Strings are written as UTF-8 with the escapes
// JSON requires, and always as valid UTF-8: each byte of a malformed sequence (possible in a
// string from a MessagePack or CBOR peer) is written as U+FFFD; non-finite numbers as null. Nesting
// is bounded by the decoder that built the value (router/wamp/serializer.h) or by the code that
// did.
void write_wamp_json(const nlohmann::json& value, std::vector<uint8_t>& out);

}  // namespace benchgate::serialization
