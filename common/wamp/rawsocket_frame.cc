// RawSocket frame headers (see rawsocket_frame.h).
#include "common/wamp/rawsocket_frame.h"

namespace benchgate::wamp {

FrameHeader parse_frame_header(const uint8_t* bytes) {
  FrameHeader header;
  const uint8_t type = bytes[0] & 0x07;
  header.valid = (bytes[0] & 0xF8) == 0 && type <= 2;
  header.type = static_cast<FrameType>(type);
  header.length = (uint32_t{bytes[1]} << 16) | (uint32_t{bytes[2]} << 8) | bytes[3];
  return header;
}

std::array<uint8_t, 4> frame_header(FrameType type, uint32_t length) {
  return {static_cast<uint8_t>(type), static_cast<uint8_t>(length >> 16),
          static_cast<uint8_t>(length >> 8), static_cast<uint8_t>(length)};
}

}  // namespace benchgate::wamp
