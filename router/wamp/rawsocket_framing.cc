// RawSocket handshake and frame headers (see rawsocket_framing.h).
#include "router/wamp/rawsocket_framing.h"

namespace benchgate::router::wamp {

ClientHandshake parse_client_handshake(const std::array<uint8_t, 4>& bytes) {
  ClientHandshake out;
  if (bytes[0] != kRawSocketMagic) {
    out.not_rawsocket = true;
    return out;
  }
  if (bytes[2] != 0 || bytes[3] != 0) {
    out.error = HandshakeError::reserved_bits;
    return out;
  }
  const auto serializer = serializer_for_rawsocket_id(bytes[1] & 0x0F);
  if (!serializer) {
    out.error = HandshakeError::serializer_unsupported;
    return out;
  }
  out.serializer = *serializer;
  out.client_max_length = length_for_exponent(static_cast<uint8_t>(bytes[1] >> 4));
  return out;
}

std::array<uint8_t, 4> handshake_reply(Serializer serializer, uint8_t length_exponent) {
  return {kRawSocketMagic,
          static_cast<uint8_t>((length_exponent & 0x0F) << 4 | rawsocket_serializer_id(serializer)),
          0, 0};
}

std::array<uint8_t, 4> handshake_error_reply(HandshakeError error) {
  return {kRawSocketMagic, static_cast<uint8_t>(static_cast<uint8_t>(error) << 4), 0, 0};
}

uint8_t length_exponent_for(uint64_t max_bytes) {
  uint8_t exponent = 0;
  while (exponent < 15 && (uint64_t{1} << (9 + exponent + 1)) <= max_bytes) ++exponent;
  return exponent;
}

uint32_t length_for_exponent(uint8_t exponent) {
  if (exponent > 15) exponent = 15;
  const uint64_t length = uint64_t{1} << (9 + exponent);
  return length > kRawSocketMaxLength ? kRawSocketMaxLength : static_cast<uint32_t>(length);
}

}  // namespace benchgate::router::wamp
