// OpenSSL 3 and libargon2 behind the small interface of crypto.h.
#include "common/auth/crypto.h"

#include <argon2.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <memory>

#include "common/serialization/base64.h"

namespace benchgate::auth {
namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
using MdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;

}  // namespace

std::span<const uint8_t> as_bytes(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

Digest sha256(std::span<const uint8_t> data) {
  Digest out{};
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), out.data(), &size, EVP_sha256(), nullptr);
  return out;
}

Digest hmac_sha256(std::span<const uint8_t> key, std::span<const uint8_t> data) {
  Digest out{};
  unsigned int size = 0;
  static const uint8_t kEmpty = 0;
  HMAC(EVP_sha256(), key.empty() ? &kEmpty : key.data(), static_cast<int>(key.size()), data.data(),
       data.size(), out.data(), &size);
  return out;
}

Bytes pbkdf2_sha256(std::span<const uint8_t> password, std::span<const uint8_t> salt,
                    uint32_t iterations, uint32_t keylen) {
  if (iterations < 1 || keylen < 1 || iterations > (1u << 30) || keylen > 4096) return {};
  Bytes out(keylen);
  if (PKCS5_PBKDF2_HMAC(reinterpret_cast<const char*>(password.data()),
                        static_cast<int>(password.size()), salt.data(),
                        static_cast<int>(salt.size()), static_cast<int>(iterations), EVP_sha256(),
                        static_cast<int>(keylen), out.data()) != 1) {
    return {};
  }
  return out;
}

std::optional<Digest> argon2id(std::span<const uint8_t> password, std::span<const uint8_t> salt,
                               uint32_t iterations, uint32_t memory_kib) {
  Digest out{};
  const int rc = argon2id_hash_raw(iterations, memory_kib, 1, password.data(), password.size(),
                                   salt.data(), salt.size(), out.data(), out.size());
  if (rc != ARGON2_OK) return std::nullopt;
  return out;
}

std::optional<std::array<uint8_t, 32>> ed25519_public_key(std::span<const uint8_t> seed) {
  if (seed.size() != 32) return std::nullopt;
  Pkey key(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, seed.data(), seed.size()));
  if (!key) return std::nullopt;
  std::array<uint8_t, 32> out{};
  size_t size = out.size();
  if (EVP_PKEY_get_raw_public_key(key.get(), out.data(), &size) != 1 || size != 32) {
    return std::nullopt;
  }
  return out;
}

std::optional<std::array<uint8_t, 64>> ed25519_sign(std::span<const uint8_t> seed,
                                                    std::span<const uint8_t> message) {
  if (seed.size() != 32) return std::nullopt;
  Pkey key(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, seed.data(), seed.size()));
  MdCtx ctx(EVP_MD_CTX_new());
  if (!key || !ctx) return std::nullopt;
  std::array<uint8_t, 64> out{};
  size_t size = out.size();
  if (EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), out.data(), &size, message.data(), message.size()) != 1 ||
      size != 64) {
    return std::nullopt;
  }
  return out;
}

bool ed25519_verify(std::span<const uint8_t> public_key, std::span<const uint8_t> signature,
                    std::span<const uint8_t> message) {
  if (public_key.size() != 32 || signature.size() != 64) return false;
  Pkey key(
      EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, public_key.data(), public_key.size()));
  MdCtx ctx(EVP_MD_CTX_new());
  if (!key || !ctx) return false;
  return EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) == 1 &&
         EVP_DigestVerify(ctx.get(), signature.data(), signature.size(), message.data(),
                          message.size()) == 1;
}

Bytes random_bytes(size_t count) {
  Bytes out(count);
  if (count > 0 && RAND_bytes(out.data(), static_cast<int>(count)) != 1) return {};
  return out;
}

std::string to_hex(std::span<const uint8_t> bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const uint8_t b : bytes) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

std::optional<Bytes> from_hex(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  const auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  Bytes out;
  out.reserve(text.size() / 2);
  for (size_t i = 0; i < text.size(); i += 2) {
    const int high = digit(text[i]);
    const int low = digit(text[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    out.push_back(static_cast<uint8_t>(high * 16 + low));
  }
  return out;
}

std::string to_base64(std::span<const uint8_t> bytes) {
  std::string out;
  serialization::append_base64(bytes, out);
  return out;
}

std::optional<Bytes> from_base64(std::string_view text) {
  Bytes out;
  if (!serialization::base64_decode(text, out)) return std::nullopt;
  return out;
}

bool equal_constant_time(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  if (a.size() != b.size()) return false;
  return a.empty() || CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace benchgate::auth
