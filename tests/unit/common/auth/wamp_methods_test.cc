// common/auth/wamp_methods.h: WAMP-CRA, WAMP-SCRAM and cryptosign against known vectors.
#include "common/auth/wamp_methods.h"

#include <gtest/gtest.h>

namespace benchgate::auth {
namespace {

// Reference values from Python's hmac / hashlib (an implementation independent of OpenSSL's
// API use here): base64(HMAC-SHA256(key, challenge)) and base64(PBKDF2(...)).
TEST(WampCra, SignatureOfAPlainSecret) {
  EXPECT_EQ(cra_signature("secret", R"({"authid":"peter"})"),
            "CpqR2bPicAJ3gimhLfZjFV94LCbjHYZY10UOQIcTy9U=");
}

TEST(WampCra, SaltedSecretIsTheBase64OfItsPbkdf2Key) {
  const std::string key = cra_derive_key("secret", "salt123", 100, 16);
  EXPECT_EQ(key, "EX1Y3Q9BMM2oGLxsGqDgFQ==");
  EXPECT_EQ(cra_signature(key, R"({"authid":"peter"})"),
            "SPh6eyI2n8u+d7QOmDOcTDv1VgoHNwQhJNptXhTaFwo=");
  EXPECT_TRUE(cra_derive_key("secret", "salt", 0, 16).empty());
}

// RFC 7677's SCRAM-SHA-256 exchange, which the WAMP-SCRAM spec reuses for its examples.
TEST(WampScram, Rfc7677ExchangeWithPbkdf2) {
  ScramParams params;
  params.kdf = Kdf::pbkdf2;
  params.salt = "W22ZaJ0SNY7soEsUEjb6gQ==";
  params.iterations = 4096;
  const auto salted = scram_salted_password("pencil", params, ScramDialect::spec);
  ASSERT_TRUE(salted.has_value());
  const ScramKeys keys = scram_keys(*salted);
  const std::string client_nonce = "rOprNGfwEbeRWgbNEkqO";
  const std::string nonce = "rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
  const std::string message =
      scram_auth_message("user", client_nonce, nonce, params, ScramDialect::spec);
  EXPECT_EQ(message,
            "n=user,r=rOprNGfwEbeRWgbNEkqO,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
            "s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,c=biws,"
            "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0");
  const Digest proof = scram_client_proof(keys, message);
  EXPECT_EQ(to_base64(proof), "dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
  EXPECT_EQ(to_base64(scram_server_signature(keys.server_key, message)),
            "6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
  EXPECT_TRUE(scram_proof_valid(keys.stored_key, message, proof));
  Digest wrong = proof;
  wrong[0] ^= 1;
  EXPECT_FALSE(scram_proof_valid(keys.stored_key, message, wrong));
}

TEST(WampScram, AuthidIsEscapedAndAutobahnDialectDiffers) {
  ScramParams params;
  params.salt = "c2FsdA==";
  params.iterations = 1;
  EXPECT_EQ(scram_auth_message("a,b=c", "x", "xy", params, ScramDialect::spec),
            "n=a=2Cb=3Dc,r=x,r=xy,s=c2FsdA==,i=1,c=biws,r=xy");
  EXPECT_EQ(scram_auth_message("u", "x", "xy", params, ScramDialect::autobahn),
            "n=u,r=x,r=xy,s=c2FsdA==,i=1,c=,r=xy");
}

TEST(WampScram, Argon2idSaltedPasswordPerDialect) {
  ScramParams params;
  params.kdf = Kdf::argon2id;
  params.salt = "c2FsdC1mb3ItZGF2ZQ==";  // "salt-for-dave"
  params.iterations = 2;
  params.memory_kib = 1024;
  const auto spec = scram_salted_password("dave-password", params, ScramDialect::spec);
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(to_hex(*spec), "0c6de6012ff8eb22aa05f8f9192aaba9be12e24f0daa78c27bbd6a14afc114ff");
  const auto autobahn = scram_salted_password("dave-password", params, ScramDialect::autobahn);
  ASSERT_TRUE(autobahn.has_value());
  EXPECT_EQ(std::string(autobahn->begin(), autobahn->end()),
            "DG3mAS/46yKqBfj5GSqrqb4S4k8NqnjCe71qFK/BFP8");  // unpadded base64 of the hash
  params.salt = "not base64";
  EXPECT_FALSE(scram_salted_password("p", params, ScramDialect::spec).has_value());
}

// The WAMP spec's cryptosign test vector 1 (without channel binding): the signature, then
// the challenge signed.
TEST(WampCryptosign, SpecTestVector1) {
  const auto seed = from_hex("4d57d97a68f555696620a6d849c0ce582568518d729eb753dc7c732de2804510");
  const auto challenge = from_hex(std::string(64, 'f'));
  ASSERT_TRUE(seed && challenge);
  const auto signature = ed25519_sign(*seed, *challenge);
  ASSERT_TRUE(signature.has_value());
  EXPECT_EQ(to_hex(*signature) + to_hex(*challenge),
            "b32675b221f08593213737bef8240e7c15228b07028e19595294678c90d11c0cae80a357331bfc5c"
            "c9fb71081464e6e75013517c2cf067ad566a6b7b728e5d03"
            "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff");
  const auto public_key = ed25519_public_key(*seed);
  ASSERT_TRUE(public_key.has_value());
  EXPECT_TRUE(ed25519_verify(*public_key, *signature, *challenge));
}

TEST(WampMethods, NamesOnTheWire) {
  EXPECT_EQ(method_name(Method::scram), "wamp-scram");
  EXPECT_EQ(method_from_name("scram"), Method::scram);
  EXPECT_EQ(method_from_name("wampcra"), Method::wampcra);
  EXPECT_FALSE(method_from_name("anonymous").has_value());
  EXPECT_EQ(kdf_from_name("argon2id-13"), Kdf::argon2id);
  EXPECT_EQ(kdf_name(Kdf::argon2id), "argon2id13");
}

}  // namespace
}  // namespace benchgate::auth
