// The three WAMP serializations by name: the ids the router and the worker agree on, the
// WebSocket subprotocols and the RawSocket serializer ids. Encoding and decoding stay with each
// side (router/wamp/serializer.h, worker/wamp/codec.h): they need different things of a
// message (re-encoding for another peer, comparing an echoed payload in place).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace benchgate::wamp {

enum class Serializer : uint8_t { kJson = 0, kMsgpack = 1, kCbor = 2 };
inline constexpr int kSerializerCount = 3;

// "json", "msgpack", "cbor".
std::string_view serializer_name(Serializer serializer);
// WebSocket subprotocols: "wamp.2.json", "wamp.2.msgpack", "wamp.2.cbor".
std::string_view subprotocol(Serializer serializer);
std::optional<Serializer> serializer_for_subprotocol(std::string_view name);
// RawSocket serializer ids: 1 JSON, 2 MessagePack, 3 CBOR.
uint8_t rawsocket_serializer_id(Serializer serializer);
std::optional<Serializer> serializer_for_rawsocket_id(uint8_t id);
// JSON travels in WebSocket text messages, the others in binary ones.
inline bool is_text(Serializer serializer) { return serializer == Serializer::kJson; }

}  // namespace benchgate::wamp
