// libFuzzer target: WAMP decoding (JSON, MessagePack, CBOR) and the structural check of
// client messages, as router/wamp/session.cc applies them to every message received; plus the
// RawSocket handshake and frame-header parsers. A decoded message is re-encoded in every
// serialization, as the router does when forwarding to a peer that uses another one.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "router/wamp/message_check.h"
#include "router/wamp/rawsocket_framing.h"
#include "router/wamp/serializer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace wamp = benchgate::router::wamp;
  if (size < 1) return 0;
  const auto serializer = static_cast<wamp::Serializer>(data[0] % wamp::kSerializerCount);
  std::span<const uint8_t> bytes(data + 1, size - 1);

  if (bytes.size() >= 4) {
    std::array<uint8_t, 4> head{bytes[0], bytes[1], bytes[2], bytes[3]};
    (void)wamp::parse_client_handshake(head);
    (void)wamp::parse_frame_header(bytes.data());
  }

  wamp::Json message;
  if (!wamp::decode(serializer, bytes, message)) return 0;
  const wamp::CheckResult check = wamp::check_client_message(message);
  if (check.ok() && message.size() >= 2 && message[1].is_string()) {
    (void)wamp::is_valid_uri(message[1].get_ref<const std::string&>());
  }
  for (int s = 0; s < wamp::kSerializerCount; ++s) {
    std::vector<uint8_t> out;
    out.reserve(wamp::encoded_size_hint(static_cast<wamp::Serializer>(s), message));
    wamp::encode(static_cast<wamp::Serializer>(s), message, out);
    // What the router encodes must decode again in the same serialization. Across
    // serializations two losses are known and reported rather than trapped: MessagePack and
    // CBOR strings may hold invalid UTF-8, which the JSON writer copies through; a MessagePack
    // ext value becomes a CBOR tag, which decode() rejects.
    if (static_cast<wamp::Serializer>(s) != serializer) continue;
    wamp::Json again;
    if (!wamp::decode(static_cast<wamp::Serializer>(s), out, again)) __builtin_trap();
  }
  return 0;
}
