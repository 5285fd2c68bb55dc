// Standard base64 (RFC 4648, with padding): WAMP's JSON form of binary values (a string holding
// a NUL byte followed by the base64 text, written by the router and the worker) and the
// histograms in the orchestrator's JSON report. One implementation for all of them; large
// inputs take a vector loop on CPUs with AVX2 (base64.cc).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace benchgate::serialization {

// Writes the encoding of `bytes` to out[0, base64_size(bytes.size())).
void base64_encode(std::span<const uint8_t> bytes, char* out);
// Number of characters base64_encode writes for `size` bytes.
constexpr size_t base64_size(size_t size) { return (size + 2) / 3 * 4; }
// Appends the encoding of `bytes` to `out`.
void append_base64(std::span<const uint8_t> bytes, std::string& out);
// The same for a byte buffer (a JSON message being written), without a zero-fill of the room
// first (large input goes through a small chunk on the stack).
void append_base64(std::span<const uint8_t> bytes, std::vector<uint8_t>& out);
// Decodes padded base64 into `out` (replacing its contents); false for text that is not
// base64 (wrong length, characters outside the alphabet, misplaced padding), and `out` empty.
bool base64_decode(std::string_view text, std::vector<uint8_t>& out);
// Whether base64_decode would accept `text`: the same check, the bytes decoded a chunk at a
// time into a buffer on the stack and dropped (nothing is allocated).
bool base64_valid(std::string_view text);
// The number of bytes padded base64 `text` holds, from its length and padding alone; SIZE_MAX
// when its length is not a multiple of 4.
size_t base64_decoded_size(std::string_view text);
// Decodes `text` into out[0, base64_decoded_size(text)); false as above (what was written to
// `out` before the bad character was found is then meaningless).
bool base64_decode(std::string_view text, uint8_t* out);

}  // namespace benchgate::serialization
