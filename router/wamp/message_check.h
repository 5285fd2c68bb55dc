// Structural validation of messages a client sends to the router, before any routing: the
// type is one a client may send, the message has the element count its type allows, and each
// element has its type (id, dict, URI string, list). A failure is a protocol violation
// (ABORT wamp.error.protocol_violation); URI *syntax* is checked later by the handlers, since
// an invalid URI is answered with ERROR wamp.error.invalid_uri instead.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/wamp/uri.h"
#include "router/wamp/message_type.h"
#include "router/wamp/serializer.h"

namespace benchgate::router::wamp {

// WAMP ids are integers in [0, 2^53] (the spec's 1..2^53, plus 0, which some clients send
// as a request id).
inline constexpr uint64_t kMaxId = uint64_t{1} << 53;

struct CheckResult {
  MessageType type = MessageType::kHello;
  // nullptr when the message is well-formed; otherwise why it is not, for ABORT.Details.
  const char* problem = nullptr;
  bool ok() const { return problem == nullptr; }
};

CheckResult check_client_message(const Json& message);

bool is_id(const Json& value);
// The id of a value for which is_id() holds.
inline uint64_t id_of(const Json& value) { return value.get<uint64_t>(); }

// WAMP's loose URI rule: dot-separated non-empty components without whitespace or '#'.
using benchgate::wamp::is_valid_uri;

}  // namespace benchgate::router::wamp
