// The key that ties a deferred promotion to the client that submitted the job: `run --server
// --promote NAME` with several files sends one secret with each of its Submits and with its
// Promote, and the service promotes only jobs submitted with that same secret. Without it, any
// client that read a job id from ListRuns could promote another invocation's run.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace benchgate::serve {

// Shorter keys are refused at Submit: one a client could guess would reopen the hole.
inline constexpr size_t kMinPromoteKeyBytes = 16;

// What a job keeps of its key: the SHA-256 as hex, so that the secret itself is held nowhere.
std::string promote_key_digest(std::string_view key);

// True when `key` is the one whose digest is `kept`; compared in constant time (CRYPTO_memcmp
// over the fixed-length digests), so the answer's timing says nothing about the kept key.
bool promote_key_matches(std::string_view key, const std::string& kept);

}  // namespace benchgate::serve
