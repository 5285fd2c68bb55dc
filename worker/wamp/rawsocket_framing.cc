#include "worker/wamp/rawsocket_framing.h"

namespace benchgate::worker::wamp {

std::array<uint8_t, 4> client_handshake(Serializer serializer) {
  return {0x7F, static_cast<uint8_t>(0xF0 | rawsocket_serializer_id(serializer)), 0, 0};
}

HandshakeReply parse_handshake_reply(const std::array<uint8_t, 4>& bytes, Serializer serializer) {
  HandshakeReply reply;
  if (bytes[0] != 0x7F) {
    reply.error = "not a RawSocket peer (first octet is not 0x7F)";
    return reply;
  }
  const uint8_t serializer_id = bytes[1] & 0x0F;
  const uint8_t upper = bytes[1] >> 4;
  if (serializer_id == 0) {
    static constexpr const char* kErrors[] = {
        "illegal error code 0", "serializer unsupported", "maximum message length unacceptable",
        "use of reserved bits", "maximum connection count reached"};
    reply.error = std::string("RawSocket handshake refused: ") +
                  (upper < 5 ? kErrors[upper] : "error code " + std::to_string(upper));
    return reply;
  }
  if (serializer_id != rawsocket_serializer_id(serializer)) {
    reply.error = "RawSocket handshake answered with serializer " + std::to_string(serializer_id) +
                  ", asked for " + std::to_string(rawsocket_serializer_id(serializer));
    return reply;
  }
  if (bytes[2] != 0 || bytes[3] != 0) {
    reply.error = "RawSocket handshake reply has reserved octets set";
    return reply;
  }
  const uint64_t length = uint64_t{1} << (9 + upper);
  reply.router_max_length =
      length > kRawSocketMaxLength ? kRawSocketMaxLength : static_cast<uint32_t>(length);
  reply.ok = true;
  return reply;
}

std::array<uint8_t, 4> frame_header(FrameType type, uint32_t length) {
  return {static_cast<uint8_t>(type), static_cast<uint8_t>(length >> 16),
          static_cast<uint8_t>(length >> 8), static_cast<uint8_t>(length)};
}

FrameHeader parse_frame_header(const uint8_t* bytes) {
  FrameHeader header;
  const uint8_t type = bytes[0];
  header.valid = type <= 2;  // the 5 reserved bits are clear and the type is known
  header.type = static_cast<FrameType>(type & 0x07);
  header.length = (uint32_t{bytes[1]} << 16) | (uint32_t{bytes[2]} << 8) | bytes[3];
  return header;
}

}  // namespace benchgate::worker::wamp
