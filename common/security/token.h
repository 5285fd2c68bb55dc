// Shared-token authentication of benchgate's control endpoints (README "Security"): a worker
// listening on the network accepts only calls carrying `authorization: Bearer <token>`, and
// the orchestrator sends that metadata. These helpers are the parts both sides need: reading a
// token file with ssh-like permission checks, making and storing a fresh token, comparing
// tokens in constant time, and telling a loopback listen address from a network one.
#pragma once

#include <string>
#include <string_view>

#include "common/util/expected.h"

namespace benchgate::security {

// gRPC metadata key and scheme of the token (RFC 6750 style).
inline constexpr std::string_view kAuthorizationKey = "authorization";
inline constexpr std::string_view kBearerPrefix = "Bearer ";

// The token in `path`: its first line with surrounding whitespace trimmed. Refused, with a
// message naming the path and the fix: a missing or unreadable file, not a regular file,
// readable or writable by others, or by a group other than read-only for the process's own
// effective group (owner-only like ssh's private keys; 0440 with the process's group is what a
// Kubernetes Secret volume with fsGroup gives a non-root container), an empty first
// line, or a token with characters other than printable ASCII (it travels as HTTP/2 header).
Expected<std::string> read_token_file(const std::string& path);

// 32 random bytes from the kernel, as 64 hex digits.
Expected<std::string> random_token();

// Creates `path` (it must not exist yet) with mode 0600 and the token as its only line.
Expected<void> write_token_file(const std::string& path, const std::string& token);

// True when `presented` equals `expected`. The time taken depends only on the length of
// `presented` (the caller's input), never on where the two differ or on `expected`.
bool tokens_equal(std::string_view presented, std::string_view expected);

// The token carried by an `authorization` metadata value ("Bearer <token>", scheme
// case-insensitive); empty when the value has another form.
std::string_view bearer_token(std::string_view authorization);

// True for hosts that only this machine can reach: 127.0.0.0/8, ::1 (also [::1] and
// ::ffff:127.x.x.x) and "localhost". Any other name or address counts as the network.
bool is_loopback_host(std::string_view host);

// The host of HOST:PORT as common/net/host_port.h reads it ("[::1]:7700" gives "::1"); "" for a
// value that is not HOST:PORT ("::1:7700", "h:99999", "unix:PATH"), a host no loopback check
// takes as this machine's.
std::string host_of(std::string_view address);

}  // namespace benchgate::security
