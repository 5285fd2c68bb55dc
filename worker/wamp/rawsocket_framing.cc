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

}  // namespace benchgate::worker::wamp
