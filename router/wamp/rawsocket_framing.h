// WAMP RawSocket, the router's side, as plain functions: the 4-byte opening handshake (magic
// 0x7F, maximum receive length 2^(9+LLLL) and serializer SSSS, two reserved zero octets). The
// frame header both sides share is common/wamp/rawsocket_frame.h.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "common/wamp/rawsocket_frame.h"
#include "router/wamp/serializer.h"

namespace benchgate::router::wamp {

using ::benchgate::wamp::frame_header;
using ::benchgate::wamp::FrameHeader;
using ::benchgate::wamp::FrameType;
using ::benchgate::wamp::kFrameHeaderSize;
using ::benchgate::wamp::kRawSocketMagic;
using ::benchgate::wamp::kRawSocketMaxLength;
using ::benchgate::wamp::parse_frame_header;

// Error codes of a handshake reply (upper nibble of the second octet, serializer nibble 0).
enum class HandshakeError : uint8_t {
  serializer_unsupported = 1,
  max_length_unacceptable = 2,
  reserved_bits = 3,
  max_connections = 4,
};

struct ClientHandshake {
  // The first octet was not 0x7F: not a RawSocket peer; the connection is closed unanswered.
  bool not_rawsocket = false;
  // Set when the handshake must be refused with this code.
  std::optional<HandshakeError> error;
  Serializer serializer = Serializer::kJson;
  // The largest message the client accepts, capped by the 24-bit frame length.
  uint32_t client_max_length = 0;
};

ClientHandshake parse_client_handshake(const std::array<uint8_t, 4>& bytes);
std::array<uint8_t, 4> handshake_reply(Serializer serializer, uint8_t length_exponent);
std::array<uint8_t, 4> handshake_error_reply(HandshakeError error);

// The largest exponent e in [0, 15] with 2^(9+e) <= max_bytes (0 below 512 bytes).
uint8_t length_exponent_for(uint64_t max_bytes);
// 2^(9+e), capped by what a frame header can carry.
uint32_t length_for_exponent(uint8_t exponent);

}  // namespace benchgate::router::wamp
