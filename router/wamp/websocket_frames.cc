// WebSocket frame headers (RFC 6455 section 5.2), followed across reads (see
// websocket_frames.h).
#include "router/wamp/websocket_frames.h"

#include <algorithm>

namespace benchgate::router::wamp {
namespace {

// Bytes of the header announced by its first two bytes: 2, plus the extended length (2 or
// 8), plus the masking key (4) when the mask bit is set.
size_t header_size(uint8_t second) {
  const uint8_t len7 = second & 0x7f;
  const size_t extended = len7 == 126 ? 2 : (len7 == 127 ? 8 : 0);
  return 2 + extended + ((second & 0x80) != 0 ? 4 : 0);
}

}  // namespace

void FrameScanner::feed(const uint8_t* data, size_t size) {
  while (size > 0) {
    if (remaining_ > 0) {
      const size_t skip = static_cast<size_t>(std::min<uint64_t>(remaining_, size));
      remaining_ -= skip;
      data += skip;
      size -= skip;
      if (remaining_ == 0) on_payload_end();
      continue;
    }
    header_[have_++] = *data++;
    --size;
    if (have_ >= 2 && have_ == header_size(header_[1])) on_header();
  }
}

void FrameScanner::on_header() {
  const bool fin = (header_[0] & 0x80) != 0;
  const uint8_t opcode = header_[0] & 0x0f;
  const uint8_t len7 = header_[1] & 0x7f;
  uint64_t length = len7;
  if (len7 == 126) {
    length = (uint64_t{header_[2]} << 8) | header_[3];
  } else if (len7 == 127) {
    length = 0;
    for (size_t i = 2; i < 10; ++i) length = (length << 8) | header_[i];
  }
  have_ = 0;
  remaining_ = length;
  if (opcode == 0x8) close_seen_ = true;
  if (opcode >= 0x8) return;  // ping, pong, close: not part of a message
  ++data_frames_;
  // A message is fragmented when its first frame (text or binary) is not final.
  if (opcode != 0x0 && !fin) ++fragmented_messages_;
  ends_message_ = fin;
  if (remaining_ == 0) on_payload_end();
}

void FrameScanner::on_payload_end() {
  if (!ends_message_) return;
  ends_message_ = false;
  ++complete_messages_;
}

ServerFrameHeader server_frame_header(bool text, uint64_t payload_size) {
  ServerFrameHeader header;
  header.bytes[0] = static_cast<uint8_t>(0x80 | (text ? 0x1 : 0x2));  // FIN, opcode
  if (payload_size < 126) {
    header.bytes[1] = static_cast<uint8_t>(payload_size);
    header.size = 2;
  } else if (payload_size <= 0xffff) {
    header.bytes[1] = 126;
    header.bytes[2] = static_cast<uint8_t>(payload_size >> 8);
    header.bytes[3] = static_cast<uint8_t>(payload_size);
    header.size = 4;
  } else {
    header.bytes[1] = 127;
    for (size_t i = 0; i < 8; ++i) {
      header.bytes[2 + i] = static_cast<uint8_t>(payload_size >> (56 - 8 * i));
    }
    header.size = 10;
  }
  return header;
}

}  // namespace benchgate::router::wamp
