// WAMP RawSocket framing, client side, as plain functions: the 4-byte opening handshake
// (0x7F, maximum receive length exponent and serializer id, two zero octets) and the router's
// reply. The frame header both sides share is common/wamp/rawsocket_frame.h.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "common/wamp/rawsocket_frame.h"
#include "worker/wamp/codec.h"

namespace benchgate::worker::wamp {

using ::benchgate::wamp::frame_header;
using ::benchgate::wamp::FrameHeader;
using ::benchgate::wamp::FrameType;
using ::benchgate::wamp::kRawSocketMaxLength;
using ::benchgate::wamp::parse_frame_header;
inline constexpr size_t kRawSocketHeaderBytes = ::benchgate::wamp::kFrameHeaderSize;

// The client's handshake; it asks for the largest receive length (exponent 15: 2^24).
std::array<uint8_t, 4> client_handshake(Serializer serializer);

struct HandshakeReply {
  bool ok = false;
  uint32_t router_max_length = 0;  // what the router accepts from us, when ok
  std::string error;               // why not, when not ok
};
HandshakeReply parse_handshake_reply(const std::array<uint8_t, 4>& bytes, Serializer serializer);

}  // namespace benchgate::worker::wamp
