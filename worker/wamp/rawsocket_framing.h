// WAMP RawSocket framing, client side, as plain functions: the 4-byte opening handshake
// (0x7F, maximum receive length exponent and serializer id, two zero octets), the router's
// reply, and the 4-byte frame header (3 bits of type, 24-bit big-endian length). The 24-bit
// length caps one message at 16 MiB - 1 bytes.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "worker/wamp/codec.h"

namespace benchgate::worker::wamp {

inline constexpr uint32_t kRawSocketMaxLength = (uint32_t{1} << 24) - 1;
inline constexpr size_t kRawSocketHeaderBytes = 4;

enum class FrameType : uint8_t { kMessage = 0, kPing = 1, kPong = 2 };

// The client's handshake; it asks for the largest receive length (exponent 15: 2^24).
std::array<uint8_t, 4> client_handshake(Serializer serializer);

struct HandshakeReply {
  bool ok = false;
  uint32_t router_max_length = 0;  // what the router accepts from us, when ok
  std::string error;               // why not, when not ok
};
HandshakeReply parse_handshake_reply(const std::array<uint8_t, 4>& bytes, Serializer serializer);

std::array<uint8_t, 4> frame_header(FrameType type, uint32_t length);

struct FrameHeader {
  bool valid = false;  // reserved bits clear and a known type
  FrameType type = FrameType::kMessage;
  uint32_t length = 0;
};
FrameHeader parse_frame_header(const uint8_t* bytes);

}  // namespace benchgate::worker::wamp
