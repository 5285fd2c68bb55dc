// The cryptographic primitives WAMP authentication needs, over OpenSSL 3 (HMAC-SHA256,
// SHA-256, PBKDF2-HMAC-SHA256, Ed25519, random bytes) and libargon2 (Argon2id), plus the
// hex and constant-time helpers around them. Shared by the router (verifying) and the worker
// (signing). Nothing here throws; a failure is an empty result or false.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace benchgate::auth {

using Bytes = std::vector<uint8_t>;
using Digest = std::array<uint8_t, 32>;

std::span<const uint8_t> as_bytes(std::string_view text);

Digest sha256(std::span<const uint8_t> data);
Digest hmac_sha256(std::span<const uint8_t> key, std::span<const uint8_t> data);
// PBKDF2 with HMAC-SHA256 (RFC 8018); `keylen` bytes of output. Empty on failure
// (iterations < 1, keylen < 1).
Bytes pbkdf2_sha256(std::span<const uint8_t> password, std::span<const uint8_t> salt,
                    uint32_t iterations, uint32_t keylen);
// Argon2id, version 1.3, parallelism 1, 32 bytes of output (the WAMP-SCRAM parameters);
// `memory_kib` is the memory cost in KiB. nullopt on failure (parameters out of range).
std::optional<Digest> argon2id(std::span<const uint8_t> password, std::span<const uint8_t> salt,
                               uint32_t iterations, uint32_t memory_kib);

// Ed25519 (RFC 8032). A private key is its 32-byte seed; a public key 32 bytes; a signature
// 64 bytes.
std::optional<std::array<uint8_t, 32>> ed25519_public_key(std::span<const uint8_t> seed);
std::optional<std::array<uint8_t, 64>> ed25519_sign(std::span<const uint8_t> seed,
                                                    std::span<const uint8_t> message);
bool ed25519_verify(std::span<const uint8_t> public_key, std::span<const uint8_t> signature,
                    std::span<const uint8_t> message);

// `count` bytes from OpenSSL's CSPRNG.
Bytes random_bytes(size_t count);

// Lower-case hex, and its inverse (either case; nullopt for odd length or a non-hex digit).
std::string to_hex(std::span<const uint8_t> bytes);
std::optional<Bytes> from_hex(std::string_view text);
// Base64 (RFC 4648, padded) of `bytes`, and the inverse (nullopt when not base64).
std::string to_base64(std::span<const uint8_t> bytes);
std::optional<Bytes> from_base64(std::string_view text);

// Compares in time that depends only on the lengths.
bool equal_constant_time(std::span<const uint8_t> a, std::span<const uint8_t> b);

}  // namespace benchgate::auth
