// libFuzzer target: WAMP decoding (JSON, MessagePack, CBOR) and the structural check of
// client messages, as router/wamp/session.cc applies them to every message received, and the
// in-place reading of the messages it routes (router/wamp/message_view.h) and of any array (the
// worker's answers: common/serialization/value_view.h) against them; plus the
// RawSocket handshake and frame-header parsers. A decoded message is re-encoded in every
// serialization, as the router does when forwarding to a peer that uses another one. JSON is
// also decoded by nlohmann's parser, which the project's decoder must agree with exactly
// (common/serialization/json_decoder.h).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/serialization/json_decoder.h"
#include "router/wamp/message_check.h"
#include "router/wamp/rawsocket_framing.h"
#include "router/wamp/serializer.h"
#include "tests/unit/router/wamp_view_agreement.h"

namespace {

// Whether containers nest more than `limit` deep in `value` (a scalar: 0, an empty array: 1).
// Stops descending past the limit: the fuzzer's inputs may nest thousands deep.
bool nests_deeper(const nlohmann::json& value, int limit) {
  if (!value.is_array() && !value.is_object()) return false;
  if (limit == 0) return true;
  return std::any_of(value.begin(), value.end(), [&](const nlohmann::json& element) {
    return nests_deeper(element, limit - 1);
  });
}

// The project's JSON decoder (NUL strings kept) against nlohmann's parser: both accept the
// same text with the same value, except that ours refuses nesting past its limit, and that
// nlohmann stops reading at a NUL byte (its end of input; no string holds a raw one), where
// ours refuses what follows the value.
void compare_with_nlohmann(std::span<const uint8_t> bytes) {
  namespace serialization = benchgate::serialization;
  nlohmann::json ours;
  const bool ours_ok = serialization::decode_json(bytes, ours, serialization::NulStrings::kKeep);
  const nlohmann::json theirs =
      nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, /*allow_exceptions=*/false);
  if (theirs.is_discarded()) {
    if (ours_ok) __builtin_trap();
    return;
  }
  if (!ours_ok) {
    if (nests_deeper(theirs, serialization::kMaxNestingDepth)) return;
    const auto nul = std::find(bytes.begin(), bytes.end(), uint8_t{0});
    if (nul == bytes.end()) __builtin_trap();
    compare_with_nlohmann(bytes.first(static_cast<size_t>(nul - bytes.begin())));
    return;
  }
  if (ours != theirs || ours.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) !=
                            theirs.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) {
    __builtin_trap();
  }
}

}  // namespace

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

  if (serializer == wamp::Serializer::kJson) compare_with_nlohmann(bytes);
  // What the router reads in place (CALL, YIELD, PUBLISH) it reads as the document path does.
  if (!wamp::testing::view_agrees(serializer, bytes)) __builtin_trap();
  // What the worker reads in place (any array, common/serialization/value_view.h) likewise.
  if (!wamp::testing::elements_agree(serializer, bytes)) __builtin_trap();

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
