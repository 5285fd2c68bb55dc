// WebSocket frames (RFC 6455 section 5) as the worker's WebSocket client writes and reads them:
// frame headers written and parsed (the parser follows a header across reads, byte by byte if
// need be), and masking, which a client applies to every payload it sends. Masking XORs the
// payload with the 4-byte key repeated; mask_copy does it while copying, 32 bytes at a time
// (AVX2 where the CPU has it, 8-byte words otherwise), so that a payload is read once and
// written once on its way into the send buffer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace benchgate::worker::wamp::ws {

enum Opcode : uint8_t {
  kContinuation = 0x0,
  kText = 0x1,
  kBinary = 0x2,
  kClose = 0x8,
  kPing = 0x9,
  kPong = 0xa,
};

struct FrameHeader {
  bool fin = true;
  uint8_t opcode = kBinary;
  bool masked = false;
  std::array<uint8_t, 4> key{};  // when masked
  uint64_t length = 0;           // payload bytes
};

// The longest header: 2 bytes, an 8-byte extended length, a 4-byte masking key.
inline constexpr size_t kMaxHeaderBytes = 14;

// Writes `header` to out[0, kMaxHeaderBytes) in its shortest form; returns its size.
size_t encode_header(const FrameHeader& header, uint8_t* out);

// One frame header, parsed as its bytes arrive.
class HeaderParser {
 public:
  enum class State : uint8_t { kNeedMore, kDone, kError };

  // Takes bytes of the header from data[0, size) and returns how many it took (none past the
  // header's end). Once kDone, header() is the frame's; once kError, error() says why.
  size_t feed(const uint8_t* data, size_t size);
  State state() const { return state_; }
  const FrameHeader& header() const { return header_; }
  const char* error() const { return error_; }
  // Ready for the next frame's header.
  void reset() {
    state_ = State::kNeedMore;
    have_ = 0;
  }

 private:
  void finish();

  std::array<uint8_t, kMaxHeaderBytes> bytes_{};
  size_t have_ = 0;
  State state_ = State::kNeedMore;
  FrameHeader header_;
  const char* error_ = "";
};

// dst[i] = src[i] ^ key[(phase + i) % 4] for i in [0, size): src[0] is payload byte `phase` of
// its frame. dst may be src (masking in place); otherwise they must not overlap.
void mask_copy(uint8_t* dst, const uint8_t* src, size_t size, const std::array<uint8_t, 4>& key,
               size_t phase);

}  // namespace benchgate::worker::wamp::ws
