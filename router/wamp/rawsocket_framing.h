// WAMP RawSocket as plain functions: the 4-byte opening handshake (magic 0x7F, maximum
// receive length 2^(9+LLLL) and serializer SSSS, two reserved zero octets) and the 4-byte
// frame header (5 reserved bits, 3 bits of frame type, 24-bit big-endian payload length).
// The 24-bit length caps a RawSocket message at 16 MiB - 1 whatever both sides announce.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "router/wamp/serializer.h"

namespace benchgate::router::wamp {

inline constexpr uint8_t kRawSocketMagic = 0x7F;
inline constexpr uint32_t kRawSocketMaxLength = (uint32_t{1} << 24) - 1;

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
  Serializer serializer = Serializer::json;
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

enum class FrameType : uint8_t { message = 0, ping = 1, pong = 2 };
inline constexpr size_t kFrameHeaderSize = 4;

struct FrameHeader {
  // False for reserved bits set or a frame type other than message, ping and pong.
  bool valid = false;
  FrameType type = FrameType::message;
  uint32_t length = 0;
};

FrameHeader parse_frame_header(const uint8_t* bytes);
std::array<uint8_t, 4> frame_header(FrameType type, uint32_t length);

}  // namespace benchgate::router::wamp
