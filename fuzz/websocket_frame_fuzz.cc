// Fuzzes the worker's WebSocket frame header parser (worker/wamp/websocket_framing.h) with
// the bytes a router sends it, fed in pieces of a size the input chooses, as reads deliver
// them: it never takes a byte past a header, a parsed header written back and parsed again
// gives the same fields, and masking the bytes after it matches the byte-at-a-time definition
// and undoes itself.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "worker/wamp/websocket_framing.h"

namespace ws = benchgate::worker::wamp::ws;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t step = (data[0] % 15) + 1;
  const size_t phase = data[0] >> 4;
  data += 1;
  size -= 1;
  ws::HeaderParser parser;
  size_t at = 0;
  while (at < size && parser.state() == ws::HeaderParser::State::kNeedMore) {
    const size_t piece = std::min(step, size - at);
    const size_t took = parser.feed(data + at, piece);
    if (took > piece) std::abort();
    at += took;
    if (took < piece && parser.state() == ws::HeaderParser::State::kNeedMore) std::abort();
  }
  if (at > ws::kMaxHeaderBytes) std::abort();
  if (parser.state() == ws::HeaderParser::State::kDone) {
    const ws::FrameHeader h = parser.header();
    uint8_t again[ws::kMaxHeaderBytes];
    const size_t n = ws::encode_header(h, again);
    if (n > at) std::abort();  // the shortest form is never longer than what was parsed
    ws::HeaderParser back;
    if (back.feed(again, n) != n || back.state() != ws::HeaderParser::State::kDone) std::abort();
    const ws::FrameHeader b = back.header();
    if (b.fin != h.fin || b.opcode != h.opcode || b.masked != h.masked || b.length != h.length ||
        (h.masked && b.key != h.key)) {
      std::abort();
    }
    // Mask what follows with the frame's key (or the first bytes when it has none).
    const std::array<uint8_t, 4> key = h.masked ? h.key : std::array<uint8_t, 4>{1, 2, 3, 4};
    const std::vector<uint8_t> rest(data + at, data + size);
    std::vector<uint8_t> out(rest.size());
    ws::mask_copy(out.data(), rest.data(), rest.size(), key, phase);
    for (size_t i = 0; i < rest.size(); ++i) {
      if (out[i] != (rest[i] ^ key[(phase + i) % 4])) std::abort();
    }
    ws::mask_copy(out.data(), out.data(), out.size(), key, phase);
    if (out != rest) std::abort();
  }
  return 0;
}
