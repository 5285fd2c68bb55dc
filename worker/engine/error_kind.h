// The kinds a failed operation is counted under (docs/MEASUREMENT.md "Operations, successes and
// errors"): an enumerator each, in the order of their names, which are the protocol's
// (common/workload/error_kinds.h, the keys of WindowResult.errors in the proto).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/workload/error_kinds.h"

namespace benchgate::worker {

enum class ErrorKind : uint8_t {
  kConnect,    // a (re)connect failed
  kTimeout,    // no response before the drain deadline
  kStatus,     // status differs from expect_status
  kLength,     // body length differs from expect_body_bytes
  kShortRead,  // the server closed the connection before answering
  kMismatch,   // echo body differs from the request body
  kProtocol,   // not a parseable HTTP/1.1 response, or bytes nobody asked for
  kReset,      // the connection failed with a socket error (reset, broken pipe, ...)
  kWampError,  // WAMP: the router answered a CALL or PUBLISH with ERROR (refused it)
  kLost,       // WAMP pub/sub: an event a subscriber should have received never came
  kNotSent,    // open loop: due inside the window, still unwritten at the drain deadline
  // WAMP: ERROR wamp.error.not_authorized (the session's role may not)
  kNotAuthorized,
  // wamp_transfer: a chunk differs from the pattern, or the chunks do not add up
  kChunkMismatch,
  // wamp_rpc with call_timeout: ERROR wamp.error.timeout (the router's dealer ended the call)
  kCallTimeout,
  // wamp_rpc with cancel_after: ERROR wamp.error.canceled for a call this worker sent CANCEL for
  kCanceled,
  // wamp_rpc: an ERROR for a call the router routed: the callee's answer to its INVOCATION,
  // forwarded (any URI but the router's refusals, worker/wamp/call_refusal.h)
  kCalleeError,
};

inline constexpr const auto& kErrorKindNames = error_kinds::kNames;
inline constexpr size_t kErrorKindCount = kErrorKindNames.size();
// The enum names a kind by its place among them: kCalleeError, the last enumerator, is the last
// name (a kind added to one list and not the other fails here).
static_assert(static_cast<size_t>(ErrorKind::kCalleeError) + 1 == kErrorKindCount);

constexpr std::string_view error_kind_name(ErrorKind kind) {
  return kErrorKindNames[static_cast<size_t>(kind)];
}

using ErrorCounts = std::array<uint64_t, kErrorKindCount>;

}  // namespace benchgate::worker
