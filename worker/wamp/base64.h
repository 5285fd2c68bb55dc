// Standard base64 (RFC 4648, padded) for WAMP's JSON form of binary values: a string of a
// NUL byte followed by the base64 of the bytes. The worker only ever encodes (its payloads);
// answers are compared in their encoded form, so nothing is decoded on the hot path.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace benchgate::worker::wamp {

// Appends the base64 text of `bytes` to `out`.
void append_base64(std::span<const uint8_t> bytes, std::string& out);

}  // namespace benchgate::worker::wamp
