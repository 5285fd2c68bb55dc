// Decoding of JSON text (RFC 8259) into nlohmann::json, for WAMP messages from the network,
// with WAMP's JSON form of binary values: a string whose first character is NUL, written
// "\u0000", followed by the base64 of the bytes.
//
// Same results as nlohmann's parser (strict: one value, optional whitespace around it, an
// optional UTF-8 byte order mark first; strings checked as UTF-8; surrogate pairs joined, a
// lone surrogate refused; integers that fit int64 / uint64 as number_integer / number_unsigned,
// other numbers as number_float, a float that overflows refused; a repeated key keeps the last
// value), with one exception: nlohmann's lexer takes a NUL byte for the end of the input and
// ignores whatever follows it, where this decoder refuses anything after the value but
// whitespace (a WAMP message is the whole frame). What differs otherwise is the cost: a string is
// found with a 16-byte-wide scan and copied in one block, and a binary string ("\u0000" + base64
// without escapes) is decoded in one pass straight into its binary value
// (common/serialization/base64.h), where nlohmann's lexer handled every character with a get() and
// a push_back (about 90 instructions per payload byte). Containers nest at most `max_depth` deep
// (the decoder recurses). Failure returns false and leaves `out` null; nothing throws.
#pragma once

#include <cstdint>
#include <span>

#include <nlohmann/json.hpp>

#include "common/serialization/binary_decoder.h"

namespace benchgate::serialization {

// What becomes of a string whose first character is NUL.
enum class NulStrings {
  kBinary,  // a binary value holding the decoded base64 (decoding fails when it is not base64)
  kKeep,    // a string like any other, NUL included
};

bool decode_json(std::span<const uint8_t> bytes, nlohmann::json& out, NulStrings nul_strings,
                 int max_depth = kMaxNestingDepth);

}  // namespace benchgate::serialization
