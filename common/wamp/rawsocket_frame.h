// The WAMP RawSocket frame header both sides read and write: 4 bytes, 5 reserved bits, 3 bits
// of frame type, a 24-bit big-endian payload length. The 24-bit length caps a RawSocket
// message at 16 MiB - 1 whatever the handshakes announce. The handshakes themselves differ by
// side (router/wamp/rawsocket_framing.h, worker/wamp/rawsocket_framing.h).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace benchgate::wamp {

inline constexpr uint8_t kRawSocketMagic = 0x7F;
inline constexpr uint32_t kRawSocketMaxLength = (uint32_t{1} << 24) - 1;
inline constexpr size_t kFrameHeaderSize = 4;

enum class FrameType : uint8_t { kMessage = 0, kPing = 1, kPong = 2 };

struct FrameHeader {
  // False for reserved bits set or a frame type other than message, ping and pong.
  bool valid = false;
  FrameType type = FrameType::kMessage;
  uint32_t length = 0;
};

FrameHeader parse_frame_header(const uint8_t* bytes);
std::array<uint8_t, 4> frame_header(FrameType type, uint32_t length);

}  // namespace benchgate::wamp
