// The computations of the WAMP authentication methods that both sides of a session make:
// WAMP-CRA signatures (with PBKDF2-derived keys for salted secrets), WAMP-SCRAM keys, the
// AuthMessage, ClientProof and ServerSignature, and the names of the methods on the wire.
// The router (router/wamp/auth) verifies with these, the worker (worker/wamp) signs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/auth/crypto.h"

namespace benchgate::auth {

enum class Method : uint8_t { ticket = 0, wampcra = 1, scram = 2, cryptosign = 3 };
inline constexpr int kMethods = 4;
// "ticket", "wampcra", "wamp-scram", "cryptosign": the authmethod strings of the spec.
std::string_view method_name(Method method);
// Also accepts "scram", the name Autobahn|Python 22.7 announces for WAMP-SCRAM.
std::optional<Method> method_from_name(std::string_view name);

// --- WAMP-CRA ---
// base64(HMAC-SHA256(key, challenge)): the signature of a WAMP-CRA challenge, `key` being
// the secret itself or, for a salted secret, cra_derive_key().
std::string cra_signature(std::string_view key, std::string_view challenge);
// The key of a salted secret: base64(PBKDF2-HMAC-SHA256(secret, salt, iterations, keylen)),
// the salt taken as its bytes (not decoded). Empty when the parameters are out of range.
std::string cra_derive_key(std::string_view secret, std::string_view salt, uint32_t iterations,
                           uint32_t keylen);

// --- WAMP-SCRAM ---
enum class Kdf : uint8_t { pbkdf2 = 0, argon2id = 1 };
// "pbkdf2", "argon2id13"; from_name also accepts "argon2id-13" (Autobahn|Python 22.7).
std::string_view kdf_name(Kdf kdf);
std::optional<Kdf> kdf_from_name(std::string_view name);

// The spec's SCRAM, and the variant Autobahn|Python 22.7 implements (authmethod "scram"):
// its Argon2id SaltedPassword is the unpadded base64 text of the hash, not the hash, and its
// ClientFinalNoProof carries an empty "c=" where the spec has base64("n,,").
enum class ScramDialect : uint8_t { spec = 0, autobahn = 1 };

struct ScramParams {
  Kdf kdf = Kdf::pbkdf2;
  std::string salt;  // base64, as sent in CHALLENGE
  uint32_t iterations = 4096;
  uint32_t memory_kib = 0;  // argon2id only
};

struct ScramKeys {
  Digest client_key{};
  Digest stored_key{};
  Digest server_key{};
};

// SaltedPassword for `password` (nullopt: the salt is not base64 or the KDF refused the
// parameters).
std::optional<Bytes> scram_salted_password(std::string_view password, const ScramParams& params,
                                           ScramDialect dialect);
ScramKeys scram_keys(std::span<const uint8_t> salted_password);
// ClientFirstBare "," ServerFirst "," ClientFinalNoProof (no channel binding).
std::string scram_auth_message(std::string_view authid, std::string_view client_nonce,
                               std::string_view nonce, const ScramParams& params,
                               ScramDialect dialect);
// ClientKey XOR HMAC(StoredKey, AuthMessage).
Digest scram_client_proof(const ScramKeys& keys, std::string_view auth_message);
// SHA256(HMAC(StoredKey, AuthMessage) XOR proof) == StoredKey.
bool scram_proof_valid(const Digest& stored_key, std::string_view auth_message,
                       std::span<const uint8_t> proof);
Digest scram_server_signature(const Digest& server_key, std::string_view auth_message);

}  // namespace benchgate::auth
