// WAMP-CRA and WAMP-SCRAM computations (see wamp_methods.h).
#include "common/auth/wamp_methods.h"

namespace benchgate::auth {

std::string_view method_name(Method method) {
  switch (method) {
    case Method::ticket:
      return "ticket";
    case Method::wampcra:
      return "wampcra";
    case Method::scram:
      return "wamp-scram";
    case Method::cryptosign:
      return "cryptosign";
  }
  return "?";
}

std::optional<Method> method_from_name(std::string_view name) {
  if (name == "ticket") return Method::ticket;
  if (name == "wampcra") return Method::wampcra;
  if (name == "wamp-scram" || name == "scram") return Method::scram;
  if (name == "cryptosign") return Method::cryptosign;
  return std::nullopt;
}

std::string cra_signature(std::string_view key, std::string_view challenge) {
  const Digest mac = hmac_sha256(as_bytes(key), as_bytes(challenge));
  return to_base64(mac);
}

std::string cra_derive_key(std::string_view secret, std::string_view salt, uint32_t iterations,
                           uint32_t keylen) {
  const Bytes key = pbkdf2_sha256(as_bytes(secret), as_bytes(salt), iterations, keylen);
  return key.empty() ? std::string() : to_base64(key);
}

std::string_view kdf_name(Kdf kdf) { return kdf == Kdf::pbkdf2 ? "pbkdf2" : "argon2id13"; }

std::optional<Kdf> kdf_from_name(std::string_view name) {
  if (name == "pbkdf2") return Kdf::pbkdf2;
  if (name == "argon2id13" || name == "argon2id-13") return Kdf::argon2id;
  return std::nullopt;
}

std::optional<Bytes> scram_salted_password(std::string_view password, const ScramParams& params,
                                           ScramDialect dialect) {
  const auto salt = from_base64(params.salt);
  if (!salt) return std::nullopt;
  if (params.kdf == Kdf::pbkdf2) {
    Bytes out = pbkdf2_sha256(as_bytes(password), *salt, params.iterations, 32);
    if (out.empty()) return std::nullopt;
    return out;
  }
  const auto hash = argon2id(as_bytes(password), *salt, params.iterations, params.memory_kib);
  if (!hash) return std::nullopt;
  if (dialect == ScramDialect::spec) return Bytes(hash->begin(), hash->end());
  std::string text = to_base64(*hash);
  while (!text.empty() && text.back() == '=') text.pop_back();
  return Bytes(text.begin(), text.end());
}

ScramKeys scram_keys(std::span<const uint8_t> salted_password) {
  ScramKeys keys;
  keys.client_key = hmac_sha256(salted_password, as_bytes("Client Key"));
  keys.stored_key = sha256(keys.client_key);
  keys.server_key = hmac_sha256(salted_password, as_bytes("Server Key"));
  return keys;
}

std::string scram_auth_message(std::string_view authid, std::string_view client_nonce,
                               std::string_view nonce, const ScramParams& params,
                               ScramDialect dialect) {
  std::string escaped;
  for (const char c : authid) {
    if (c == ',') {
      escaped += "=2C";
    } else if (c == '=') {
      escaped += "=3D";
    } else {
      escaped += c;
    }
  }
  std::string out = "n=" + escaped + ",r=" + std::string(client_nonce);
  out +=
      ",r=" + std::string(nonce) + ",s=" + params.salt + ",i=" + std::to_string(params.iterations);
  out += dialect == ScramDialect::spec ? ",c=biws" : ",c=";
  out += ",r=" + std::string(nonce);
  return out;
}

Digest scram_client_proof(const ScramKeys& keys, std::string_view auth_message) {
  const Digest signature = hmac_sha256(keys.stored_key, as_bytes(auth_message));
  Digest proof{};
  for (size_t i = 0; i < proof.size(); ++i) proof[i] = keys.client_key[i] ^ signature[i];
  return proof;
}

bool scram_proof_valid(const Digest& stored_key, std::string_view auth_message,
                       std::span<const uint8_t> proof) {
  if (proof.size() != 32) return false;
  const Digest signature = hmac_sha256(stored_key, as_bytes(auth_message));
  Digest client_key{};
  for (size_t i = 0; i < client_key.size(); ++i) client_key[i] = signature[i] ^ proof[i];
  return equal_constant_time(sha256(client_key), stored_key);
}

Digest scram_server_signature(const Digest& server_key, std::string_view auth_message) {
  return hmac_sha256(server_key, as_bytes(auth_message));
}

}  // namespace benchgate::auth
